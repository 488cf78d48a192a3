// Engine-independent conformance: every registered engine against its sample battles in
// tests/data/battles/<engine-name>/*.json (battle-calculator JSON, rules/combat/local_world.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "rules/combat/engine_registry.h"
#include "rules/combat/local_world.h"
#include "rules/turn/turn_result.h"

namespace adj {
namespace {

namespace fs = std::filesystem;

struct Sample {
  std::string file;
  Json doc;
};

std::vector<Sample> samples_of(const CombatEngine& engine) {
  std::vector<Sample> out;
  const fs::path dir = fs::path(ADJ_SOURCE_DIR) / "tests/data/battles" / std::string(engine.name());
  if (!fs::is_directory(dir)) return out;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".json") {
      std::ifstream in(entry.path());
      out.push_back({entry.path().filename().string(), Json::parse(in)});
    }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.file < b.file; });
  return out;
}

struct BattleRun {
  Json outcome;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> draws;
  BattleOutcome raw;
};

BattleRun run_battle(const PreparedBattle& b, Seed seed) {
  Xoshiro256 rng(seed);
  Result<BattleOutcome> out = b.engine->resolve(b.input, rng);
  EXPECT_TRUE(out.ok()) << out.status().message();
  BattleRun r;
  if (!out.ok()) return r;
  r.raw = out.value();
  r.outcome = to_json(out.value());
  for (const Draw& d : rng.draws()) r.draws.emplace_back(d.bound, d.value);
  return r;
}

// The same document with every list given in reverse order (and each edge written backwards).
Json reversed(Json doc) {
  for (const char* key : {"areas", "players", "adjacency"})
    if (doc.contains(key) && doc[key].is_array()) std::reverse(doc[key].begin(), doc[key].end());
  if (doc.contains("adjacency"))
    for (auto& e : doc["adjacency"])
      if (e.is_array() && e.size() >= 2) std::swap(e[0], e[1]);
  return doc;
}

std::unique_ptr<PreparedBattle> prepare(const Json& doc, const CombatEngine& engine,
                                        const std::string& file) {
  auto b = prepare_battle(doc, engine.name());
  EXPECT_TRUE(b.ok()) << file << ": " << b.status().message();
  return b.ok() ? std::move(b).value() : nullptr;
}

class ConformanceTest : public ::testing::TestWithParam<const CombatEngine*> {};

TEST_P(ConformanceTest, HasSampleBattles) {
  const CombatEngine& e = *GetParam();
  EXPECT_FALSE(samples_of(e).empty())
      << "engine \"" << e.name() << "\" has no sample battles: add calculator JSON files to "
      << "tests/data/battles/" << e.name() << "/";
}

TEST_P(ConformanceTest, SameSeedSameOutcomeAndDraws) {
  const CombatEngine& e = *GetParam();
  for (const Sample& s : samples_of(e)) {
    auto b = prepare(s.doc, e, s.file);
    if (!b) continue;
    for (Seed seed : {b->seed, Seed{1}, Seed{0xfeedULL}}) {
      const BattleRun r1 = run_battle(*b, seed), r2 = run_battle(*b, seed);
      EXPECT_EQ(r1.outcome, r2.outcome) << s.file << " seed " << seed;
      EXPECT_EQ(r1.draws, r2.draws) << s.file << " seed " << seed;
    }
  }
}

TEST_P(ConformanceTest, LossesAreWithinTheForces) {
  const CombatEngine& e = *GetParam();
  for (const Sample& s : samples_of(e)) {
    auto b = prepare(s.doc, e, s.file);
    if (!b) continue;
    const int attackers = b->input.attacker_armies;
    const int defenders = b->input.target().armies;
    for (Seed seed = 1; seed <= 200; ++seed) {
      const BattleOutcome o = run_battle(*b, derive_seed(seed, "conformance")).raw;
      EXPECT_GE(o.attacker_losses, 0) << s.file;
      EXPECT_LE(o.attacker_losses, attackers) << s.file;
      EXPECT_GE(o.defender_losses, 0) << s.file;
      EXPECT_LE(o.defender_losses, defenders) << s.file;
      if (o.attacker_wins) {
        EXPECT_LT(o.attacker_losses, attackers) << s.file << ": a winner needs survivors";
        EXPECT_TRUE(o.defender_losses == defenders || o.defender_retreats_to) << s.file;
      }
      for (const BattleRound& r : o.rounds) {
        EXPECT_GE(r.attacker_losses, 0) << s.file;
        EXPECT_GE(r.defender_losses, 0) << s.file;
        EXPECT_LE(r.attacker_losses, r.attacker_before) << s.file;
        EXPECT_LE(r.defender_losses, r.defender_before) << s.file;
      }
    }
  }
}

