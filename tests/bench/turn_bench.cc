// A full turn of a generated world: 1,000 players x 16 actions over 5,000 areas. Measures
// resolve + reports + commit through the real services and SQLite store, and beside it a plain
// SQLite bulk insert of the same rows in the same run. Peak memory is reported as max RSS.
#include <sys/resource.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include "server/app/services.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/grid_world.h"

namespace adj {
namespace {

using namespace testing::grid_world;  // the world, its sizes and codes

long max_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024;
}

struct Prepared {
  std::string db;
  std::unique_ptr<SqliteStore> store;
  std::unique_ptr<Services> svc;
};

Prepared prepare(const Json& scenario) {
  Prepared p;
  p.db = (std::filesystem::temp_directory_path() / "adjutant-bench.db").string();
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(p.db + ext);
  p.store = std::move(SqliteStore::open(p.db)).value();
  p.svc =
      std::make_unique<Services>(Stores{*p.store, *p.store, *p.store, *p.store, *p.store, *p.store},
                                 [] { return UnixTime{0}; });
  if (!p.svc->create_game(scenario, 7).ok()) std::abort();
  for (int i = 0; i < kPlayers; ++i) {
    SubmissionRecord r;
    r.game = "bench";
    r.player = player(i);
    r.turn = 1;
    r.source = "bench";
    r.raw_text = orders_for(i);
    r.accepted = true;
    if (!p.store->put_submission(r).ok()) std::abort();
  }
  return p;
}

void BM_FullTurn_1000Players_5000Areas(benchmark::State& state) {
  static const Json scenario = world("bench");
  std::size_t battles = 0, reports = 0, bytes = 0;
  std::map<std::string, double> phases;
  for (auto _ : state) {
    state.PauseTiming();
    Prepared p = prepare(scenario);
    state.ResumeTiming();
    auto out = p.svc->run_turn("bench", false);
    if (!out.ok()) state.SkipWithError(out.status().to_string().c_str());
    state.PauseTiming();
    battles = out->result.battles.size();
    reports = out->reports.size();
    bytes = 0;
    for (const auto& r : out->reports)  // a committed run keeps the JSON as text
      bytes += r.text.size() + (r.json_text.empty() ? r.json.dump().size() : r.json_text.size());
    for (const auto& [phase, ms] : out->phase_ms) phases[phase] += ms / 3;
    state.ResumeTiming();
  }
  state.counters["battles"] = static_cast<double>(battles);
  state.counters["reports"] = static_cast<double>(reports);
  state.counters["report_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["peak_rss_MB"] = static_cast<double>(max_rss_mb());
  for (const auto& [phase, ms] : phases) state.counters[phase + "_ms"] = ms;
}
BENCHMARK(BM_FullTurn_1000Players_5000Areas)->Unit(benchmark::kMillisecond)->Iterations(3);

// The floor: the same rows (one state, the battles, the reports) written by a plain prepared
// INSERT loop in one transaction, into a bare table, with the payloads precomputed.
void BM_PlainSqliteBulkInsert_SameRows(benchmark::State& state) {
  static const Json scenario = world("bench");
  Prepared p = prepare(scenario);
  auto out = p.svc->run_turn("bench", true);  // preview: produces the rows, writes nothing
  std::vector<std::string> rows;
  rows.push_back(to_json(out->result.next_state).dump());
  for (const auto& b : out->result.battles) rows.push_back(to_json(b).dump() + b.input);
  for (const auto& r : out->reports) rows.push_back(r.text + r.json.dump());
  for (auto _ : state) {
    state.PauseTiming();
    const std::string db = p.db + ".plain";
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(db + ext);
    sqlite3* h = nullptr;
    sqlite3_open(db.c_str(), &h);
    sqlite3_exec(h,
                 "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                 "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)",
                 nullptr, nullptr, nullptr);
    state.ResumeTiming();
    sqlite3_exec(h, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(h, "INSERT INTO t(body) VALUES(?)", -1, &st, nullptr);
    for (const auto& r : rows) {
      sqlite3_bind_text(st, 1, r.data(), static_cast<int>(r.size()), SQLITE_STATIC);
      sqlite3_step(st);
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    sqlite3_exec(h, "COMMIT", nullptr, nullptr, nullptr);
    state.PauseTiming();
    sqlite3_close(h);
    state.ResumeTiming();
  }
  state.counters["rows"] = static_cast<double>(rows.size());
}
BENCHMARK(BM_PlainSqliteBulkInsert_SameRows)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace adj
