// `adjutant attendance show|set|code|standby-remove`: missed turns, civil disorder, absences, the
// standby list, the attendance options and the GM's takeover codes (server/app/attendance.h).
#include <cstdio>
#include <ctime>

#include "server/app/app_runtime.h"
#include "server/app/attendance.h"
#include "server/app/time_text.h"
#include "server/cli/commands.h"

namespace adj::cli {

namespace {

// kExitRefused for a request the game refuses (InvalidArgument), else kExitError.
int attendance_fail(const Status& s) {
  return fail(s, s.code() == StatusCode::kInvalidArgument ? kExitRefused : kExitError);
}

// Runs `f` with the game's Attendance (the game id in its stored spelling).
template <class F>
int with_attendance(const Common& c, const std::string& game, F f) {
  auto app = open_runtime(c);
  if (!app.ok()) return attendance_fail(app.status());
  Attendance att = (*app)->attendance("");
  const std::string id = stored_game_id(c, game);
  return f(att, id);
}

}  // namespace

int attendance_show(const Common& c, const std::string& game, bool json) {
  return with_attendance(c, game, [&](Attendance& att, const std::string& id) {
    auto ps = att.players(id);
    if (!ps.ok()) return attendance_fail(ps.status());
    auto o = att.options(id);
    if (!o.ok()) return attendance_fail(o.status());
    auto standby = att.standby_list(id);
    if (!standby.ok()) return attendance_fail(standby.status());
    if (json) {
      Json players = Json::array();
      for (const auto& p : *ps) players.push_back(to_json(p));
      Json list = Json::array();
      for (const auto& e : *standby) list.push_back(e.address);
      std::printf(
          "%s\n",
          Json{{"game", id}, {"options", to_json(*o)}, {"players", players}, {"standby", list}}
              .dump(2)
              .c_str());
      return kExitOk;
    }
    std::printf("%s\n", to_json(*o).dump().c_str());
    std::printf("%-6s %-24s %6s  %-14s %s\n", "PLAYER", "NAME", "MISSED", "DISORDER", "ABSENCE");
    for (const auto& p : *ps)
      std::printf("%-6s %-24s %6d  %-14s %s\n", p.player.c_str(), p.name.c_str(), p.missed,
                  p.disorder ? ("since turn " + std::to_string(*p.disorder_since)).c_str() : "no",
                  p.absence_text().c_str());
    std::printf("Standby: %zu address(es)\n", standby->size());
    for (const auto& e : *standby)
      std::printf("  %s (since %s)\n", e.address.c_str(), utc_minutes(e.created_at).c_str());
    return kExitOk;
  });
}

int attendance_set(const Common& c, const std::string& game, const std::string& options_json) {
  return with_attendance(c, game, [&](Attendance& att, const std::string& id) {
    auto o = att.options(id);
    if (!o.ok()) return attendance_fail(o.status());
    const Json j = Json::parse(options_json, nullptr, false);
    if (j.is_discarded())
      return attendance_fail(
          Status::InvalidArgument("the options are not JSON, e.g. "
                                  "'{\"civil_disorder_after\": 3}'"));
    if (Status s = Attendance::merge_json(j, *o); !s.ok()) return attendance_fail(s);
    if (Status s = att.set_options(id, *o, "gm:cli"); !s.ok()) return attendance_fail(s);
    std::printf("Attendance options of %s: %s\n", id.c_str(), to_json(*o).dump().c_str());
    return kExitOk;
  });
}

int attendance_code(const Common& c, const std::string& game, const std::string& player) {
  return with_attendance(c, game, [&](Attendance& att, const std::string& id) {
    auto code = att.issue_code(id, player, "gm:cli");
    if (!code.ok()) return attendance_fail(code.status());
    std::printf("Takeover code for %s in %s (shown only now; single use): %s\n", player.c_str(),
                id.c_str(), code->c_str());
    return kExitOk;
  });
}

int attendance_standby_remove(const Common& c, const std::string& game,
                              const std::string& address) {
  return with_attendance(c, game, [&](Attendance& att, const std::string& id) {
    if (Status s = att.remove_standby(id, address, "gm:cli"); !s.ok()) return attendance_fail(s);
    std::printf("%s removed from the standby list of %s.\n", address.c_str(), id.c_str());
    return kExitOk;
  });
}

}  // namespace adj::cli
