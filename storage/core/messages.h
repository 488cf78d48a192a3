// Error texts the stores return that users see as they are (CLI, API, web, mail answers).
#pragma once

#include <string>

namespace adj {

// The NotFound message for an unknown game id: what happened and where to look.
inline std::string no_such_game(const std::string& game) {
  return "there is no game " + game + " on this server (the game list shows every game's id)";
}

}  // namespace adj
