// `adjutant game delete | archive | unarchive` (server/app/admin.h, game_lifecycle.cc), as the
// GM ("gm:cli" in the audit logs).
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "server/app/app_runtime.h"
#include "server/app/membership.h"
#include "server/cli/commands.h"

namespace adj::cli {

namespace {

constexpr const char* kCliGm = "gm:cli";

// What deleting `game` removes, in one line, for the question asked on a terminal.
std::string deletion_summary(AppRuntime& app, const std::string& game, const GameSummary& g) {
  auto st = app.services().show_game(game);
  auto signups = app.membership("").signups(game);
  auto files = app.services().all_files(game);
  return g.name + " (" + game + "), turn " + std::to_string(g.turn) + " not run yet, status " +
         g.status + ": " + std::to_string(st.ok() ? (*st)["players"].size() : 0) + " positions, " +
         std::to_string(signups.ok() ? signups->size() : 0) + " sign-ups, " +
         std::to_string(files.ok() ? files->size() : 0) + " order files";
}

// Asks `question` on the terminal; true when the line typed is `expected`.
bool confirm_on_terminal(const std::string& question, const std::string& expected) {
  std::fprintf(stdout, "%s", question.c_str());
  std::fflush(stdout);
  std::string line;
  if (!std::getline(std::cin, line)) return false;
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line == expected;
}

}  // namespace

int game_delete(const Common& c, const std::string& game, bool yes, const std::string& reason) {
  auto app = open_runtime(c);
  if (!app.ok()) return fail(app.status());
  GameAdmin& admin = (*app)->admin();
  if (!yes) {
    auto g = (*app)->services().game_summary(game);
    if (!g.ok()) return fail(g.status());
    auto started = admin.has_started(game);
    if (!started.ok()) return fail(started.status());
    // A started game is refused below, in the store's words; nothing to ask then.
    if (!*started) {
      if (!isatty(STDIN_FILENO))
        return fail(Status::FailedPrecondition(
                        "deleting a game cannot be undone, and the input is not a terminal to "
                        "ask on: pass --yes to delete " +
                        game + " without being asked; nothing was deleted"),
                    kExitRefused);
      std::printf(
          "Deleting %s.\nEverything of the game goes and nobody is told; the host's audit "
          "log keeps a record.\n",
          deletion_summary(**app, game, *g).c_str());
      if (!confirm_on_terminal("Type the game id to delete it (anything else keeps it): ", game)) {
        std::printf("Nothing was deleted.\n");
        return kExitRefused;
      }
    }
  }
  auto out = admin.delete_game(game, kCliGm, reason);
  if (!out.ok())
    return fail(out.status(),
                out.status().code() == StatusCode::kFailedPrecondition ? kExitRefused : kExitError);
  std::int64_t rows = 0;
  for (const auto& [table, n] : out->rows) rows += n;
  std::printf(
      "Deleted game %s (%s): %lld rows in %zu tables; %lld unsent messages dropped, %lld "
      "sent kept. Host audit entry %lld.\n",
      out->game.c_str(), out->name.c_str(), static_cast<long long>(rows), out->rows.size(),
      static_cast<long long>(out->mail_dropped), static_cast<long long>(out->mail_kept),
      static_cast<long long>(out->host_audit_id));
  return kExitOk;
}

int game_archive(const Common& c, const std::string& game, bool on, const std::string& reason) {
  auto app = open_runtime(c);
  if (!app.ok()) return fail(app.status());
  GameAdmin& admin = (*app)->admin();
  const Status s =
      on ? admin.archive_game(game, kCliGm, reason) : admin.unarchive_game(game, kCliGm, reason);
  if (!s.ok())
    return fail(s, s.code() == StatusCode::kFailedPrecondition ? kExitRefused : kExitError);
  if (on)
    std::printf(
        "Game %s is archived: out of the game lists, readable, taking no orders, sign-ups "
        "or turn runs until `adjutant game unarchive %s`.\n",
        game.c_str(), game.c_str());
  else
    std::printf("Game %s is back in the game lists; its status and deadline are as they were.\n",
                game.c_str());
  return kExitOk;
}

}  // namespace adj::cli
