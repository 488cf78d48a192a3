#include "rules/combat/conformance.h"

#include <algorithm>

#include "rules/combat/engine_registry.h"
#include "rules/combat/local_world.h"
#include "rules/combat/script_engine.h"
#include "rules/turn/turn_result.h"

namespace adj {

namespace {

int pick(Rng& rng, int lo, int hi) {  // lo..hi inclusive
  return lo + static_cast<int>(rng.uniform(static_cast<std::uint32_t>(hi - lo + 1)));
}
bool chance(Rng& rng, int percent) { return static_cast<int>(rng.uniform(100)) < percent; }

const char* const kTerrains[] = {"lowlands", "uplands", "forest", "wetlands", "mountains"};

Json random_area(Rng& rng, const std::string& code, const std::string& owner, int armies) {
  Json a = {{"code", code},
            {"name", code},
            {"owner", owner},
            {"armies", armies},
            {"terrain", kTerrains[rng.uniform(5)]},
            {"population", pick(rng, 0, 4)},
            {"fort", chance(rng, 30) ? pick(rng, 1, 3) : 0}};
  return a;
}

struct Run {
  Json outcome;
  std::vector<Draw> draws;
  BattleOutcome raw;
  Status status;
};

Run run(const CombatEngine& e, const PreparedBattle& b, Seed seed) {
  Xoshiro256 rng(seed);
  Result<BattleOutcome> out = e.resolve(b.input, rng);
  Run r;
  if (!out.ok()) {
    r.status = out.status();
    return r;
  }
  r.raw = std::move(out).value();
  r.outcome = to_json(r.raw);
  r.draws = rng.draws();
  return r;
}

bool same_draws(const std::vector<Draw>& a, const std::vector<Draw>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].bound != b[i].bound || a[i].value != b[i].value) return false;
  return true;
}

Json reversed(Json doc) {
  for (const char* key : {"areas", "players", "adjacency"})
    if (doc.contains(key) && doc[key].is_array()) std::reverse(doc[key].begin(), doc[key].end());
  if (doc.contains("adjacency"))
    for (auto& e : doc["adjacency"])
      if (e.is_array() && e.size() >= 2) std::swap(e[0], e[1]);
  return doc;
}

// Prepares `doc` for `engine`: a registered engine by its name; any other (a script) on the
// document's world with the engine's own check_game.
Result<std::unique_ptr<PreparedBattle>> prepare_for(const CombatEngine& engine, const Json& doc) {
  if (find_engine(engine.name()) == &engine) return prepare_battle(doc, engine.name());
  Json plain = doc;
  Json options = Json::object();
  if (plain.contains("engine") && plain["engine"].is_object() &&
      plain["engine"].contains("options"))
    options = plain["engine"]["options"];
  if (plain.contains("options")) options = plain["options"];
  plain.erase("options");
  plain["engine"] = "dark-age";
  auto b = prepare_battle(plain, "dark-age");
  if (!b.ok()) return b;
  (*b)->world->engine = {std::string(engine.name()), options};
  (*b)->engine = &engine;
  ADJ_RETURN_IF_ERROR(engine.check_game(*(*b)->world));
  return b;
}

class Checker {
 public:
  explicit Checker(std::string name) { c_.name = std::move(name); }
  void pass() { ++c_.runs; }
  // Keeps the first five messages, and up to twelve when the problem is of another kind.
  void fail(const std::string& where, const std::string& problem) {
    ++c_.runs;
    ++c_.failures;
    const std::string head = problem.substr(0, 40);
    bool seen = false;
    for (const auto& h : heads_) seen = seen || h == head;
    if (c_.messages.size() < 5 || (!seen && c_.messages.size() < 12)) {
      c_.messages.push_back(where + ": " + problem);
      heads_.push_back(head);
    }
  }
  void check(bool ok, const std::string& where, const std::string& problem) {
    ok ? pass() : fail(where, problem);
  }
  ConformanceCheck take() { return std::move(c_); }

 private:
  ConformanceCheck c_;
  std::vector<std::string> heads_;
};

// Why `o` breaks the force rules for battle `b`; "" when it does not.
std::string force_problem(const BattleOutcome& o, const PreparedBattle& b) {
  const int attackers = b.input.attacker_armies;
  const int defenders = b.input.target().armies;
  std::string bad = outcome_inconsistency(o, attack_groups(b.input), defenders);
  if (!bad.empty()) return bad;
  if (o.attacker_wins && o.attacker_losses >= attackers) return "a winner without survivors";
  if (o.attacker_wins && o.defender_losses < defenders && !o.defender_retreats_to)
    return "the attacker wins with defenders left";
  if (o.advancing && *o.advancing > attackers - o.attacker_losses)
    return "more advance than survive";
  for (std::size_t i = 0; i < o.rounds.size(); ++i) {
    const BattleRound& r = o.rounds[i];
    if (r.attacker_losses < 0 || r.attacker_losses > r.attacker_before || r.defender_losses < 0 ||
        r.defender_losses > r.defender_before)
      return "round " + std::to_string(i + 1) + " losses out of range";
  }
  return {};
}

}  // namespace

