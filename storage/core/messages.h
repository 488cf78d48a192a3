// Error texts the stores return that users see as they are (CLI, API, web, mail answers).
#pragma once

#include <cstdint>
#include <string>

namespace adj {

// The NotFound message for an unknown game id: what happened and where to look.
inline std::string no_such_game(const std::string& game) {
  return "there is no game " + game + " on this server (the game list shows every game's id)";
}

// The NotFound message for an unknown inbox message id.
inline std::string inbox_not_found(std::int64_t id) {
  return "inbox message " + std::to_string(id);
}
inline std::string outbox_not_found(std::int64_t id) {
  return "outbox message " + std::to_string(id);
}

// The FailedPrecondition message of a database written by a newer schema than this binary knows.
inline std::string schema_too_new(int recorded, int known) {
  return "database schema version " + std::to_string(recorded) +
         " is newer than this binary supports (" + std::to_string(known) +
         "); use a newer adjutant or restore a backup";
}

}  // namespace adj
