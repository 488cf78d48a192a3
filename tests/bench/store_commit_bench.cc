// The commit (begin_commit, finish) of a 10,000-player turn on each backend: 10,000 reports and
// 65,000 battles (the 6,500 battles per 1,000 players), rows of realistic size. SQLite on a
// temporary file; PostgreSQL on the database named by ADJUTANT_BENCH_PG (a libpq conninfo; the
// benchmark is skipped without it). Prints rows and bytes written.
//   ADJUTANT_BENCH_PG="host=/tmp/pg port=5432 user=adj dbname=bench" build/adjutant_bench
//   --benchmark_filter=StoreCommit
#include <cstdlib>
#include <filesystem>

#include <benchmark/benchmark.h>

#include "storage/postgres/pg_store.h"
#include "storage/sqlite/sqlite_store.h"

namespace adj {
namespace {

constexpr int kPlayers = 10'000;
constexpr int kBattles = 65'000;

GameState tiny_state(int turn) {
  GameState s;
  s.game_id = "bench";
  s.name = "bench";
  s.turn = turn;
  s.engine.name = "dark-age";
  s.normalise();
  return s;
}

TurnCommit big_commit(int turn) {
  TurnCommit c;
  c.turn = turn;
  c.seed = 42;
  c.next_state = tiny_state(turn + 1);
  c.summary = {{"digest", "x"}};
  const std::string line(72, 'r');
  for (int i = 0; i < kPlayers; ++i) {
    std::string text;
    for (int l = 0; l < 20; ++l) text += line + "\n";  // ~1.5 KB of report text
    Json j = {{"player", "P" + std::to_string(i)}, {"lines", Json::array()}};
    for (int l = 0; l < 30; ++l) j["lines"].push_back({{"n", l}, {"text", line}});  // ~3 KB
    c.reports.push_back(
        ReportRecord{"P" + std::to_string(i), turn, std::move(text), std::move(j), {}});
  }
  for (int i = 0; i < kBattles; ++i)
    c.battles.push_back(BattleRecord{
        std::to_string(turn) + "." + std::to_string(i),
        static_cast<std::uint64_t>(i) * 7919,
        "dark-age",
        {{"attackers", {{"P1", 3}}}, {"defenders", {{"P2", 2}}}, {"area", "A" + std::to_string(i)}},
        {{"winner", "defender"}, {"dice", {6, 1, 3, 4, 2}}, {"losses", {{"P1", 2}, {"P2", 1}}}},
        {},
        {}});
  return c;
}

void run(benchmark::State& state, Store& store) {
  const GameState first = tiny_state(1);
  if (!store.create_game(first, Json::object(), 0).ok()) {
    state.SkipWithError("create_game failed");
    return;
  }
  int turn = 1;
  for (auto _ : state) {
    state.PauseTiming();
    TurnCommit c = big_commit(turn);
    state.ResumeTiming();
    auto writer = store.begin_commit("bench", c.turn, c.submissions);
    Status s = writer.ok() ? (*writer)->finish(c) : writer.status();
    if (!s.ok()) {
      state.SkipWithError(s.to_string().c_str());
      return;
    }
    ++turn;
  }
  state.counters["rows"] = kPlayers + kBattles;
  state.counters["rows/s"] =
      benchmark::Counter(kPlayers + kBattles, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_StoreCommit_10000Players_sqlite(benchmark::State& state) {
  const std::string db = (std::filesystem::temp_directory_path() / "adj-commit-bench.db").string();
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(db + ext);
  auto store = SqliteStore::open(db);
  if (!store.ok()) return state.SkipWithError(store.status().to_string().c_str());
  run(state, **store);
}
BENCHMARK(BM_StoreCommit_10000Players_sqlite)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_StoreCommit_10000Players_postgresql(benchmark::State& state) {
  const char* conninfo = std::getenv("ADJUTANT_BENCH_PG");
  if (!conninfo || !*conninfo)
    return state.SkipWithError("set ADJUTANT_BENCH_PG to a libpq conninfo of an empty database");
  auto store = PgStore::open(conninfo);
  if (!store.ok()) return state.SkipWithError(store.status().to_string().c_str());
  if (!(*store)->connection().exec("DELETE FROM games WHERE id = 'bench'").ok())
    return state.SkipWithError("cannot clear the bench game");
  run(state, **store);
}
BENCHMARK(BM_StoreCommit_10000Players_postgresql)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace adj