Json random_battle(Rng& rng, bool vary_rules) {
  static const char* const kKinds[] = {"move", "assault", "probe", "overrun"};
  static const char* const kModes[] = {"retreat", "defend", "ambush"};
  const std::string kind = kKinds[rng.uniform(4)];
  const int size = pick(rng, 0, 9);  // 0-6 small, 7-8 medium, 9 large
  auto armies = [&](int lo) {
    return size < 7 ? pick(rng, lo, 12) : size < 9 ? pick(rng, lo, 60) : pick(rng, lo, 400);
  };
  const int groups = chance(rng, 25) ? pick(rng, 2, 3) : 1;
  Json areas = Json::array(), adjacency = Json::array(), group_docs = Json::array();
  Json target = random_area(rng, "TGT", "DEF", armies(0));
  if (chance(rng, 15)) {
    target["kind"] = "city";
    target["trade"] = pick(rng, 0, 3);
  }
  const std::string mode = kModes[rng.uniform(3)];
  target["mode"] = mode;
  const bool ambush = mode == "ambush" || chance(rng, 10);
  if (mode == "ambush") target["ambush_against"] = "ATT";
  int total = 0;
  for (int g = 0; g < groups; ++g) {
    const std::string code = g == 0 ? "ATT" : "AT" + std::to_string(g + 1);
    const std::string player = g == 0 || chance(rng, 50) ? "ATT" : "ALY";
    const int n = armies(1);
    total += n;
    areas.push_back(random_area(rng, code, player, pick(rng, 0, 3)));
    Json edge = Json::array({code, "TGT"});
    if (chance(rng, 25)) edge.push_back({{"river", true}});
    adjacency.push_back(edge);
    group_docs.push_back({{"player", player}, {"from", code}, {"armies", n}});
  }
  // Areas behind the target (retreat room) and beside it.
  for (int r = 0; r < pick(rng, 0, 2); ++r) {
    const std::string code = "R" + std::to_string(r + 1);
    areas.push_back(random_area(rng, code, "DEF", 0));
    adjacency.push_back(Json::array({"TGT", code}));
  }
  if (mode == "retreat" && areas.back()["code"] != "ATT" &&
      areas.back()["code"].get<std::string>()[0] == 'R')
    target["retreat_to"] = areas.back()["code"];
  areas.push_back(target);
  Json doc = {{"kind", kind},
              {"to", "TGT"},
              {"attacker", {{"player", "ATT"}, {"from", "ATT"}, {"armies", total}}},
              {"areas", areas},
              {"adjacency", adjacency},
              {"players", Json::array({{{"code", "ATT"}}, {{"code", "DEF"}}, {{"code", "ALY"}}})},
              {"order_of_play", Json::array({"ATT", "ALY", "DEF"})},
              {"ambush", ambush},
              {"groups", group_docs},
              {"seed", std::to_string(rng.uniform(1u << 30))}};
  if (vary_rules) {
    Json rules = Json::object();
    if (chance(rng, 50))
      rules["terrain_bonus"] = {{"lowlands", pick(rng, 0, 2)},
                                {"uplands", pick(rng, 0, 2)},
                                {"forest", pick(rng, 0, 3)},
                                {"wetlands", pick(rng, 0, 3)},
                                {"mountains", pick(rng, 0, 4)}};
    if (chance(rng, 30)) rules["city_bonus"] = pick(rng, 0, 6);
    if (chance(rng, 30)) rules["fort_weight"] = pick(rng, 0, 3);
    if (chance(rng, 30)) rules["ambush_multiplier"] = pick(rng, 1, 4);
    if (chance(rng, 30)) rules["max_assault_rounds"] = pick(rng, 1, 5);
    if (!rules.empty()) doc["rules"] = rules;
  }
  return doc;
}

std::vector<Json> conformance_battles(int count, Seed seed) {
  Xoshiro256 rng(derive_seed(seed, "conformance"));
  std::vector<Json> out;
  for (int i = 0; i < count; ++i) {
    Json doc = random_battle(rng, i % 3 == 0);
    // Every kind, whatever the draws.
    static const char* const kKinds[] = {"move", "assault", "probe", "overrun"};
    if (i < 4) doc["kind"] = kKinds[i];
    doc["id"] = "generated-" + std::to_string(i + 1);
    out.push_back(std::move(doc));
  }
  return out;
}

bool ConformanceReport::ok() const {
  for (const auto& c : checks)
    if (c.failures > 0) return false;
  return !checks.empty();
}

