// SqliteStore: the one-time upgrade of databases written before migration 0005 (secrets in clear);
// the CredentialStore tables themselves are SqlStore's (storage/core/sql_store_credentials.cc).
#include <array>
#include <map>
#include <set>
#include <vector>

#include "rules/orders/parser.h"
#include "storage/core/codec.h"
#include "storage/sqlite/sqlite_store.h"

namespace adj {

using sqlite::Transaction;

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
  ADJ_RETURN_IF_ERROR(db_.exec("PRAGMA secure_delete=ON"));
  Result<int> out = upgrade_credentials_step(hash_secret, hash_token, now);
  Status off = db_.exec("PRAGMA secure_delete=OFF");
  if (out.ok() && !off.ok()) return off;
  return out;
}

Result<int> SqliteStore::upgrade_credentials_step(const SecretHasher& hash_secret,
                                                  const TokenHasher& hash_token, UnixTime now) {
  ADJ_TRY(auto tx, Transaction::begin(db_));
  {
    ADJ_TRY(auto st, db_.prepare("SELECT 1 FROM pending_upgrades WHERE name = 'hash_credentials'"));
    ADJ_TRY(bool row, st.step());
    if (!row) return 0;  // done before (the destructor ends the read-only transaction)
  }
  std::map<std::string, std::map<std::string, std::string>> found;  // game -> player -> secret

  // 1. Turn states, newest turn first so a player's latest secret wins.
  {
    struct Row {
      std::string game;
      int turn;
      Json doc;
    };
    std::vector<Row> changed;
    ADJ_TRY(auto st, db_.prepare("SELECT game_id, turn, state_json FROM turn_states "
                                 "ORDER BY game_id, turn DESC"));
    for (;;) {
      ADJ_TRY(bool row, st.step());
      if (!row) break;
      Row r{st.column_text(0), st.column_int(1), Json()};
      ADJ_TRY(r.doc, json_from_text(st.column_text(2), "state of " + r.game));
      if (strip_secrets(r.doc, r.game, found)) changed.push_back(std::move(r));
    }
    for (const Row& r : changed) {
      ADJ_TRY(std::string text, json_to_text(r.doc, "state of " + r.game));
      ADJ_TRY(auto up, db_.prepare("UPDATE turn_states SET state_json = ? "
                                   "WHERE game_id = ? AND turn = ?"));
      up.bind_text(1, text).bind_text(2, r.game).bind_int(3, r.turn);
      ADJ_RETURN_IF_ERROR(up.run());
    }
    for (std::size_t i = 0; i < changed.size(); ++i)  // the updates made the indexes stale
      if (i == 0 || changed[i].game != changed[i - 1].game)
        ADJ_RETURN_IF_ERROR(reindex_open_state(changed[i].game));
  }
  // 2. The scenario copies.
  {
    std::vector<std::pair<std::string, Json>> changed;
    ADJ_TRY(auto st, db_.prepare("SELECT id, scenario_json FROM games ORDER BY id"));
    for (;;) {
      ADJ_TRY(bool row, st.step());
      if (!row) break;
      std::string game = st.column_text(0);
      ADJ_TRY(Json doc, json_from_text(st.column_text(1), "scenario of " + game));
      if (strip_secrets(doc, game, found)) changed.emplace_back(std::move(game), std::move(doc));
    }
    for (const auto& [game, doc] : changed) {
      ADJ_TRY(std::string text, json_to_text(doc, "scenario of " + game));
      ADJ_TRY(auto up, db_.prepare("UPDATE games SET scenario_json = ? WHERE id = ?"));
      up.bind_text(1, text).bind_text(2, game);
      ADJ_RETURN_IF_ERROR(up.run());
    }
  }
  // 3. Hashes for players that have none yet.
  int hashed = 0;
  for (const auto& [game, players] : found) {
    for (const auto& [player, secret] : players) {
      ADJ_TRY(auto seen, db_.prepare("SELECT 1 FROM player_secrets WHERE game_id = ? AND "
                                     "player = ?"));
      seen.bind_text(1, game).bind_text(2, player);
      ADJ_TRY(bool row, seen.step());
      if (row) continue;
      Result<std::string> h = hash_secret(secret);
      if (!h.ok()) return h.status();
      ADJ_TRY(auto ins, db_.prepare("INSERT INTO player_secrets(game_id, player, "
                                    "secret_hash, changed_at) VALUES (?, ?, ?, ?)"));
      ins.bind_text(1, game).bind_text(2, player).bind_text(3, *h).bind_int64(4, now);
      ADJ_RETURN_IF_ERROR(ins.run());
      ++hashed;
    }
  }
  // 4. Link tokens in clear become hashes (the links already mailed keep working).
  {
    std::vector<std::array<std::string, 3>> tokens;
    ADJ_TRY(auto st, db_.prepare("SELECT token, game_id, player FROM player_tokens"));
    for (;;) {
      ADJ_TRY(bool row, st.step());
      if (!row) break;
      tokens.push_back({st.column_text(0), st.column_text(1), st.column_text(2)});
    }
    for (const auto& [token, game, player] : tokens) {
      ADJ_TRY(auto ins, db_.prepare("INSERT OR IGNORE INTO player_token_hashes(token_hash, "
                                    "game_id, player, kind, created_at) "
                                    "VALUES (?, ?, ?, 'link', ?)"));
      ins.bind_text(1, hash_token(token))
          .bind_text(2, game)
          .bind_text(3, player)
          .bind_int64(4, now);
      ADJ_RETURN_IF_ERROR(ins.run());
    }
    ADJ_RETURN_IF_ERROR(db_.exec("DELETE FROM player_tokens"));
  }
  // 5. Stored order files: the PLAYER line's secret masked.
  {
    std::vector<std::pair<std::int64_t, std::string>> changed;
    ADJ_TRY(auto st, db_.prepare("SELECT id, raw_text FROM submissions"));
    for (;;) {
      ADJ_TRY(bool row, st.step());
      if (!row) break;
      std::string raw = st.column_text(1);
      std::string masked = mask_player_secret(raw);
      if (masked != raw) changed.emplace_back(st.column_int64(0), std::move(masked));
    }
    for (const auto& [id, text] : changed) {
      ADJ_TRY(auto up, db_.prepare("UPDATE submissions SET raw_text = ? WHERE id = ?"));
      up.bind_text(1, text).bind_int64(2, id);
      ADJ_RETURN_IF_ERROR(up.run());
    }
  }
  ADJ_RETURN_IF_ERROR(db_.exec("DELETE FROM pending_upgrades WHERE name = 'hash_credentials'"));
  ADJ_RETURN_IF_ERROR(tx.commit());
  return hashed;
}

}  // namespace adj
