// Per-battle cost of the Lua Dark Age (rules/combat/scripts/dark_age.lua) against the C++ engine
// on the same random battles (rules/combat/conformance.h random_battle, the default rules as in one
// game), of the dice example and of a resolve that only returns a constant (the fixed cost of a
// call).
// Prints nanoseconds per battle for each and the ratio. Issue 15's aim: Lua within 5x of C++.
//
// Usage: adjutant_script_bench [battles (default 2000)] [seconds per engine (default 1)]
//                              [script.lua instead of dice.lua, or -]
//                              [only: cpp|lua|script|const]
// `only` runs one engine alone (for a profiler); the others print 0.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "rules/combat/conformance.h"
#include "rules/combat/dark_age_engine.h"
#include "rules/combat/local_world.h"
#include "rules/combat/script_engine.h"
#include "schemas/embedded.h"

namespace {

using adj::PreparedBattle;

// Resolves every battle over and over for about `seconds`; returns nanoseconds per battle.
double per_battle(const adj::CombatEngine& e,
                  const std::vector<std::unique_ptr<PreparedBattle>>& battles, double seconds,
                  long& checksum) {
  // CPU time of this thread: the machine may be shared, and wall time would count the others.
  auto now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  };
  const double start = now();
  long resolved = 0;
  do {
    for (const auto& b : battles) {
      adj::Xoshiro256 rng(b->seed);
      auto out = e.resolve(b->input, rng);
      if (!out.ok()) {
        std::fprintf(stderr, "%s: %s\n", std::string(e.name()).c_str(),
                     out.status().message().c_str());
        std::exit(1);
      }
      checksum += out->attacker_losses * 3 + out->defender_losses;
      ++resolved;
    }
  } while (now() - start < seconds);
  return (now() - start) * 1e9 / static_cast<double>(resolved);
}

std::shared_ptr<const adj::CombatEngine> script(const char* file) {
  auto src = adj::embedded_file(std::string("rules/combat/scripts/") + file);
  auto e = adj::load_script_engine(src.value_or(""), {1, ""});
  if (!e.ok()) {
    std::fprintf(stderr, "%s: %s\n", file, e.status().message().c_str());
    std::exit(1);
  }
  return e.value();
}

}  // namespace

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 2000;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 1.0;
  adj::Xoshiro256 gen(adj::derive_seed(15, "script-bench"));
  std::vector<std::unique_ptr<PreparedBattle>> battles;
  for (int i = 0; i < count; ++i) {
    auto b = adj::prepare_battle(adj::random_battle(gen, false), "dark-age");
    if (!b.ok()) {
      std::fprintf(stderr, "battle %d: %s\n", i, b.status().message().c_str());
      return 1;
    }
    battles.push_back(std::move(b).value());
  }
  const adj::DarkAgeEngine cpp;
  auto lua = script("dark_age.lua");
  auto dice = script("dice.lua");
  const bool own_script = argc > 3 && std::string(argv[3]) != "-";
  if (own_script) {  // a third script from a file, e.g. to measure the fixed cost of a call
    std::ifstream f(argv[3]);
    std::stringstream text;
    text << f.rdbuf();
    auto e = adj::load_script_engine(text.str(), {1, ""});
    if (!e.ok()) {
      std::fprintf(stderr, "%s: %s\n", argv[3], e.status().message().c_str());
      return 1;
    }
    dice = e.value();
  }
  // The fixed cost of a call: a resolve that only returns a constant outcome.
  auto constant = adj::load_script_engine(
      "function resolve(battle, rng)\n"
      "  return { attacker_losses = 0, defender_losses = 0 }\n"
      "end\n",
      {1, ""});
  if (!constant.ok()) return 1;
  const std::string only = argc > 4 ? argv[4] : "";
  auto runs = [&](const char* which) { return only.empty() || only == which; };
  long c1 = 0, c2 = 0, c3 = 0, c4 = 0;  // keeps the outcomes alive for the optimiser
  const double t_cpp = runs("cpp") ? per_battle(cpp, battles, seconds, c1) : 0;
  const double t_lua = runs("lua") ? per_battle(*lua, battles, seconds, c2) : 0;
  const double t_dice = runs("script") ? per_battle(*dice, battles, seconds, c3) : 0;
  const double t_const = runs("const") ? per_battle(**constant, battles, seconds, c4) : 0;
  std::printf("battles: %d random (rules/combat/conformance.h), %.1f s CPU per engine\n", count,
              seconds);
  std::printf("C++ dark-age:      %9.0f ns/battle\n", t_cpp);
  std::printf("Lua dark_age.lua:  %9.0f ns/battle\n", t_lua);
  std::printf("Lua %-14s %9.0f ns/battle\n", own_script ? argv[3] : "dice.lua:", t_dice);
  std::printf("Lua constant resolve: %6.0f ns/battle (the fixed cost of a call)\n", t_const);
  std::printf("ratio Lua/C++ (Dark Age): %.2fx (aim: within 5x)\n", t_lua / t_cpp);
  return c1 + c2 + c3 + c4 == 42 ? 2 : 0;
}
