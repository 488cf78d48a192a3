// Order-file parser throughput, in order-file lines per second (header and comment lines count).
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <benchmark/benchmark.h>

#include "rules/orders/parser.h"

namespace {

// A realistic turn: header, a comment, 16 numbered and unnumbered actions of every verb.
constexpr char kHeader[] =
    "GAME dark-7\n"
    "PLAYER WSX Wyvern-42q\n"
    "TURN 3\n"
    "# Wessex, turn 3: push north, hold London\n";

constexpr char kOrders[] =
    "1. LEVY LON 2\n"
    "2. MOVE LNS HRS AB-1      # keep one at home\n"
    "3. ASSAULT HRS BDS 4\n"
    "AMBUSH BDS YRK\n"
    "RETREAT BDS HRS\n"
    "6. PROBE BDS YRK\n"
    "MOVE HRS BDS\n"
    "overrun bds yrk 6\n"
    "9) DEFEND LON\n"
    "MOVE YRK NHB 3\n"
    "ASSAULT NHB CUM AB-2\n"
    "LEVY HRS\n"
    "DEFEND HRS\n"
    "MOVE LNS HRS 2\n"
    "RETREAT HRS LNS\n"
    "16. ORDER 2\n";

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// kOrders without its action numbers, so that the lines can repeat without going backwards.
std::string unnumbered_orders() {
  std::string out;
  std::string_view rest = kOrders;
  while (!rest.empty()) {
    std::string_view line = rest.substr(0, rest.find('\n') + 1);
    rest.remove_prefix(line.size());
    std::size_t i = 0;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
    if (i > 0 && (line[i] == '.' || line[i] == ')')) line.remove_prefix(i + 2);
    out += line;
  }
  return out;
}

// `block` repeated after the header to fill the largest file the parser accepts.
std::string big_file(const std::string& block) {
  std::string s = kHeader;
  while (s.size() + block.size() <= adj::kMaxOrderFileBytes) s += block;
  return s;
}

void run(benchmark::State& state, const std::string& text, int actions_per_turn) {
  const int lines = count_lines(text);
  std::int64_t total = 0;
  for (auto _ : state) {
    adj::ParsedOrderFile p = adj::parse_order_file(text, actions_per_turn);
    benchmark::DoNotOptimize(p);
    total += lines;
  }
  state.counters["lines/s"] =
      benchmark::Counter(static_cast<double>(total), benchmark::Counter::kIsRate);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(text.size()));
}

// One ordinary 20-line order file (16 actions).
void BM_ParseOrderFile_Normal(benchmark::State& state) {
  run(state, std::string(kHeader) + kOrders, 16);
}
BENCHMARK(BM_ParseOrderFile_Normal);

// ~256 KiB (~16k lines), the largest file accepted. Arg 0: the turn repeated, 16 actions allowed,
// so every line after the first turn is rejected (action numbers going back, too many actions).
// Arg 1: the turn without action numbers and no limit on actions, so every line becomes an Order.
void BM_ParseOrderFile_Big(benchmark::State& state) {
  static const std::string repeated = big_file(kOrders);
  static const std::string unlimited = big_file(unnumbered_orders());
  if (state.range(0) == 0)
    run(state, repeated, 16);
  else
    run(state, unlimited, std::numeric_limits<int>::max());
}
BENCHMARK(BM_ParseOrderFile_Big)->Arg(0)->Arg(1);

}  // namespace
