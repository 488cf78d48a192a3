// The helper of scripts/bench-host.sh (Release; no Google Benchmark): a host's games.
//   adjutant_host_world make --db DB --games N [--seed S] [--min-players 7] [--max-players 30]
//                            [--orders-percent 85]
//     creates N generated worlds (rules/world/world_generator.h) of min..max players each, the
//     engines mixed (two in five Dark Age, the rest shared by the other four), every player with
//     an address, through the real Services and store; stores an accepted order file
//     (tests/support/world_orders.h: every player attacks) for orders-percent of the players;
//     gives every game a fixed schedule due in a day. Secrets are hashed at libsodium's minimum
//     cost and the schedules are written to the store directly, so no deadline notice is queued:
//     the benchmark measures the turns and their mail, not the set-up.
//   adjutant_host_world due --db DB --at UNIX
//     moves every game's deadline to UNIX (the busiest minute), straight in the store, while the
//     daemon runs.
// Prints "key value" lines for the script; exits 1 with a message on any error.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>

#include "rules/world/world_generator.h"
#include "server/app/open_store.h"
#include "server/app/secrets.h"
#include "server/app/services.h"
#include "tests/support/world_orders.h"

namespace {

using namespace adj;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "adjutant_host_world: %s\n", what.c_str());
  std::exit(1);
}

struct Options {
  std::string db;
  int games = 1000, min_players = 7, max_players = 30, orders_percent = 85;
  std::uint64_t seed = 1;
  std::int64_t at = 0;
};

// splitmix64: the games' sizes, engines and who sends orders, the same for the same seed.
std::uint64_t next(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::unique_ptr<Store> open(const std::string& db) {
  auto store = open_store(db, 0);
  if (!store.ok()) die(db + ": " + store.status().message());
  return std::move(store).value();
}

int make(const Options& o) {
  if (o.games < 1 || o.games > 100000) die("--games must be between 1 and 100000");
  if (o.min_players < world::kMinPlayers || o.max_players > world::kMaxPlayers ||
      o.min_players > o.max_players)
    die("--min-players and --max-players must make a range within 2..500");
  SecretHashCost cheap;
  cheap.opslimit = 1;
  cheap.memlimit = 8u << 10;
  if (Status s = set_secret_hash_cost(cheap); !s.ok()) die(s.message());
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<Store> store = open(o.db);
  Store& st = *store;
  Services svc(Stores{st, st, st, st, st, st}, [] { return UnixTime{std::time(nullptr)}; });
  const std::vector<std::string>& engines = world::generator_engines();  // dark-age first
  std::uint64_t rng = o.seed;
  long players = 0, files = 0;
  for (int g = 0; g < o.games; ++g) {
    world::WorldOptions w;
    const std::uint64_t pick = next(rng) % 10;
    w.engine = pick < 4 ? engines.at(0) : engines.at(1 + (pick - 4) % (engines.size() - 1));
    w.players = o.min_players + static_cast<int>(next(rng) % (o.max_players - o.min_players + 1));
    w.seed = o.seed * 100003 + static_cast<std::uint64_t>(g);
    w.id = "host-" + std::to_string(g + 1);
    auto doc = world::generate_world(w);
    if (!doc.ok()) die("generate_world: " + doc.status().message());
    for (Json& p : (*doc)["players"])
      p["email"] = p["code"].get<std::string>() + "@" + w.id + ".bench.invalid";
    auto created = svc.create_game(*doc, static_cast<Seed>(w.seed));
    if (!created.ok()) die("create_game " + w.id + ": " + created.status().message());
    auto state = svc.load_state(w.id);
    if (!state.ok()) die("load_state " + w.id + ": " + state.status().message());
    for (const Player& p : state->players) {
      ++players;
      if (static_cast<int>(next(rng) % 100) >= o.orders_percent) continue;
      SubmissionRecord r;
      r.game = w.id;
      r.player = p.code;
      r.turn = state->turn;
      r.source = "bench";
      r.raw_text = testing::attack_orders(*state, p);
      r.accepted = true;
      if (auto id = st.put_submission(r); !id.ok()) die("put_submission: " + id.status().message());
      ++files;
    }
    Schedule s;
    s.kind = "fixed";
    s.deadline = std::time(nullptr) + 86400;
    if (Status e = st.set_schedule(w.id, s); !e.ok()) die("set_schedule: " + e.message());
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("games %d\nplayers %ld\norder_files %ld\nmake_s %.1f\n", o.games, players, files,
              secs);
  return 0;
}

int due(const Options& o) {
  std::unique_ptr<Store> store = open(o.db);
  auto games = store->list_games();
  if (!games.ok()) die("list_games: " + games.status().message());
  int n = 0;
  for (const GameSummary& g : *games) {
    auto s = store->schedule(g.id);
    if (!s.ok()) die("schedule: " + s.status().message());
    s->kind = "fixed";
    s->deadline = o.at;
    if (Status e = store->set_schedule(g.id, *s); !e.ok()) die("set_schedule: " + e.message());
    ++n;
  }
  std::printf("due %d\n", n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: make|due --db DB [options]");
  const std::string cmd = argv[1];
  Options o;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    const long n = std::atol(v.c_str());
    if (k == "--db")
      o.db = v;
    else if (k == "--games")
      o.games = static_cast<int>(n);
    else if (k == "--seed")
      o.seed = static_cast<std::uint64_t>(n);
    else if (k == "--min-players")
      o.min_players = static_cast<int>(n);
    else if (k == "--max-players")
      o.max_players = static_cast<int>(n);
    else if (k == "--orders-percent")
      o.orders_percent = static_cast<int>(n);
    else if (k == "--at")
      o.at = n;
    else
      die("unknown option " + k);
  }
  if (o.db.empty()) die("--db is required");
  if (cmd == "make") return make(o);
  if (cmd == "due") return due(o);
  die("unknown command " + cmd);
}
