// A generated world as the GM desk and the API ask for one (docs/worlds.md): the request's
// fields checked and turned into the scenario document of rules/world/world_generator.h.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "rules/core/status.h"
#include "rules/world/world_generator.h"

namespace adj {

// `request`: {"engine", "players", "areas_per_player", "seed", "seas", "for_signups", "id",
// "name"}, every field optional (engine "dark-age", 6 players, 5 areas each, a fresh random seed,
// the engine's seas). A seed is a whole number or its decimal text. The scenario of the world, its
// figures in *fairness; InvalidArgument naming the field ("/players: must be from 2 to 500 (got
// 1)") otherwise. With for_signups, `players` is the most that can sign up.
Result<nlohmann::json> world_from_request(const nlohmann::json& request,
                                          world::WorldFairness* fairness = nullptr);

}  // namespace adj
