// SqlStore: what every area shares (storage/core/sql_store.h).
#include "storage/core/sql_store.h"

#include "storage/core/messages.h"

namespace adj {

Status SqlStore::require_game_row(const std::string& game, bool lock) {
  const std::string sql =
      "SELECT 1 FROM games WHERE id = ?" + std::string(lock ? session().lock_rows() : "");
  ADJ_TRY(const sql::Rows r, session().query(sql, {game}));
  if (r.empty()) return Status::NotFound(no_such_game(game));
  return Status::Ok();
}

}  // namespace adj
