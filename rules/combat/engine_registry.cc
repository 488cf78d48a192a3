#include "rules/combat/engine_registry.h"

#include "rules/combat/dark_age_engine.h"

namespace adj {

const std::vector<const CombatEngine*>& all_engines() {
  static const DarkAgeEngine dark_age;
  static const std::vector<const CombatEngine*> engines = {&dark_age};
  return engines;
}

const CombatEngine* find_engine(std::string_view name) {
  for (const CombatEngine* e : all_engines())
    if (e->name() == name) return e;
  return nullptr;
}

}  // namespace adj
