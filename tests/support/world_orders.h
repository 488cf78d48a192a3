// Order files for generated worlds (rules/world/world_generator.h), shared by the world tests and
// the host benchmark: every player attacks, so a turn has battles for everyone.
#pragma once

#include <string>

#include "rules/game/state.h"

namespace adj::testing {

// Up to six attacks from each held land area with two armies or more into a neighbour the
// player does not hold, in the bundled order files' style (ASSAULT with AB-n, MOVE and PROBE with
// counts); Path of War's side mountains are not crossed. The PLAYER line's secret is "any":
// callers check the file with an authenticator that accepts it, or store it as accepted.
inline std::string attack_orders(const GameState& s, const Player& p) {
  std::string text = "GAME " + s.game_id + "\nPLAYER " + p.code + " any\n";
  const char* forms[] = {"ASSAULT {f} {t} AB-1", "MOVE {f} {t} 1", "PROBE {f} {t} 1"};
  int n = 0;
  for (const Area& a : s.areas) {
    if (n >= 6 || a.owner != p.code || a.kind != AreaKind::kLand || a.armies < 2) continue;
    for (const std::string& to : s.neighbours(a.code)) {
      const Area* t = s.find_area(to);
      if (!t || t->kind == AreaKind::kSea || t->owner == p.code) continue;
      if (s.edge_flag(a.code, to, "sidemountain")) continue;  // Path of War: impassable
      std::string line = forms[n % 3];
      line.replace(line.find("{f}"), 3, a.code);
      line.replace(line.find("{t}"), 3, to);
      text += std::to_string(++n) + ". " + line + "\n";
      break;
    }
  }
  return text;
}

}  // namespace adj::testing
