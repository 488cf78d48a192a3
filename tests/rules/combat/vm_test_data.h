// Test data shared by the Virtuti Militari tests (vm_engine_test.cc, vm_game_test.cc,
// vm_fleets_test.cc): the worked examples' unit data and battle, a battle fought with scripted
// dice, units by type, the bundled scenario's state and an order file's acknowledgement.
// Test-only.
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <initializer_list>
#include <string>
#include <utility>

#include "rules/combat/local_world.h"
#include "rules/combat/virtuti_militari_engine.h"
#include "rules/game/scenario.h"
#include "rules/orders/validator.h"
#include "tests/support/scripted_rng.h"

namespace adj {
namespace {

using testing::ScriptedRng;

// §3.4 numbers: Army L1 = str 3 / HP 3, Armored Corps L1 = str 4 / HP 3 (and a Fleet, str 2 /
// HP 3, for the fleet rules). One test die "t" whose face f shows f - 1 pips, so the examples'
// pips are fed as faces pips + 1.
inline Json example_data() {
  return {
      {"dice", {{"t", {0, 1, 2, 3, 4, 5}}}},
      {"units",
       {{"army", {{"levels", {{{"attack", 3}, {"defense", 3}, {"hp", 3}, {"die", "t"}}}}}},
        {"armored_corps", {{"levels", {{{"attack", 4}, {"defense", 3}, {"hp", 3}, {"die", "t"}}}}}},
        {"fleet",
         {{"naval", true},
          {"levels", {{{"attack", 2}, {"defense", 2}, {"hp", 3}, {"die", "t"}}}}}}}},
      {"default_unit", "army"},
      {"air_token", {{"strength", 1}, {"die", "t"}}}};
}

// Example 1's battle: Army + Armored Corps attack from ATT (Move +1, card str 2 with one die,
// one air token) an Army in TGT (Defense +1, fort 2, card str 3 with one die); FRN is the
// defender's adjacent friendly area.
inline Json example_battle() {
  Json card_a = {{"id", "a2"}, {"strength", 2}, {"dice", {"t"}}, {"hp", 0}};
  Json card_d = {{"id", "d3"}, {"strength", 3}, {"dice", {"t"}}, {"hp", 0}};
  return {{"engine",
           {{"name", "virtuti-militari"},
            {"options",
             {{"data", example_data()},
              {"initiative", {"Axis", "Allies"}},
              {"order_bonus", {{"move", 1}, {"defend", 1}}}}}}},
          {"kind", "move"},
          {"to", "TGT"},
          {"attacker",
           {{"player", "AXI"},
            {"from", "ATT"},
            {"armies", 2},
            {"units", {{"units", {{{"type", "army"}}, {{"type", "armored_corps"}}}}}},
            {"extras", {{"CARD", 1}, {"AIR", 1}}}}},
          {"players",
           {{{"code", "AXI"},
             {"name", "Axis"},
             {"nation", "Axis"},
             {"engine_state", {{"hand", {card_a}}, {"air", 1}}}},
            {{"code", "ALL"},
             {"name", "Allies"},
             {"nation", "Allies"},
             {"engine_state", {{"hand", {card_d}}, {"air", 0}}}}}},
          {"areas",
           {{{"code", "ATT"}, {"name", "ATT"}, {"owner", "AXI"}, {"armies", 0}},
            {{"code", "TGT"},
             {"name", "TGT"},
             {"owner", "ALL"},
             {"armies", 1},
             {"fort", 2},
             {"mode", "defend"},
             {"engine_state", {{"defence", {{"card", "d3"}}}}}},
            {{"code", "FRN"}, {"name", "FRN"}, {"owner", "ALL"}, {"armies", 0}}}},
          {"adjacency", Json::array({Json::array({"ATT", "TGT"}), Json::array({"TGT", "FRN"})})}};
}

struct Fought {
  BattleOutcome out;
  std::size_t left = 0;
};

inline Fought vm_fight(const Json& doc, std::deque<int> faces) {
  auto b = prepare_battle(doc, "");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  ScriptedRng rng(std::move(faces));
  auto out = (*b)->engine->resolve((*b)->input, rng);
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  return {*out, rng.remaining()};
}

inline const Json& unit(const Json& units, std::size_t i) { return units.at("units").at(i); }

inline GameState vm_bundled_state() {
  auto j = bundled_scenario_published("virtuti-militari-1939");
  EXPECT_TRUE(j.ok());
  auto st = state_from_scenario(*j, 7);
  EXPECT_TRUE(st.ok()) << st.status().to_string();
  return *st;
}

inline OrderAck vm_ack(const GameState& st, const std::string& player, const std::string& secret,
                       const std::string& lines) {
  const std::string text = "GAME " + st.game_id + "\nPLAYER " + player + " " + secret + "\nTURN " +
                           std::to_string(st.turn) + "\n" + lines + "END\n";
  return check_order_file(text, st, find_engine(st.engine.name));
}

inline Json units_json(std::initializer_list<const char*> types) {
  Json a = Json::array();
  for (const char* t : types) a.push_back({{"type", t}});
  return {{"units", a}};
}

}  // namespace
}  // namespace adj
