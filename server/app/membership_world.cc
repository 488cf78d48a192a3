// Membership::fit_world_to_signups: a generated world made again for the players who joined.
#include "rules/game/scenario.h"
#include "rules/world/world_generator.h"
#include "server/app/membership.h"

#include <algorithm>

namespace adj {

Status Membership::fit_world_to_signups(const std::string& game, std::size_t joining,
                                        GameState* state, const std::string& actor) {
  auto scenario = s_.games.scenario(game);
  if (!scenario.ok()) return scenario.status();
  if (!world::generated_for_signups(*scenario) || joining == 0) return Status::Ok();
  // As many as sign up, up to the most the GM offered (the world may grow back to it when an
  // earlier start fitted it smaller and failed).
  joining = std::min(joining, static_cast<std::size_t>(world::generated_max_players(*scenario)));
  if (joining == state->players.size()) return Status::Ok();
  if (joining < static_cast<std::size_t>(world::kMinPlayers))
    return Status::FailedPrecondition("a generated world needs at least " +
                                      std::to_string(world::kMinPlayers) + " players and only " +
                                      std::to_string(joining) + " signed up for " + game +
                                      "; wait for another sign-up or invite someone");
  world::WorldFairness f;
  auto doc = world::regenerate_world(*scenario, static_cast<int>(joining), &f);
  if (!doc.ok()) return doc.status();
  // The game's own seed rolls its dice, as it would have for the world made at creation.
  auto fitted = state_from_scenario(*doc, state->seed);
  if (!fitted.ok()) return fitted.status();
  fitted->seed = state->seed;
  ADJ_RETURN_IF_ERROR(s_.games.replace_opening(*fitted, *doc));
  const std::size_t before = state->players.size();
  *state = std::move(fitted).value();
  return audit(
      game, actor, "world-fitted",
      {{"players_before", before}, {"players", joining}, {"fairness", world::fairness_json(f)}});
}

}  // namespace adj
