// The JSON forms of a big turn, one at a time (CPU time): the next state written as text and read
// back (rules/game/json_text.h, rules/game/state_reader.h), and every battle log and action of the
// turn written as text (rules/turn/turn_text.h), on the grid world of tests/support/grid_world.h
// (5 areas and 16 order lines per player), resolved once per size.
#include <map>
#include <memory>

#include <benchmark/benchmark.h>

#include "rules/combat/engine_registry.h"
#include "rules/game/scenario.h"
#include "rules/game/state_reader.h"
#include "rules/orders/validator.h"
#include "rules/turn/turn_resolver.h"
#include "rules/turn/turn_text.h"
#include "tests/support/grid_world.h"

namespace adj {
namespace {

using namespace testing::grid_world;

const TurnResult& turn(int players) {
  static std::map<int, std::unique_ptr<TurnResult>> made;
  auto& r = made[players];
  if (r) return *r;
  const Size size{players, kWidth};
  const GameState start = std::move(state_from_scenario(world("bench", size), 7)).value();
  const CombatEngine* engine = find_engine(start.engine.name);
  OrderBook book;
  for (int p = 0; p < players; ++p) {
    OrderAck ack = check_order_file(orders_for(p, "bench", size), start, engine);
    book[ack.player] = ack.orders;
  }
  r = std::make_unique<TurnResult>(std::move(resolve_turn(start, book, *engine)).value());
  return *r;
}

void BM_StateWriteText(benchmark::State& state) {
  const TurnResult& t = turn(static_cast<int>(state.range(0)));
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string out;
    json_text::state(out, t.next_state);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_StateWriteText)->Arg(10000)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

void BM_StateReadDirect(benchmark::State& state) {
  const TurnResult& t = turn(static_cast<int>(state.range(0)));
  std::string text;
  json_text::state(text, t.next_state);
  for (auto _ : state) {
    auto s = read_state_direct(text);
    if (!s) state.SkipWithError("declined");
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_StateReadDirect)->Arg(10000)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

void BM_StateToJsonTree(benchmark::State& state) {
  const TurnResult& t = turn(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    Json j = to_json(t.next_state);
    benchmark::DoNotOptimize(j);
  }
}
BENCHMARK(BM_StateToJsonTree)->Arg(10000)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

void BM_BattlesAndActionsText(benchmark::State& state) {
  const TurnResult& t = turn(static_cast<int>(state.range(0)));
  std::size_t bytes = 0;
  for (auto _ : state) {
    bytes = 0;
    std::string out;
    for (const BattleLog& b : t.battles) {
      out.clear();
      json_text::battle_log(out, b);
      bytes += out.size();
    }
    for (const ActionResult& a : t.actions) {
      out.clear();
      json_text::action(out, a);
      bytes += out.size();
    }
  }
  state.counters["battles"] = static_cast<double>(t.battles.size());
  state.counters["MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_BattlesAndActionsText)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

}  // namespace
}  // namespace adj
