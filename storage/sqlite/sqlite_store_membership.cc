// MembershipStore over SQLite (migration 0010), and the contacts applied to loaded states.
#include <cctype>
#include <sstream>

#include "base/ascii.h"
#include "storage/core/record_checks.h"
#include "storage/sqlite/sqlite_store.h"

namespace adj {

using store_checks::join_words;
using store_checks::split_words;
namespace {

using sqlite::Transaction;

constexpr const char* kSignupColumns =
    "SELECT id, game_id, email, preferences, state, player, channel, created_at FROM signups";

}  // namespace

Result<std::int64_t> SqliteStore::add_signup(const Signup& s, int max) {
  if (s.email.empty()) return Status::InvalidArgument("a sign-up needs an address");
  ADJ_TRY(auto tx, Transaction::begin(db_));
  ADJ_RETURN_IF_ERROR(require_game(s.game));
  {
    ADJ_TRY(auto st, db_.prepare("SELECT 1 FROM signups WHERE game_id = ? AND email_key = ?"));
    st.bind_text(1, s.game).bind_text(2, ascii::lower(s.email));
    ADJ_TRY(bool dup, st.step());
    if (dup) return Status::AlreadyExists(s.email + " is already on the sign-up list");
  }
  {
    ADJ_TRY(auto st, db_.prepare("SELECT count(*) FROM signups WHERE game_id = ?"));
    st.bind_text(1, s.game);
    ADJ_TRY(bool row, st.step());
    if (row && st.column_int(0) >= max)
      return Status::FailedPrecondition("the sign-up list is full (" + std::to_string(max) +
                                        " sign-ups)");
  }
  ADJ_TRY(auto st, db_.prepare("INSERT INTO signups(game_id, email, email_key, preferences, "
                               "channel, created_at) VALUES (?, ?, ?, ?, ?, ?)"));
  st.bind_text(1, s.game)
      .bind_text(2, s.email)
      .bind_text(3, ascii::lower(s.email))
      .bind_text(4, join_words(s.preferences))
      .bind_text(5, s.channel)
      .bind_int64(6, s.created_at);
  ADJ_RETURN_IF_ERROR(st.run());
  const std::int64_t id = db_.last_insert_rowid();
  ADJ_RETURN_IF_ERROR(tx.commit());
  return id;
}

Result<std::vector<Signup>> SqliteStore::signups(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare(std::string(kSignupColumns) + " WHERE game_id = ? ORDER BY id"));
  st.bind_text(1, game);
  std::vector<Signup> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    Signup s;
    s.id = st.column_int64(0);
    s.game = st.column_text(1);
    s.email = st.column_text(2);
    s.preferences = split_words(st.column_text(3));
    s.state = st.column_text(4);
    s.player = st.column_text(5);
    s.channel = st.column_text(6);
    s.created_at = st.column_int64(7);
    out.push_back(std::move(s));
  }
}

Status SqliteStore::set_signup_state(const std::string& game, std::int64_t id,
                                     const std::string& state, const std::string& player) {
  ADJ_TRY(auto st, db_.prepare("UPDATE signups SET state = ?, player = ? "
                               "WHERE game_id = ? AND id = ?"));
  st.bind_text(1, state).bind_text(2, player).bind_text(3, game).bind_int64(4, id);
  ADJ_RETURN_IF_ERROR(st.run());
  if (db_.changes() == 0) return Status::NotFound("sign-up " + std::to_string(id));
  return Status::Ok();
}

Status SqliteStore::remove_signup(const std::string& game, std::int64_t id) {
  ADJ_TRY(auto st, db_.prepare("DELETE FROM signups WHERE game_id = ? AND id = ?"));
  st.bind_text(1, game).bind_int64(2, id);
  ADJ_RETURN_IF_ERROR(st.run());
  if (db_.changes() == 0) return Status::NotFound("sign-up " + std::to_string(id));
  return Status::Ok();
}

