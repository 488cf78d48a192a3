#include "server/cli/commands.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "rules/combat/engine_registry.h"
#include "rules/combat/engine_resolver.h"
#include "rules/combat/local_world.h"
#include "rules/game/scenario.h"
#include "server/app/admin.h"
#include "server/app/allocator.h"
#include "server/app/app_runtime.h"
#include "server/app/attendance.h"
#include "server/app/engine_catalog.h"
#include "server/app/gm_orders.h"
#include "server/app/open_store.h"
#include "server/app/secrets.h"
#include "server/app/services.h"
#include "storage/open_database.h"
#include "storage/store.h"

namespace adj::cli {

int fail(const Status& s, int code) {
  std::fprintf(stderr, "error: %s\n", s.message().c_str());
  return code;
}

UnixTime wall_clock() { return static_cast<UnixTime>(std::time(nullptr)); }

Result<std::unique_ptr<AppRuntime>> open_runtime(const Common& c) {
  AppConfig config;
  config.db_path = c.db;
  // The host's GM address, as `serve --gm-address` takes it from the environment.
  if (const char* env = std::getenv("ADJUTANT_GM_ADDRESS"); env && *env) config.gm_address = env;
  auto app = std::make_unique<AppRuntime>(config, wall_clock);
  if (Status s = app->open_check(); !s.ok()) return s;
  return app;
}

namespace {

// A command's runtime and the services of this thread in it.
struct Session {
  std::unique_ptr<AppRuntime> app;
  Services* services = nullptr;  // app->services()
};

Result<Session> open_session(const Common& c) {
  auto app = open_runtime(c);
  if (!app.ok()) return app.status();
  Session s;
  s.app = std::move(app).value();
  s.services = &s.app->services();
  return s;
}

Result<Json> read_json(const std::string& path) {
  Result<std::string> text = read_input(path, kMaxInputBytes);
  if (!text.ok()) return text.status();
  try {
    return Json::parse(*text);
  } catch (const Json::parse_error& e) {
    return Status::InvalidArgument((path == "-" ? std::string("stdin") : path) +
                                   " is not valid JSON: " + e.what());
  }
}

void print_ack(const SubmitOutcome& out, bool json) {
  if (json) {
    Json j = to_json(out.ack);
    if (out.submission_id) j["submission_id"] = *out.submission_id;
    if (!out.note.empty()) j["note"] = out.note;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s", out.text().c_str());
  }
}

void print_turn(const TurnRunOutcome& out) {
  std::printf("%s turn %d: %zu actions, %zu battles, digest %s\n",
              out.preview ? "Previewed" : "Resolved", out.turn, out.result.actions.size(),
              out.result.battles.size(), out.digest.c_str());
  if (!out.players_without_orders.empty()) {
    std::printf("No orders from:");
    for (const auto& p : out.players_without_orders) std::printf(" %s", p.c_str());
    std::printf("\n");
  }
}

}  // namespace

Status write_output(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::IOError("cannot write " + path);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return Status::IOError("cannot write " + path);
  return Status::Ok();
}

Result<std::string> read_input(const std::string& path, std::size_t limit,
                               const std::string& what) {
  std::ifstream file;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) return Status::NotFound("cannot read " + path);
  }
  std::istream& in = path == "-" ? std::cin : file;
  // Read in chunks; past the limit by a byte is enough to tell.
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= limit && in.read(chunk, sizeof chunk).gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (!in) break;
  }
  if (text.size() > limit)
    return Status::InvalidArgument(path + " is larger than the " + std::to_string(limit) +
                                   " bytes" + what);
  return text;
}

std::string stored_game_id(const Common& c, const std::string& game) {
  if (game.empty()) return game;
  // A SQLite file that does not exist yet is not created here.
  if (const std::string file = database_file(c.db); !file.empty()) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) return game;
  }
  auto store = open_database(c.db);
  if (!store.ok()) return game;  // the command opens it again and reports the error
  auto id = (*store)->stored_game_id(game);
  return id.ok() ? *id : game;
}

