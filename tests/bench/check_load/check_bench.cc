// The cost of checking and submitting ONE order file in a big game (scripts/bench-check.sh).
//
//   adjutant_check_bench setup DB PLAYERS FILE   builds the grid world (tests/support/grid_world.h)
//       of PLAYERS kingdoms as game "bench" in DB: a SQLite file (replaced) or a fresh
//       PostgreSQL database (postgresql://...), with every player's
//       order file on file for turn 1, and writes player 0's order file to FILE. Secrets are
//       hashed at libsodium's lowest Argon2id cost, so that the figures measure loading, not the
//       deliberate cost of a password hash (which each hash keeps: verify pays what hash paid).
//   adjutant_check_bench inproc DB PLAYERS REPS  opens DB as the daemon does (open_store) and
//       times Services::check_orders and submit_orders of player 0's file, REPS times each, in
//       this process: what the web and mail paths pay per file. Prints the median and the
//       process's peak RSS.
//   adjutant_check_bench reindex DB REPS         times a rollback to the open turn (which writes
//       the open-state index again) beside load_state of the same state: the index's cost.
//
// Prints figures only; asserts nothing about speed.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "server/app/open_store.h"
#include "server/app/secrets.h"
#include "server/app/services.h"
#include "tests/support/grid_world.h"

namespace {

using namespace adj;
using namespace adj::testing::grid_world;

long max_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

[[noreturn]] void die(const std::string& what, const Status& s) {
  std::fprintf(stderr, "%s: %s\n", what.c_str(), s.to_string().c_str());
  std::exit(1);
}

Services services_of(Store& s) {
  return Services(Stores{s, s, s, s, s, s}, [] { return UnixTime{1700000000}; });
}

int setup(const std::string& db, int players, const std::string& file) {
  // A PostgreSQL database (postgresql://...) must be fresh; a SQLite file is replaced.
  if (db.rfind("postgresql://", 0) != 0 && db.rfind("postgres://", 0) != 0)
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(db + ext);
  if (Status c = set_secret_hash_cost({1, 8192, 2}); !c.ok()) die("argon2 cost", c);
  auto store = open_store(db, 1700000000);
  if (!store.ok()) die("open " + db, store.status());
  Services svc = services_of(**store);
  const Size size{players};
  auto g = svc.create_game(world("bench", size), 7);
  if (!g.ok()) die("create_game", g.status());
  for (int i = 0; i < players; ++i) {
    SubmissionRecord r;
    r.game = "bench";
    r.player = player(i);
    r.turn = 1;
    r.source = "bench";
    r.raw_text = mask_player_secret(orders_for(i, "bench", size));
    r.ack = Json::object();
    r.accepted = r.current = true;
    auto id = (*store)->put_submission(r);
    if (!id.ok()) die("put_submission", id.status());
  }
  std::ofstream(file) << orders_for(0, "bench", size);
  std::printf("setup: %d players, %d areas in %s\n", players, size.areas(), db.c_str());
  return 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int inproc(const std::string& db, int players, int reps) {
  const long rss0 = max_rss_kb();
  auto store = open_store(db, 1700000000);
  if (!store.ok()) die("open " + db, store.status());
  Services svc = services_of(**store);
  const std::string text = orders_for(0, "bench", Size{players});
  std::vector<double> check_ms, submit_ms;
  std::string first_ack;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto c = svc.check_orders("bench", text);
    auto t1 = std::chrono::steady_clock::now();
    if (!c.ok()) die("check_orders", c.status());
    if (c->ack.refused || c->ack.rejected_count() != 0) {
      std::fprintf(stderr, "unexpected acknowledgement:\n%s", c->text().c_str());
      return 1;
    }
    auto s = svc.submit_orders("bench", text, "bench");
    auto t2 = std::chrono::steady_clock::now();
    if (!s.ok()) die("submit_orders", s.status());
    if (s->text() != c->text()) {
      std::fprintf(stderr, "check and submit acknowledge differently\n");
      return 1;
    }
    check_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    submit_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  std::printf("inproc players=%d check_ms=%.2f submit_ms=%.2f peak_rss_mb=%.1f (start %.1f)\n",
              players, median(check_ms), median(submit_ms), max_rss_kb() / 1024.0, rss0 / 1024.0);
  return 0;
}

// What the index costs the paths that write states: rollback to the open turn reads the stored
// state and writes its index again (storage/core/sql_store_views.cc reindex_open_state); beside it,
// reading and parsing the same state alone (load_state).
int reindex(const std::string& db, int reps) {
  auto store = open_store(db, 1700000000);
  if (!store.ok()) die("open " + db, store.status());
  std::vector<double> load_ms, rollback_ms;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto st = (*store)->load_state("bench", std::nullopt);
    auto t1 = std::chrono::steady_clock::now();
    if (!st.ok()) die("load_state", st.status());
    if (Status r = (*store)->rollback("bench", st->turn); !r.ok()) die("rollback", r);
    auto t2 = std::chrono::steady_clock::now();
    load_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    rollback_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  std::printf("reindex load_state_ms=%.1f rollback_with_reindex_ms=%.1f\n", median(load_ms),
              median(rollback_ms));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> a(argv + 1, argv + argc);
  if (a.size() == 4 && a[0] == "setup") return setup(a[1], std::atoi(a[2].c_str()), a[3]);
  if (a.size() == 3 && a[0] == "reindex")
    return reindex(a[1], std::max(1, std::atoi(a[2].c_str())));
  if (a.size() == 4 && a[0] == "inproc")
    return inproc(a[1], std::atoi(a[2].c_str()), std::max(1, std::atoi(a[3].c_str())));
  std::fprintf(stderr,
               "usage: adjutant_check_bench setup DB PLAYERS FILE\n"
               "       adjutant_check_bench inproc DB PLAYERS REPS\n"
               "       adjutant_check_bench reindex DB REPS\n");
  return 2;
}
