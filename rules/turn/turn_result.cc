#include "rules/turn/turn_result.h"

namespace adj {

Json to_json(const BattleOutcome& o) {
  Json rounds = Json::array();
  for (const auto& r : o.rounds) {
    Json j = {{"phase", r.phase},
              {"attacker_before", r.attacker_before},
              {"defender_before", r.defender_before},
              {"attacker_strength", r.attacker_strength},
              {"defender_strength", r.defender_strength},
              {"attacker_losses", r.attacker_losses},
              {"defender_losses", r.defender_losses}};
    if (!r.attacker_dice.empty()) j["attacker_dice"] = r.attacker_dice;
    if (!r.defender_dice.empty()) j["defender_dice"] = r.defender_dice;
    if (!r.detail.empty()) j["detail"] = r.detail;
    rounds.push_back(std::move(j));
  }
  Json j = {{"attacker_wins", o.attacker_wins},
            {"attacker_losses", o.attacker_losses},
            {"defender_losses", o.defender_losses},
            {"attacker_stops", o.attacker_stops},
            {"rounds", std::move(rounds)}};
  if (o.defender_retreats_to) j["defender_retreats_to"] = *o.defender_retreats_to;
  if (o.attacker_retreats_to) j["attacker_retreats_to"] = *o.attacker_retreats_to;
  if (o.fort_after) j["fort_after"] = *o.fort_after;
  if (o.advancing) j["advancing"] = *o.advancing;
  if (!o.group_losses.empty()) j["group_losses"] = o.group_losses;
  if (!o.attacker_units.empty()) j["attacker_units"] = o.attacker_units;
  if (!o.defender_units.empty()) j["defender_units"] = o.defender_units;
  if (!o.detail.empty()) j["detail"] = o.detail;
  return j;
}

Json to_json(const BattleLog& b) {
  Json draws = Json::array();
  for (const auto& d : b.draws) draws.push_back({d.bound, d.value + 1});
  Json j = {{"id", b.id},
            {"seed", std::to_string(b.seed)},
            {"engine", b.engine},
            {"kind", b.dark_age_action == DarkAgeAction::kRaid     ? "raid"
                     : b.dark_age_action == DarkAgeAction::kInvade ? "invade"
                                                                   : to_string(b.kind)},
            {"attacker", b.attacker},
            {"defender", b.defender ? Json(*b.defender) : Json(nullptr)},
            {"from", b.from},
            {"to", b.to},
            {"attacker_armies", b.attacker_armies},
            {"defender_armies", b.defender_armies},
            {"ambush", b.ambush},
            {"captured", b.captured},
            {"outcome", to_json(b.outcome)},
            {"draws", std::move(draws)}};
  if (!b.groups.empty()) {
    Json g = Json::array();
    for (const auto& x : b.groups)
      g.push_back({{"player", x.player},
                   {"from", x.from},
                   {"action", x.action},
                   {"line", x.line},
                   {"armies", x.armies},
                   {"losses", x.losses},
                   {"advanced", x.advanced},
                   {"returned_to", x.returned_to}});
    j["groups"] = std::move(g);
  }
  if (b.defender_withdrew_to) {
    j["defender_withdrew_to"] = *b.defender_withdrew_to;
    j["withdrawn_armies"] = b.withdrawn_armies;
  }
  if (b.converted_population > 0) j["converted_population"] = b.converted_population;
  return j;
}

Json to_json(const ActionResult& a) {
  // Inserted in key order at the end of the map (a turn's summary holds 160,000 of these).
  Json j(Json::value_t::object);
  Json::object_t& o = j.get_ref<Json::object_t&>();
  auto put = [&](const char* key, Json v) { o.emplace_hint(o.end(), key, std::move(v)); };
  put("action", a.action);
  if (a.battle) put("battle", *a.battle);
  put("bp_spent", a.bp_spent);
  put("line", a.line);
  put("message", a.message);
  put("ok", a.ok);
  put("player", a.player);
  put("text", a.text);
  put("verb", verb_name(a.verb));
  return j;
}

}  // namespace adj