int game_create(const Common& c, const std::string& scenario_arg,
                std::optional<unsigned long long> seed, bool demo_secrets, const std::string& id,
                const std::string& name) {
  const std::string prefix = "bundled:";
  Result<Json> doc = read_scenario_document(scenario_arg);  // with a Lua script_file read in
  if (!doc.ok()) return fail(doc.status());
  auto s = open_session(c);
  if (!s.ok()) return fail(s.status());
  Json scenario = *doc;
  if (seed) scenario["seed"] = std::to_string(*seed);
  if (!id.empty()) scenario["id"] = id;
  if (!name.empty()) scenario["name"] = name;
  // A bundled scenario's secrets are public (docs/scenarios.md): its players get fresh ones.
  const bool bundled = scenario_arg.rfind(prefix, 0) == 0 && !demo_secrets;
  std::map<std::string, std::string> issued;
  auto game = s->services->create_game(scenario, new_game_seed(), bundled, &issued);
  if (!game.ok()) return fail(game.status());
  std::printf("Created game %s (%s), engine %s, turn %d open. Database: %s\n", game->id.c_str(),
              game->name.c_str(), game->engine.c_str(), game->turn,
              describe_database(c.db).c_str());
  if (!issued.empty()) {
    std::printf("New player secrets (shown only now; stored hashed):\n");
    for (const auto& [player, secret] : issued)
      std::printf("  %-6s %s\n", player.c_str(), secret.c_str());
  }
  return kExitOk;
}

int player_reset(const Common& c, const std::string& game, const std::string& player,
                 const std::string& what) {
  auto s = open_session(c);
  if (!s.ok()) return fail(s.status());
  GameAdmin& admin = s->app->admin();
  auto out = admin.reset_player(game, player, what, "gm:cli");
  if (!out.ok()) return fail(out.status());
  const std::size_t space = out->find(' ');
  if (what != "token")
    std::printf("New secret for %s in %s (shown only now): %s\n", player.c_str(), game.c_str(),
                out->substr(0, space).c_str());
  if (what != "secret")
    std::printf("New link token for %s in %s (shown only now): %s\n", player.c_str(), game.c_str(),
                what == "token" ? out->c_str() : out->substr(space + 1).c_str());
  return kExitOk;
}

int game_list(const Common& c) {
  auto s = open_session(c);
  if (!s.ok()) return fail(s.status());
  auto games = s->services->list_games();
  if (!games.ok()) return fail(games.status());
  if (games->empty()) std::printf("No games in %s.\n", describe_database(c.db).c_str());
  for (const auto& g : *games)
    std::printf("%-20s turn %-3d %-8s %-20s %s%s\n", g.id.c_str(), g.turn, g.status.c_str(),
                g.engine.c_str(), g.name.c_str(), g.archived_at ? " (archived)" : "");
  return kExitOk;
}

