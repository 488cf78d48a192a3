#include "rules/turn/economy.h"

#include <algorithm>

#include "rules/game/victory.h"

namespace adj {

bool blockaded(const GameState& state, const Area& city) {
  if (city.kind != AreaKind::kCity || city.hinterland.empty()) return false;
  const Area* h = state.find_area(city.hinterland);
  if (!h || !h->owner || h->owner == city.owner) return false;
  return 2 * h->armies > city.population + city.armies;
}

void apply_end_of_turn(GameState& state, std::map<std::string, Economy>& economy) {
  const RulesConfig& rules = state.rules;
  for (Player& p : state.players) {
    Economy& e = economy[p.code];
    e.leftover = p.bp;
    if (rules.leftover_bp_bids) e.bid += p.bp;
    if (rules.leftover_bp_to_treasury) p.treasury += p.bp;
    p.bp = 0;
  }
  std::map<std::string, int> income, armies;
  for (const Area& a : state.areas) {
    if (!a.owner) continue;
    armies[*a.owner] += a.armies;
    if (a.kind == AreaKind::kCity && blockaded(state, a)) continue;
    income[*a.owner] += a.population;
    if (a.kind == AreaKind::kCity && a.trade > 0) {
      const int t = std::min(a.population, a.trade);
      if (Player* owner = state.find_player(*a.owner)) {
        owner->treasury += t;
        economy[owner->code].trade += t;
      }
      if (const Area* h = state.find_area(a.hinterland); h && h->owner)
        if (Player* ho = state.find_player(*h->owner)) {
          ho->treasury += t;
          economy[ho->code].trade += t;
        }
    }
  }
  // Victory points as the standings count them (rules/game/victory.h: kingdom_vp).
  std::map<std::string, int> area_vps;
  for (const Area& a : state.areas)
    if (a.owner)
      if (const int v = area_vp(a)) area_vps[*a.owner] += v;
  for (Player& p : state.players) {
    Economy& e = economy[p.code];
    e.income = income[p.code];
    if (p.nation == rules.viking_nation) e.income += state.turn;
    e.upkeep = rules.army_upkeep * armies[p.code];
    p.bp = std::max(0, e.income - e.upkeep);
    e.bp_next = p.bp;
    e.treasury = p.treasury;
    e.vp = p.vp + area_vps[p.code];
    e.reserve = p.reserve;
  }
}

}  // namespace adj
