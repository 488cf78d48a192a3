#include "rules/combat/combat_engine.h"

#include <algorithm>

#include <cctype>

namespace adj {

const char* to_string(AttackKind kind) {
  switch (kind) {
    case AttackKind::kMove:
      return "move";
    case AttackKind::kAssault:
      return "assault";
    case AttackKind::kProbe:
      return "probe";
    case AttackKind::kOverrun:
      return "overrun";
  }
  return "move";
}

std::optional<AttackKind> attack_kind_from_string(std::string_view s) {
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (AttackKind k :
       {AttackKind::kMove, AttackKind::kAssault, AttackKind::kProbe, AttackKind::kOverrun})
    if (lower == to_string(k)) return k;
  return std::nullopt;
}

AttackKind attack_kind_of(Verb verb) {
  switch (verb) {
    case Verb::kAssault:
      return AttackKind::kAssault;
    case Verb::kProbe:
      return AttackKind::kProbe;
    case Verb::kOverrun:
      return AttackKind::kOverrun;
    default:
      return AttackKind::kMove;
  }
}

Status CombatEngine::check_game(const GameState&) const { return Status::Ok(); }

Status CombatEngine::check_order(const Order& order, const GameState&) const {
  if (!order.extras.empty())
    return Status::InvalidArgument(order.extras.begin()->first +
                                   " is not part of the orders of this game's rules (" +
                                   std::string(name()) + ")");
  return Status::Ok();
}

bool CombatEngine::retreat_triggers(const BattleInput& in) const {
  // Dark Age 3.11: the attackers outnumber the defending armies and the defence level.
  const Area& t = in.target();
  const RulesConfig& r = in.world->rules;
  int bonus = t.kind == AreaKind::kCity ? r.city_bonus : r.terrain_bonus_of(t.terrain);
  int level = t.armies + t.population + r.fort_weight * t.fort + bonus;
  return in.attacker_armies > t.armies && in.attacker_armies > level;
}

Json CombatEngine::detach_units(Json&, int, int) const { return Json::object(); }
Json CombatEngine::withdraw_units(Area& area, const Json&, int& n) const {
  n = area.armies;
  return detach_units(area.engine_state, area.armies, area.armies);
}
void CombatEngine::merge_units(Json&, int, const Json&, int) const {}
void CombatEngine::standing_order(const Order&, Area&, Player&) const {}
void CombatEngine::end_turn(GameState&) const {}
std::vector<AttackGroup> attack_groups(const BattleInput& in) {
  if (!in.groups.empty()) return in.groups;
  return {AttackGroup{in.attacker, in.from, in.attacker_armies, in.attacker_units, 0, 0}};
}

int take_losses(std::vector<int>& left, std::vector<int>& lost, int n) {
  int taken = 0;
  while (taken < n) {
    auto it = std::max_element(left.begin(), left.end());
    if (it == left.end() || *it == 0) break;
    --*it;
    ++lost[it - left.begin()];
    ++taken;
  }
  return taken;
}

std::string outcome_inconsistency(const BattleOutcome& out, const std::vector<AttackGroup>& groups,
                                  int defenders) {
  int sent = 0;
  for (const AttackGroup& g : groups) sent += g.armies;
  if (out.attacker_losses < 0 || out.attacker_losses > sent)
    return "attacker losses " + std::to_string(out.attacker_losses) + " of " + std::to_string(sent);
  if (out.defender_losses < 0 || out.defender_losses > defenders)
    return "defender losses " + std::to_string(out.defender_losses) + " of " +
           std::to_string(defenders);
  const std::size_t n = groups.size();
  if (!out.group_losses.empty()) {
    if (out.group_losses.size() != n) return "group_losses is not one per force";
    int sum = 0;
    for (std::size_t k = 0; k < n; ++k) {
      if (out.group_losses[k] < 0 || out.group_losses[k] > groups[k].armies)
        return "force " + std::to_string(k + 1) + " lost " + std::to_string(out.group_losses[k]) +
               " of " + std::to_string(groups[k].armies);
      sum += out.group_losses[k];
    }
    if (sum != out.attacker_losses) return "group_losses do not add up to attacker_losses";
  }
  if (!out.group_units.empty() && out.group_units.size() != n)
    return "group_units is not one per force";
  if (!out.group_retreats_to.empty() && out.group_retreats_to.size() != n)
    return "group_retreats_to is not one per force";
  if (out.advancing && *out.advancing < 0) return "advancing is negative";
  return {};
}

CombatPhaseRules CombatEngine::phase_rules(const Json&) const { return {}; }

EngineVocabulary CombatEngine::vocabulary(const Json&, const RulesConfig&) const { return {}; }

const VocabularyWord* VocabularyList::find(std::string_view word) const {
  auto it =
      std::lower_bound(words.begin(), words.end(), word,
                       [](const VocabularyWord& w, std::string_view x) { return w.word < x; });
  return it != words.end() && it->word == word ? &*it : nullptr;
}

void VocabularyList::add(const std::string& word, const std::string& effect) {
  auto it =
      std::lower_bound(words.begin(), words.end(), word,
                       [](const VocabularyWord& w, const std::string& x) { return w.word < x; });
  if (it == words.end() || it->word != word) {
    words.insert(it, VocabularyWord{word, effect});
    return;
  }
  if (effect.empty() || it->effect.find(effect) != std::string::npos) return;
  it->effect = it->effect.empty() ? effect : it->effect + "; " + effect;
}

std::string VocabularyList::joined() const {
  std::string out;
  for (const VocabularyWord& w : words) out += (out.empty() ? "" : ", ") + w.word;
  return out;
}

}  // namespace adj
