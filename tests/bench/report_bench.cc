// The reports phase of a big turn on one thread (CPU time), the plain way (a tree per report:
// build_report, add_rejected_lines, render_report_text, dump) against the shared-battle way of a
// committed run (report_battle once per battle, render_report per player): same bytes, less
// work. The grid world's turn (tests/support/grid_world.h) is resolved once per size.
#include <map>
#include <memory>

#include <benchmark/benchmark.h>

#include "rules/combat/engine_registry.h"
#include "rules/game/scenario.h"
#include "rules/orders/validator.h"
#include "rules/report/report_shared.h"
#include "rules/turn/turn_resolver.h"
#include "tests/support/grid_world.h"

namespace adj {
namespace {

using namespace testing::grid_world;

struct Resolved {
  GameState start;
  TurnResult result;
  std::map<std::string, std::vector<LineResult>> lines;
};

const Resolved& resolved(int players) {
  static std::map<int, std::unique_ptr<Resolved>> made;
  auto& r = made[players];
  if (r) return *r;
  r = std::make_unique<Resolved>();
  const Size size{players, kWidth};
  r->start = std::move(state_from_scenario(world("bench", size), 7)).value();
  const CombatEngine* engine = find_engine(r->start.engine.name);
  OrderBook book;
  for (int p = 0; p < players; ++p) {
    OrderAck ack = check_order_file(orders_for(p, "bench", size), r->start, engine);
    book[ack.player] = ack.orders;
    r->lines[ack.player] = ack.lines;
  }
  r->result = std::move(resolve_turn(r->start, book, *engine)).value();
  return *r;
}

void BM_Reports_Plain(benchmark::State& state) {
  const Resolved& t = resolved(static_cast<int>(state.range(0)));
  std::size_t bytes = 0;
  for (auto _ : state) {
    const ReportIndex index(t.result);
    bytes = 0;
    for (const Player& p : t.start.players) {
      Json r = build_report(t.start, t.result, p.code, index);
      add_rejected_lines(r, t.lines.at(p.code));
      const std::string text = render_report_text(r);
      const std::string json = r.dump();
      bytes += text.size() + json.size();
    }
  }
  state.counters["report_MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_Reports_Plain)->Arg(1000)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

void BM_Reports_SharedBattles(benchmark::State& state) {
  const Resolved& t = resolved(static_cast<int>(state.range(0)));
  std::size_t bytes = 0;
  for (auto _ : state) {
    const ReportIndex index(t.result);
    std::vector<ReportBattle> battles;
    battles.reserve(t.result.battles.size());
    for (const BattleLog& b : t.result.battles)
      battles.push_back(report_battle(b, t.result.next_state));
    bytes = 0;
    for (const Player& p : t.start.players) {
      const RenderedReport r =
          render_report(t.start, t.result, p.code, index, battles, &t.lines.at(p.code));
      bytes += r.text.size() + r.json_text.size();
    }
  }
  state.counters["report_MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_Reports_SharedBattles)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

}  // namespace
}  // namespace adj