int game_show(const Common& c, const std::string& game, bool json) {
  auto s = open_session(c);
  if (!s.ok()) return fail(s.status());
  auto j = s->services->show_game(game);
  if (!j.ok()) return fail(j.status());
  if (json) {
    std::printf("%s\n", j->dump(2).c_str());
    return kExitOk;
  }
  const Json& g = *j;
  std::printf("%s (%s): turn %d open, engine %s, status %s\n", g["name"].get<std::string>().c_str(),
              g["game"].get<std::string>().c_str(), g["turn"].get<int>(),
              g["engine"]["name"].get<std::string>().c_str(), g.value("status", "open").c_str());
  std::string order;
  for (const auto& p : g["order_of_play"]) order += " " + p.get<std::string>();
  std::printf("Order of play:%s\n\n", order.empty() ? " (drawn when turn 1 runs)" : order.c_str());
  std::printf("player name                 bp treasury  vp\n");
  for (const auto& p : g["players"])
    std::printf("%-6s %-18s %4d %8d %3d\n", p["code"].get<std::string>().c_str(),
                p["name"].get<std::string>().substr(0, 18).c_str(), p["bp"].get<int>(),
                p["treasury"].get<int>(), p["vp"].get<int>());
  std::printf("\narea name             kind terrain    owner pop fort armies mode\n");
  for (const auto& a : g["areas"])
    std::printf("%-4s %-16s %-4s %-10s %-5s %3d %4d %6d %s\n", a["code"].get<std::string>().c_str(),
                a["name"].get<std::string>().substr(0, 16).c_str(),
                a["kind"].get<std::string>().c_str(),
                a["terrain"].get<std::string>().substr(0, 10).c_str(),
                a["owner"].is_null() ? "-" : a["owner"].get<std::string>().c_str(),
                a["population"].get<int>(), a["fort"].get<int>(), a["armies"].get<int>(),
                a["mode"].get<std::string>().c_str());
  return kExitOk;
}

int orders_submit(const Common& c, const std::string& game, const std::string& file, bool json,
                  bool check_only) {
  // Read generously; the validator refuses oversized files with a clear reason.
  auto text = read_input(file, kMaxInputBytes);
  if (!text.ok()) return fail(text.status());
  auto s = open_session(c);
  if (!s.ok()) return fail(s.status());
  auto out = check_only ? s->services->check_orders(game, *text)
                        : s->services->submit_orders(game, *text, "cli");
  if (!out.ok()) return fail(out.status());
  print_ack(*out, json);
  return out->ack.refused ? kExitRefused : kExitOk;
}

int orders_enter(const Common& c, const std::string& game, const std::string& player,
                 const std::string& file, bool json) {
  auto text = read_input(file, 64 * 1024);
  if (!text.ok()) return fail(text.status());
  auto s = open_session(c);
  if (!s.ok()) return fail(s.status());
  auto out = s->app->admin().enter_orders(game, player, *text, "gm:cli", std::nullopt);
  if (!out.ok()) return fail(out.status());
  print_ack(*out, json);
  return out->ack.refused ? kExitRefused : kExitOk;
}

