// `adjutant standings GAME [--json]`: a game's standings (final when it is over) and its victory
// conditions (server/app/ending.h).
#include <cstdio>
#include <ctime>

#include "server/app/ending.h"
#include "server/app/open_store.h"
#include "server/cli/commands.h"
#include "storage/store.h"

namespace adj::cli {

int standings(const Common& c, const std::string& game_arg, bool json) {
  auto store = open_store(c.db, static_cast<UnixTime>(std::time(nullptr)));
  if (!store.ok()) {
    std::fprintf(stderr, "error: %s\n", store.status().message().c_str());
    return kExitError;
  }
  Store& s = **store;
  const Stores stores{s, s, s, s, s, s};
  const std::string game = stored_game_id(c, game_arg);
  auto g = s.game_summary(game);
  auto st = s.load_state(game, std::nullopt);
  if (!g.ok() || !st.ok()) {
    std::fprintf(stderr, "error: %s\n", (g.ok() ? st.status() : g.status()).message().c_str());
    return kExitError;
  }
  std::optional<Ending> ending;
  if (g->status == "finished") {
    auto e = final_standings(stores, game);
    if (!e.ok()) {
      std::fprintf(stderr, "error: %s\n", e.status().message().c_str());
      return kExitError;
    }
    ending = std::move(e).value();
  }
  const VictoryConditions v = victory_of(*st);
  if (json) {
    Json table = Json::array();
    for (const Standing& row : ending ? ending->standings : rank_players(*st))
      table.push_back(to_json(row));
    Json j = {{"game", game},
              {"status", g->status},
              {"over", ending.has_value()},
              {"victory", to_json(v)},
              {"standings", table}};
    if (ending) j["ending"] = to_json(*ending);
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  if (ending) {
    std::printf("%s", standings_text(g->name, *ending).c_str());
    return kExitOk;
  }
  std::printf("Game %s goes on: turn %d is open. Standings after the turns that have run:\n\n%s",
              g->name.c_str(), g->turn, standings_table(rank_players(*st), false).c_str());
  std::printf("\nVictory conditions: %s\n", victory_text(v).c_str());
  return kExitOk;
}

}  // namespace adj::cli
