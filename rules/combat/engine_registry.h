// The explicit list of combat engines. Adding an engine = one line in engine_registry.cc.
#pragma once

#include <string_view>
#include <vector>

#include "rules/combat/combat_engine.h"

namespace adj {

// Null when no engine has that name. The returned engine lives for the whole program.
const CombatEngine* find_engine(std::string_view name);
// Every registered engine, in registration order.
const std::vector<const CombatEngine*>& all_engines();

}  // namespace adj
