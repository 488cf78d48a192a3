// DATC-style adjudication cases (as Diplomacy judges keep): each tests/data/cases/*.json file holds
// a small world, the players' order lines and the expected state and per-order results after the
// turn. Every bug report becomes a case. Format: tests/data/cases/README.md.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "rules/combat/engine_registry.h"
#include "rules/game/scenario.h"
#include "rules/orders/validator.h"
#include "rules/report/report_shared.h"
#include "rules/turn/turn_resolver.h"

namespace adj {
namespace {

namespace fs = std::filesystem;

// "HRS land lowlands owner=WSX armies=5 pop=2 fort=1 mode=defend retreat=BDS ambush=BDS"
Json parse_area(const std::string& spec) {
  std::istringstream in(spec);
  std::string code, kind, terrain, kv;
  in >> code >> kind >> terrain;
  Json a = {{"code", code}, {"name", code}, {"kind", kind}, {"terrain", terrain}};
  while (in >> kv) {
    auto eq = kv.find('=');
    std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
    if (k == "owner")
      a["owner"] = v;
    else if (k == "armies")
      a["armies"] = std::stoi(v);
    else if (k == "pop")
      a["population"] = std::stoi(v);
    else if (k == "fort")
      a["fort"] = std::stoi(v);
    else if (k == "trade")
      a["trade"] = std::stoi(v);
    else if (k == "mode")
      a["mode"] = v;
    else if (k == "retreat")
      a["retreat_to"] = v;
    else if (k == "ambush")
      a["ambush_against"] = v;
    else if (k == "hinterland")
      a["hinterland"] = v;
    else
      ADD_FAILURE() << "unknown area key " << k;
  }
  return a;
}

Json scenario_of(const Json& c) {
  Json players = Json::array();
  for (const auto& p : c["players"]) {
    Json pj = p.is_string() ? Json{{"code", p}} : p;
    pj["name"] = pj.value("name", pj["code"].get<std::string>());
    pj["secret"] = "pw";
    if (!pj.contains("bp")) pj["bp"] = 20;
    players.push_back(pj);
  }
  Json areas = Json::array();
  for (const auto& a : c["areas"]) areas.push_back(a.is_string() ? parse_area(a) : a);
  Json adjacency = Json::array();
  if (c.contains("adjacency") && c["adjacency"].is_array()) {
    adjacency = c["adjacency"];  // the scenario form: [["A", "B", {"river": true}], ...]
  } else {
    std::istringstream in(c.value("adjacency", ""));
    for (std::string e; in >> e;) {
      auto dash = e.find('-');
      adjacency.push_back({e.substr(0, dash), e.substr(dash + 1)});
    }
  }
  Json s = {{"id", "case"},
            {"name", c["case"]},
            {"seed", c.value("seed", "1")},
            {"engine",
             {{"name", c.value("engine", "dark-age")},
              {"options", c.value("engine_options", Json::object())}}},
            {"players", players},
            {"areas", areas},
            {"adjacency", adjacency},
            {"rules", c.value("rules", Json::object())}};
  if (c.contains("order_of_play")) s["order_of_play"] = c["order_of_play"];
  return s;
}

// Every key of `want` is in `got` with an equal value (objects, and arrays element by element,
// compared recursively).
void expect_subset(const Json& got, const Json& want, const std::string& path) {
  if (want.is_array() && got.is_array()) {
    ASSERT_EQ(got.size(), want.size()) << path << ": " << got.dump();
    for (std::size_t i = 0; i < want.size(); ++i)
      expect_subset(got[i], want[i], path + "/" + std::to_string(i));
    return;
  }
  if (!want.is_object()) {
    EXPECT_EQ(got, want) << path;
    return;
  }
  ASSERT_TRUE(got.is_object()) << path << " is not an object: " << got.dump();
  for (const auto& [k, v] : want.items()) {
    ASSERT_TRUE(got.contains(k)) << path << "/" << k << " missing in " << got.dump();
    expect_subset(got[k], v, path + "/" + k);
  }
}

class CaseFiles : public ::testing::TestWithParam<std::string> {};

TEST_P(CaseFiles, Adjudicates) {
  std::ifstream f(GetParam());
  const Json c = Json::parse(f);
  SCOPED_TRACE(c.value("comment", ""));
  auto state = state_from_scenario(scenario_of(c), 1);
  ASSERT_TRUE(state.ok()) << state.status().to_string();
  const CombatEngine* engine = find_engine(state->engine.name);
  ASSERT_NE(engine, nullptr);

  OrderBook book;
  for (const auto& [player, lines] : c["orders"].items()) {
    std::string text = "GAME case\nPLAYER " + player + " pw\n";
    for (const auto& l : lines) text += l.get<std::string>() + "\n";
    OrderAck ack = check_order_file(text, *state, engine);
    ASSERT_FALSE(ack.refused) << ack.refusal;
    if (c.contains("expect") && c["expect"].contains("rejected") &&
        c["expect"]["rejected"].contains(player)) {
      const Json& want = c["expect"]["rejected"][player];
      ASSERT_EQ(ack.rejected_count(), static_cast<int>(want.size())) << render_ack_text(ack);
      std::size_t i = 0;
      for (const auto& l : ack.lines) {
        if (l.accepted) continue;
        EXPECT_NE(l.reason.find(want[i++].get<std::string>()), std::string::npos) << l.reason;
      }
    } else {
      ASSERT_EQ(ack.rejected_count(), 0) << render_ack_text(ack);
    }
    book[player] = ack.orders;
  }
  auto res = resolve_turn(*state, book, *engine);
  ASSERT_TRUE(res.ok()) << res.status().to_string();
  const GameState& next = res->next_state;
  const Json& expect = c["expect"];
  const Json next_json = to_json(next);
  const Json want_areas = expect.value("areas", Json::object());
  for (const auto& [code, want] : want_areas.items()) {
    ASSERT_NE(next.find_area(code), nullptr) << code;
    for (const auto& aj : next_json["areas"]) {
      if (aj["code"] != code) continue;
      for (const auto& [k, v] : want.items()) {
        EXPECT_EQ(aj[k], v) << code << "." << k;
      }
    }
  }
  const Json want_players = expect.value("players", Json::object());
  for (const auto& [code, want] : want_players.items()) {
    Json pj;
    for (const auto& p : next_json["players"]) {
      if (p["code"] == code) pj = p;
    }
    ASSERT_FALSE(pj.is_null()) << code;
    for (const auto& [k, v] : want.items()) {
      EXPECT_EQ(pj[k], v) << code << "." << k;
    }
  }
  const Json want_results = expect.value("results", Json::array());
  for (const auto& want : want_results) {
    bool found = false;
    for (const auto& a : res->actions) {
      if (a.player != want["player"] || a.action != want["action"]) continue;
      found = true;
      EXPECT_EQ(a.ok, want["ok"].get<bool>()) << a.player << " " << a.action << ": " << a.message;
      if (want.contains("message")) {
        EXPECT_NE(a.message.find(want["message"].get<std::string>()), std::string::npos)
            << a.message;
      }
    }
    EXPECT_TRUE(found) << "no result for " << want.dump();
  }
  if (expect.contains("next_order_of_play")) {
    EXPECT_EQ(Json(res->next_order_of_play), expect["next_order_of_play"]);
  }
  if (expect.contains("battles")) {
    EXPECT_EQ(res->battles.size(), expect["battles"].get<std::size_t>());
  }
  // "battle_logs": [{...}, ...]: each object is a subset of the battle log at that index
  // (to_json(BattleLog), e.g. {"captured": true, "outcome": {"attacker_losses": 2}}).
  const Json want_logs = expect.value("battle_logs", Json::array());
  for (std::size_t i = 0; i < want_logs.size(); ++i) {
    ASSERT_LT(i, res->battles.size()) << "no battle " << i;
    expect_subset(to_json(res->battles[i]), want_logs[i], "battle_logs/" + std::to_string(i));
  }
  // Every engine's battles as a report shows them: written from the log (report_battle) and
  // through the tree (battle_for_report, dumped and rendered), byte for byte.
  for (const BattleLog& b : res->battles) {
    const Json tree = battle_for_report(b, next);
    const ReportBattle shown = report_battle(b, next);
    EXPECT_EQ(shown.json_text, tree.dump()) << b.id;
    EXPECT_EQ(shown.text, report_detail::render_battle_text(tree)) << b.id;
  }
}

std::vector<std::string> case_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(fs::path(ADJ_SOURCE_DIR) / "tests/data/cases"))
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

INSTANTIATE_TEST_SUITE_P(Cases, CaseFiles, ::testing::ValuesIn(case_files()), [](const auto& info) {
  std::string n = fs::path(info.param).stem().string();
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
});

TEST(CaseFilesPresent, ThereAreCases) { EXPECT_GE(case_files().size(), 10u); }

}  // namespace
}  // namespace adj