namespace {

int run_turn_now(const Common& c, const std::string& game, bool preview, bool timings,
                 std::optional<int> expected_turn) {
  const auto t0 = std::chrono::steady_clock::now();
  auto s = open_session(c);
  if (!s.ok()) return fail(s.status());
  // Through GameAdmin, as the web and the scheduler: audited, and the deadline handled.
  GameAdmin& admin = s->app->admin();
  auto out = expected_turn ? admin.run_turn(game, preview, "gm", expected_turn)
                           : admin.run_turn(game, preview, "gm");
  if (!out.ok()) return fail(out.status());
  print_turn(*out);
  if (timings) {
    std::printf("Timings:");
    for (const auto& [phase, ms] : out->phase_ms) std::printf(" %s %.0f ms,", phase.c_str(), ms);
    std::printf(
        " total %.0f ms\n",
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  if (preview)
    for (const auto& r : out->reports)
      std::printf("\n==================== %s ====================\n%s", r.player.c_str(),
                  out->full_text(r).c_str());
  return kExitOk;
}

}  // namespace

int turn_run(const Common& c, const std::string& game, bool preview, bool timings,
             std::optional<int> expected_turn) {
  // A batch process, whose memory goes back to the system when it ends.
  return run_on_large_pages([&] { return run_turn_now(c, game, preview, timings, expected_turn); });
}

int turn_rollback(const Common& c, const std::string& game, int turn, const std::string& reason) {
  auto s = open_session(c);
  if (!s.ok()) return fail(s.status());
  // Through GameAdmin: audited, and every player is told (a notice, mailed by `outbox send`
  // or the daemon).
  GameAdmin& admin = s->app->admin();
  Status st = admin.rollback(game, turn, "gm", reason);
  if (!st.ok()) return fail(st);
  std::printf(
      "Game %s: turn %d is open again; its orders are kept. Every player will be told by mail.\n",
      game.c_str(), turn);
  return kExitOk;
}

int report(const Common& c, const std::string& game, const std::string& player,
           std::optional<int> turn, const std::string& format) {
  auto s = open_session(c);
  if (!s.ok()) return fail(s.status());
  auto r = s->services->report(game, player, turn);
  if (!r.ok()) return fail(r.status());
  if (format == "json")
    std::printf("%s\n", r->json.dump(2).c_str());
  else
    std::printf("%s", r->text.c_str());
  return kExitOk;
}

int battle(const std::string& engine, const std::string& file, int trials) {
  auto doc = read_json(file);
  if (!doc.ok()) return fail(doc.status());
  auto b = prepare_battle(*doc, engine);
  if (!b.ok()) return fail(b.status());
  if (trials > 0) {
    auto odds = battle_trials(**b, trials);
    if (!odds.ok()) return fail(odds.status());
    std::printf("%s\n", odds->dump(2).c_str());
    return kExitOk;
  }
  Xoshiro256 rng((*b)->seed);
  auto out = (*b)->engine->resolve((*b)->input, rng);
  if (!out.ok()) return fail(out.status());
  std::printf("%s\n", outcome_json(**b, *out, rng.draws()).dump(2).c_str());
  return kExitOk;
}

int battle_replay(const Common& c, const std::string& game, int turn, const std::string& id) {
  auto s = open_session(c);
  if (!s.ok()) return fail(s.status());
  auto r = s->services->replay_battle(game, turn, id);
  if (!r.ok()) return fail(r.status());
  std::printf("%s\n", r->dump(2).c_str());
  std::printf("%s\n", (*r)["same"].get<bool>() ? "Replay matches the stored battle."
                                               : "Replay DIFFERS from the stored battle.");
  return (*r)["same"].get<bool>() ? kExitOk : kExitError;
}

int engines() {
  for (const auto* e : all_engines()) {
    std::printf("%-22s %s\n  %s\n", std::string(e->name()).c_str(),
                e->deterministic() ? "(deterministic)" : "(dice)",
                std::string(e->summary()).c_str());
    if (!e->order_help().empty())
      std::printf("  Orders: %s\n", std::string(e->order_help()).c_str());
    std::printf("\n");
  }
  std::printf("%-22s %s\n  %s\n", kScriptEngineName, "(a script)",
              "Combat rules a GM writes in Lua 5.4, sandboxed: the scenario's engine.script (or "
              "an upload: `adjutant engines upload`, the GM page, PUT "
              "/api/games/{id}/engine-script); check one with `adjutant engines check FILE`.");
  const auto examples = example_scripts();
  if (!examples.empty()) {
    std::printf("  Shipped examples (`adjutant engines check example:NAME`):\n");
    for (const auto& [name, text] : examples)
      std::printf("    example:%s (%zu bytes)\n", name.c_str(), text.size());
  }
  return kExitOk;
}

int backup(const Common& c, const std::string& to) {
  auto info = backup_database(c.db, to);
  if (!info.ok()) return fail(info.status());
  std::printf("Backed up %s to %s: %lld KiB, %lld pages, schema version %d, integrity ok.\n",
              database_file(c.db).c_str(), to.c_str(), static_cast<long long>(info->bytes / 1024),
              static_cast<long long>(info->pages), info->schema_version);
  std::printf("To restore: stop the daemon, then copy %s over %s.\n", to.c_str(),
              database_file(c.db).c_str());
  return kExitOk;
}

}  // namespace adj::cli

namespace adj::cli {

int serve(const Common& c, const ServeOptions& o) { return daemon::serve(c.db, o); }

}  // namespace adj::cli
