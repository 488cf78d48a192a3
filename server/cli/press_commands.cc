// `adjutant press options` and `adjutant press list` (server/app/press.h).
#include <cstdio>
#include <ctime>
#include <functional>

#include "server/app/app_runtime.h"
#include "server/app/press.h"
#include "server/app/time_text.h"
#include "server/cli/commands.h"

namespace adj::cli {

namespace {

int fail_for(const std::string& game, const Status& s) {
  if (s.code() == StatusCode::kNotFound && s.message() == "game " + game) {
    std::fprintf(stderr,
                 "error: there is no game \"%s\" in this database; `adjutant game list` shows "
                 "the games\n",
                 game.c_str());
    return kExitError;
  }
  return fail(s);
}

// Runs `f` with a Press over the database of `c` (opened and migrated); its exit code, or the
// error of opening the database.
int with_press(const Common& c, const std::function<int(Press&)>& f) {
  auto app = open_runtime(c);
  if (!app.ok()) return fail(app.status());
  Press press = (*app)->press();
  return f(press);
}

}  // namespace

int press_options(const Common& c, const std::string& game, const std::string& level,
                  const std::string& gm_reads_private) {
  return with_press(c, [&](Press& press) {
    auto o = press.options(game);
    if (!o.ok()) return fail_for(game, o.status());
    if (!level.empty() || !gm_reads_private.empty()) {
      if (!level.empty()) o->press = level;
      if (gm_reads_private == "yes") o->gm_reads_private = true;
      if (gm_reads_private == "no") o->gm_reads_private = false;
      if (const Status st = press.set_options(game, *o, "gm:cli"); !st.ok()) return fail(st);
      std::printf("Press options of %s saved.\n", game.c_str());
    }
    std::printf("press: %s\ngm_reads_private: %s\n%s\n", o->press.c_str(),
                o->gm_reads_private ? "yes" : "no", Press::describe(*o).c_str());
    return kExitOk;
  });
}

int press_list(const Common& c, const std::string& game) {
  return with_press(c, [&](Press& press) {
    auto list = press.gm_view(game);
    if (!list.ok()) return fail_for(game, list.status());
    if (list->empty()) std::printf("No press to show in %s.\n", game.c_str());
    for (auto it = list->rbegin(); it != list->rend(); ++it)
      std::printf("--- turn %d, %s\nFrom: %s\nTo: %s\n\n%s\n\n", it->message.turn,
                  utc_minutes(it->message.sent_at).c_str(), it->from.c_str(), it->to.c_str(),
                  it->message.body.c_str());
    return kExitOk;
  });
}

}  // namespace adj::cli