Result<std::int64_t> SqliteStore::add_confirmation(const PendingConfirmation& c,
                                                   const ConfirmationLimits& l) {
  ADJ_RETURN_IF_ERROR(store_checks::check_confirmation(c));
  ADJ_TRY(auto tx, Transaction::begin(db_));
  ADJ_RETURN_IF_ERROR(require_game(c.game));
  {
    ADJ_TRY(auto st, db_.prepare("DELETE FROM confirmations WHERE expires_at <= ?"));
    st.bind_int64(1, c.created_at);
    ADJ_RETURN_IF_ERROR(st.run());
  }
  const auto count = [&](const char* sql, const std::string& key,
                         UnixTime since) -> Result<std::int64_t> {
    ADJ_TRY(auto st, db_.prepare(sql));
    st.bind_text(1, key).bind_int64(2, since);
    ADJ_TRY(bool row, st.step());
    return row ? st.column_int64(0) : 0;
  };
  const UnixTime since = c.created_at - l.window;
  auto by_client = count("SELECT count(*) FROM confirmations WHERE client = ? AND created_at > ?",
                         c.client, since);
  if (!by_client.ok()) return by_client.status();
  if (*by_client >= l.per_client) return store_checks::confirmation_limit("client", l);
  auto by_address =
      count("SELECT count(*) FROM confirmations WHERE address_key = ? AND created_at > ?",
            ascii::lower(c.address), since);
  if (!by_address.ok()) return by_address.status();
  if (*by_address >= l.per_address) return store_checks::confirmation_limit("address", l);
  auto by_game = count(
      "SELECT count(*) FROM confirmations WHERE game_id = ? AND confirmed_at IS NULL "
      "AND expires_at > ?",
      c.game, c.created_at);
  if (!by_game.ok()) return by_game.status();
  if (*by_game >= l.per_game) return store_checks::confirmation_limit("game", l);
  ADJ_TRY(auto st, db_.prepare("INSERT INTO confirmations(game_id, kind, address, "
                               "address_key, client, payload, code_hash, created_at, "
                               "expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  st.bind_text(1, c.game)
      .bind_text(2, c.kind)
      .bind_text(3, c.address)
      .bind_text(4, ascii::lower(c.address))
      .bind_text(5, c.client)
      .bind_text(6, c.payload)
      .bind_text(7, c.code_hash)
      .bind_int64(8, c.created_at)
      .bind_int64(9, c.expires_at);
  ADJ_RETURN_IF_ERROR(st.run());
  const std::int64_t id = db_.last_insert_rowid();
  ADJ_RETURN_IF_ERROR(tx.commit());
  return id;
}

Result<std::optional<PendingConfirmation>> SqliteStore::use_confirmation(
    const std::string& code_hash, UnixTime now) {
  ADJ_TRY(auto tx, Transaction::begin(db_));
  ADJ_TRY(auto st, db_.prepare("SELECT id, game_id, kind, address, client, payload, "
                               "code_hash, created_at, expires_at FROM confirmations "
                               "WHERE code_hash = ? AND confirmed_at IS NULL AND "
                               "expires_at > ?"));
  st.bind_text(1, code_hash).bind_int64(2, now);
  ADJ_TRY(bool row, st.step());
  if (!row) return std::optional<PendingConfirmation>();
  PendingConfirmation c;
  c.id = st.column_int64(0);
  c.game = st.column_text(1);
  c.kind = st.column_text(2);
  c.address = st.column_text(3);
  c.client = st.column_text(4);
  c.payload = st.column_text(5);
  c.code_hash = st.column_text(6);
  c.created_at = st.column_int64(7);
  c.expires_at = st.column_int64(8);
  c.confirmed_at = now;
  ADJ_TRY(auto up, db_.prepare("UPDATE confirmations SET confirmed_at = ? WHERE id = ?"));
  up.bind_int64(1, now).bind_int64(2, c.id);
  ADJ_RETURN_IF_ERROR(up.run());
  ADJ_RETURN_IF_ERROR(tx.commit());
  return std::optional<PendingConfirmation>(std::move(c));
}

Status SqliteStore::set_contact(const std::string& game, const Contact& c) {
  if (c.player.empty()) return Status::InvalidArgument("a contact needs a player code");
  ADJ_TRY(auto tx, Transaction::begin(db_));
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("INSERT INTO contacts(game_id, player, email, name, updated_at) "
                               "VALUES (?, ?, ?, ?, ?) ON CONFLICT(game_id, player) DO UPDATE "
                               "SET email = excluded.email, name = excluded.name, "
                               "updated_at = excluded.updated_at"));
  st.bind_text(1, game)
      .bind_text(2, c.player)
      .bind_text(3, c.email)
      .bind_text(4, c.name)
      .bind_int64(5, c.updated_at);
  ADJ_RETURN_IF_ERROR(st.run());
  return tx.commit();
}

Result<std::vector<Contact>> SqliteStore::contacts(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("SELECT player, email, name, updated_at FROM contacts "
                               "WHERE game_id = ? ORDER BY player"));
  st.bind_text(1, game);
  std::vector<Contact> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    out.push_back(
        Contact{st.column_text(0), st.column_text(1), st.column_text(2), st.column_int64(3)});
  }
}

Status SqliteStore::apply_contacts(const std::string& game, GameState& state) {
  ADJ_TRY(auto st, db_.prepare("SELECT player, email FROM contacts WHERE game_id = ?"));
  st.bind_text(1, game);
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return Status::Ok();
    const std::string player = st.column_text(0);
    for (Player& p : state.players)
      if (p.code == player) p.email = st.column_text(1);
  }
}

}  // namespace adj