// Per-force results (combined attacks): when an engine gives them, one per force, adding up.
TEST_P(ConformanceTest, ForceResultsAddUp) {
  const CombatEngine& e = *GetParam();
  for (const Sample& s : samples_of(e)) {
    auto b = prepare(s.doc, e, s.file);
    if (!b) continue;
    const std::vector<AttackGroup> groups = attack_groups(b->input);
    for (Seed seed = 1; seed <= 50; ++seed) {
      const BattleOutcome o = run_battle(*b, derive_seed(seed, "forces")).raw;
      const int survivors = b->input.attacker_armies - o.attacker_losses;
      if (o.advancing) {
        EXPECT_GE(*o.advancing, 0) << s.file;
        EXPECT_LE(*o.advancing, survivors) << s.file;
      }
      if (!o.group_losses.empty()) {
        ASSERT_EQ(o.group_losses.size(), groups.size()) << s.file;
        int sum = 0;
        for (std::size_t k = 0; k < groups.size(); ++k) {
          EXPECT_GE(o.group_losses[k], 0) << s.file;
          EXPECT_LE(o.group_losses[k], groups[k].armies) << s.file;
          sum += o.group_losses[k];
        }
        EXPECT_EQ(sum, o.attacker_losses) << s.file;
      }
      if (!o.group_units.empty()) {
        EXPECT_EQ(o.group_units.size(), groups.size()) << s.file;
      }
      if (!o.group_retreats_to.empty()) {
        EXPECT_EQ(o.group_retreats_to.size(), groups.size()) << s.file;
      }
    }
  }
}

TEST_P(ConformanceTest, OutcomeIndependentOfInputOrder) {
  const CombatEngine& e = *GetParam();
  for (const Sample& s : samples_of(e)) {
    auto b1 = prepare(s.doc, e, s.file);
    auto b2 = prepare(reversed(s.doc), e, s.file);
    if (!b1 || !b2) continue;
    for (Seed seed = 1; seed <= 20; ++seed) {
      const BattleRun r1 = run_battle(*b1, seed), r2 = run_battle(*b2, seed);
      EXPECT_EQ(r1.outcome, r2.outcome) << s.file << " seed " << seed;
      EXPECT_EQ(r1.draws, r2.draws) << s.file << " seed " << seed;
    }
  }
}

TEST_P(ConformanceTest, DeterministicEngineNeverDraws) {
  const CombatEngine& e = *GetParam();
  if (!e.deterministic()) GTEST_SKIP() << e.name() << " rolls dice";
  for (const Sample& s : samples_of(e)) {
    auto b = prepare(s.doc, e, s.file);
    if (!b) continue;
    Xoshiro256 rng(b->seed);
    ASSERT_TRUE(e.resolve(b->input, rng).ok());
    EXPECT_EQ(rng.draw_count(), 0u) << s.file;
  }
}

TEST_P(ConformanceTest, DescribesItself) {
  const CombatEngine& e = *GetParam();
  EXPECT_FALSE(e.summary().empty());
  EXPECT_EQ(find_engine(e.name()), &e);
}

std::string engine_test_name(const ::testing::TestParamInfo<const CombatEngine*>& info) {
  std::string n(info.param->name());
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(AllEngines, ConformanceTest, ::testing::ValuesIn(all_engines()),
                         engine_test_name);

}  // namespace
}  // namespace adj
