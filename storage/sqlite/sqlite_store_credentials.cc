// SqliteStore: the one-time upgrade of databases written before migration 0005 (secrets in clear);
// the CredentialStore tables themselves are SqlStore's (storage/core/sql_store_credentials.cc).
#include <map>
#include <string>
#include <vector>

#include "rules/orders/parser.h"
#include "storage/core/codec.h"
#include "storage/sqlite/sqlite_store.h"

namespace adj {

namespace {

// Removes "secret" from every player of a state or scenario document; records the non-empty
// ones in `found` (game -> player -> secret) unless already there.
bool strip_secrets(Json& doc, const std::string& game,
                   std::map<std::string, std::map<std::string, std::string>>& found) {
  if (!doc.is_object() || !doc.contains("players") || !doc["players"].is_array()) return false;
  bool changed = false;
  for (Json& p : doc["players"]) {
    if (!p.is_object() || !p.contains("secret")) continue;
    const std::string code = p.value("code", "");
    if (p["secret"].is_string() && !p["secret"].get<std::string>().empty() && !code.empty())
      found[game].emplace(code, p["secret"].get<std::string>());
    p.erase("secret");
    changed = true;
  }
  return changed;
}

}  // namespace

Result<int> SqliteStore::upgrade_credentials(const SecretHasher& hash_secret,
                                             const TokenHasher& hash_token, UnixTime now) {
  // What the step removes is overwritten with zeros in the file, not just unlinked.
  ADJ_RETURN_IF_ERROR(db_.overwrite_freed(true));
  Result<int> out = upgrade_credentials_step(hash_secret, hash_token, now);
  Status off = db_.overwrite_freed(false);
  if (out.ok() && !off.ok()) return off;
  return out;
}

Result<int> SqliteStore::upgrade_credentials_step(const SecretHasher& hash_secret,
                                                  const TokenHasher& hash_token, UnixTime now) {
  sql::Session& s = db_;
  ADJ_TRY(auto tx, sql::WriteTx::begin(s));
  ADJ_TRY(const sql::Rows pending,
          s.query("SELECT 1 FROM pending_upgrades WHERE name = 'hash_credentials'", {}));
  if (pending.empty()) return 0;  // done before (the destructor ends the read-only transaction)
  std::map<std::string, std::map<std::string, std::string>> found;  // game -> player -> secret

  // 1. Turn states, newest turn first so a player's latest secret wins.
  {
    ADJ_TRY(const sql::Rows r, s.query("SELECT game_id, turn, state_json FROM turn_states "
                                       "ORDER BY game_id, turn DESC",
                                       {}));
    std::vector<std::string> changed;  // games whose index the updates made stale
    for (int i = 0; i < r.size(); ++i) {
      const std::string game = r.text(i, 0);
      ADJ_TRY(Json doc, json_from_text(r.text(i, 2), "state of " + game));
      if (!strip_secrets(doc, game, found)) continue;
      ADJ_TRY(std::string text, json_to_text(doc, "state of " + game));
      ADJ_RETURN_IF_ERROR(
          s.write("UPDATE turn_states SET state_json = ? WHERE game_id = ? AND turn = ?",
                  {text, game, r.int32(i, 1)}));
      if (changed.empty() || changed.back() != game) changed.push_back(game);
    }
    for (const std::string& game : changed) ADJ_RETURN_IF_ERROR(reindex_open_state(game));
  }
  // 2. The scenario copies.
  {
    ADJ_TRY(const sql::Rows r, s.query("SELECT id, scenario_json FROM games ORDER BY id", {}));
    for (int i = 0; i < r.size(); ++i) {
      const std::string game = r.text(i, 0);
      ADJ_TRY(Json doc, json_from_text(r.text(i, 1), "scenario of " + game));
      if (!strip_secrets(doc, game, found)) continue;
      ADJ_TRY(std::string text, json_to_text(doc, "scenario of " + game));
      ADJ_RETURN_IF_ERROR(s.write("UPDATE games SET scenario_json = ? WHERE id = ?", {text, game}));
    }
  }
  // 3. Hashes for players that have none yet.
  int hashed = 0;
  for (const auto& [game, players] : found) {
    for (const auto& [player, secret] : players) {
      ADJ_TRY(
          const sql::Rows seen,
          s.query("SELECT 1 FROM player_secrets WHERE game_id = ? AND player = ?", {game, player}));
      if (!seen.empty()) continue;
      ADJ_TRY(const std::string h, hash_secret(secret));
      ADJ_RETURN_IF_ERROR(
          s.write("INSERT INTO player_secrets(game_id, player, secret_hash, "
                  "changed_at) VALUES (?, ?, ?, ?)",
                  {game, player, h, std::int64_t{now}}));
      ++hashed;
    }
  }
  // 4. Link tokens in clear become hashes (the links already mailed keep working).
  {
    ADJ_TRY(const sql::Rows r, s.query("SELECT token, game_id, player FROM player_tokens", {}));
    for (int i = 0; i < r.size(); ++i)
      ADJ_RETURN_IF_ERROR(
          s.write("INSERT OR IGNORE INTO player_token_hashes(token_hash, game_id, "
                  "player, kind, created_at) VALUES (?, ?, ?, 'link', ?)",
                  {hash_token(r.text(i, 0)), r.text(i, 1), r.text(i, 2), std::int64_t{now}}));
    ADJ_RETURN_IF_ERROR(s.write("DELETE FROM player_tokens", {}));
  }
  // 5. Stored order files: the PLAYER line's secret masked.
  {
    ADJ_TRY(const sql::Rows r, s.query("SELECT id, raw_text FROM submissions", {}));
    for (int i = 0; i < r.size(); ++i) {
      const std::string raw = r.text(i, 1);
      if (std::string masked = mask_player_secret(raw); masked != raw)
        ADJ_RETURN_IF_ERROR(
            s.write("UPDATE submissions SET raw_text = ? WHERE id = ?", {masked, r.int64(i, 0)}));
    }
  }
  ADJ_RETURN_IF_ERROR(s.write("DELETE FROM pending_upgrades WHERE name = 'hash_credentials'", {}));
  ADJ_RETURN_IF_ERROR(tx.commit());
  return hashed;
}

}  // namespace adj
