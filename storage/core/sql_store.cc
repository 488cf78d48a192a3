// SqlStore: what every area shares (storage/core/sql_store.h): the game check and the SQL each
// dialect spells its own way.
#include "storage/core/sql_store.h"

#include "storage/core/messages.h"
#include "storage/core/migration_files.h"

namespace adj {

Result<int> SqlStore::schema_version() { return adj::schema_version(session()); }

Status SqlStore::require_game_row(const std::string& game, bool lock) {
  const std::string sql =
      "SELECT 1 FROM games WHERE id = ?" + std::string(lock ? session().lock_rows() : "");
  return game_rows(game, sql, {game}).status();
}

Result<sql::Rows> SqlStore::game_rows(const std::string& game, std::string_view sql,
                                      std::initializer_list<sql::Param> params) {
  ADJ_TRY(sql::Rows r, session().query(sql, params));
  if (r.empty()) return Status::NotFound(no_such_game(game));
  return r;
}

Result<std::shared_ptr<const RevisionMap>> read_revisions(sql::Session& s) {
  ADJ_TRY(const sql::Rows r, s.query("SELECT scope, rev FROM revisions", {}));
  auto map = std::make_shared<RevisionMap>();
  std::int64_t site = 0;
  for (int i = 0; i < r.size(); ++i) {
    (*map)[r.text(i, 0)] = r.int64(i, 1);
    site += r.int64(i, 1);
  }
  (*map)["*"] = site;
  return std::shared_ptr<const RevisionMap>(std::move(map));
}

std::string SqlStore::games_small_columns(std::string_view alias) {
  std::string out = "games";
  if (!alias.empty()) out += " " + std::string(alias);
  // SQLite: not through the row and its scenario (migration 0014).
  if (session().dialect() == sql::Dialect::kSqlite) out += " INDEXED BY games_small_columns";
  return out;
}

std::string SqlStore::json_member(std::string_view column, std::string_view key) {
  if (session().dialect() == sql::Dialect::kSqlite)
    return "json_extract(" + std::string(column) + ", '$." + std::string(key) + "')";
  return "nullif(" + std::string(column) + "::jsonb -> '" + std::string(key) +
         "', 'null'::jsonb)::text";
}

}  // namespace adj