std::string ConformanceReport::to_text() const {
  std::string s = "conformance of engine \"" + engine + "\" on " + std::to_string(battles) +
                  " battles: " + (ok() ? "PASS" : "FAIL") + "\n";
  for (const auto& c : checks) {
    if (c.failures == 0) {
      s += "  PASS " + c.name + " (" + std::to_string(c.runs) + " runs)\n";
      continue;
    }
    s += "  FAIL " + c.name + ": " + std::to_string(c.failures) + " of " + std::to_string(c.runs) +
         " runs\n";
    for (const auto& m : c.messages) s += "       " + m + "\n";
  }
  return s;
}

ConformanceReport run_conformance(const CombatEngine& engine, const std::vector<Json>& samples,
                                  bool generated) {
  struct Doc {
    std::string label;
    Json doc;
  };
  std::vector<Doc> docs;
  if (generated) {
    std::vector<Json> g = conformance_battles();
    for (std::size_t i = 0; i < g.size(); ++i)
      docs.push_back({"generated battle " + std::to_string(i + 1), std::move(g[i])});
  }
  for (std::size_t i = 0; i < samples.size(); ++i)
    docs.push_back({samples[i].value("id", "sample " + std::to_string(i + 1)), samples[i]});

  ConformanceReport report;
  report.engine = std::string(engine.name());
  report.battles = static_cast<int>(docs.size());
  Checker prepared("the battle prepares (check_game accepts its world)");
  Checker resolves("resolve succeeds (no script error, no broken limit)");
  Checker same("same seed, same outcome and draws");
  Checker forces("losses within the forces, a winner has survivors, per-force results add up");
  Checker order("outcome independent of the order of areas, players and borders");
  Checker no_draws("a deterministic engine never draws");
  // A script's check is bounded in total, not only per call: its calls share the upload check's
  // budget (ScriptLimits::check_instructions), and it stops at the first battle that breaks a
  // limit (a script that loops would otherwise run every battle to its per-call limit).
  ScriptRunBudget budget(ScriptRun::kUploadCheck);
  std::string stopped;
  const auto out_of_budget = [&](const std::string& where) {
    if (!budget.exhausted) return false;
    stopped = "the upload check's budget of script instructions ran out (at " + where +
              "): the script is too slow to check";
    return true;
  };
  for (const Doc& d : docs) {
    if (!stopped.empty() || out_of_budget(d.label)) break;
    auto b = prepare_for(engine, d.doc);
    if (!b.ok()) {
      prepared.fail(d.label, b.status().message());
      continue;
    }
    prepared.pass();
    auto b_rev = prepare_for(engine, reversed(d.doc));
    const PreparedBattle& pb = **b;
    for (Seed k = 0; k < 6; ++k) {
      const Seed seed = k == 0 ? pb.seed : derive_seed(k, "conformance:" + d.label);
      const std::string at = d.label + " seed " + std::to_string(seed);
      if (out_of_budget(at)) break;
      const Run r1 = run(engine, pb, seed);
      if (!r1.status.ok()) {
        resolves.fail(at, r1.status.message());
        // A broken limit costs the whole limit each time: one is enough to know.
        if (out_of_budget(at)) break;
        if (r1.status.message().find(" limit (") != std::string::npos) {
          stopped = "stopped at the first battle that broke a limit";
          break;
        }
        continue;
      }
      resolves.pass();
      const Run r2 = run(engine, pb, seed);
      if (out_of_budget(at)) {
        resolves.fail(at, r2.status.message());
        break;
      }
      same.check(r2.status.ok() && r1.outcome == r2.outcome && same_draws(r1.draws, r2.draws), at,
                 "a second run differs");
      const std::string problem = force_problem(r1.raw, pb);
      forces.check(problem.empty(), at, problem);
      if (engine.deterministic())
        no_draws.check(r1.draws.empty(), at,
                       "drew " + std::to_string(r1.draws.size()) + " numbers");
      if (k < 3) {
        if (!b_rev.ok()) {
          order.fail(at, "the reversed document does not prepare: " + b_rev.status().message());
        } else {
          const Run r3 = run(engine, **b_rev, seed);
          if (out_of_budget(at)) {
            resolves.fail(at, r3.status.message());
            break;
          }
          order.check(r3.status.ok() && r3.outcome == r1.outcome && same_draws(r3.draws, r1.draws),
                      at, "the reversed document gives another outcome");
        }
      }
    }
  }
  if (stopped.empty() && budget.exhausted) out_of_budget("the last battle");
  if (!stopped.empty()) resolves.fail("the suite", stopped);
  report.checks = {prepared.take(), resolves.take(), same.take(), forces.take(), order.take()};
  if (engine.deterministic()) report.checks.push_back(no_draws.take());
  return report;
}

}  // namespace adj
