#include "rules/combat/engine_registry.h"

#include "rules/combat/crt_engine.h"
#include "rules/combat/dark_age_engine.h"
#include "rules/combat/exalted_engine.h"
#include "rules/combat/path_of_war_engine.h"
#include "rules/combat/virtuti_militari_engine.h"

namespace adj {

const std::vector<const CombatEngine*>& all_engines() {
  static const DarkAgeEngine dark_age;
  static const PathOfWarEngine path_of_war;
  static const CrtEngine crt;
  static const VirtutiMilitariEngine virtuti_militari;
  static const ExaltedEngine exalted;
  static const std::vector<const CombatEngine*> engines = {&dark_age, &path_of_war, &crt,
                                                           &virtuti_militari, &exalted};
  return engines;
}

const CombatEngine* find_engine(std::string_view name) {
  for (const CombatEngine* e : all_engines())
    if (e->name() == name) return e;
  return nullptr;
}

}  // namespace adj
