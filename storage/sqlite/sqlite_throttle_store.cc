#include "storage/sqlite/sqlite_throttle_store.h"

#include "storage/core/record_checks.h"
#include "storage/sqlite/migrator.h"

namespace adj {

using store_checks::join_lines;
using store_checks::split_lines;
using store_checks::valid_throttle_key;

namespace {}  // namespace

Result<std::unique_ptr<SqliteThrottleStore>> SqliteThrottleStore::open(const std::string& path) {
  ADJ_TRY(auto db, sqlite::Database::open(path));
  ADJ_TRY(auto migrations, sqlite::bundled_migrations());
  auto version = sqlite::migrate(db, migrations);
  if (!version.ok())
    return Status(version.status().code(), path + ": " + version.status().message());
  return std::unique_ptr<SqliteThrottleStore>(new SqliteThrottleStore(std::move(db)));
}

Result<ThrottleState> SqliteThrottleStore::read(const std::string& key) {
  ADJ_TRY(auto st, db_.prepare("SELECT failures, window_start, last_failure, lockouts, "
                               "locked_until, total_failures, trusted, recent "
                               "FROM auth_throttle WHERE key = ?"));
  st.bind_text(1, key);
  ADJ_TRY(bool row, st.step());
  ThrottleState s;
  if (!row) return s;
  s.failures = st.column_int(0);
  s.window_start = st.column_int64(1);
  s.last_failure = st.column_int64(2);
  s.lockouts = st.column_int(3);
  s.locked_until = st.column_int64(4);
  s.total_failures = st.column_int(5);
  s.trusted = split_lines(st.column_text(6));
  s.recent = split_lines(st.column_text(7));
  return s;
}

Result<std::vector<ThrottleState>> SqliteThrottleStore::throttle_states(
    const std::vector<std::string>& keys) {
  std::vector<ThrottleState> out;
  for (const auto& k : keys) {
    ADJ_TRY(auto s, read(k));
    out.push_back(std::move(s));
  }
  return out;
}

Status SqliteThrottleStore::update_throttle(
    const std::vector<std::string>& keys,
    const std::function<void(std::vector<ThrottleState>&)>& change, std::int64_t now,
    std::int64_t forget_before, std::size_t max_rows) {
  for (const auto& k : keys)
    if (!valid_throttle_key(k))
      return Status::InvalidArgument("throttle key must be one non-empty line");
  ADJ_TRY(auto tx, sqlite::Transaction::begin(db_));
  std::vector<ThrottleState> states;
  for (const auto& k : keys) {
    ADJ_TRY(auto s, read(k));
    states.push_back(std::move(s));
  }
  change(states);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const ThrottleState& s = states[i];
    for (const auto* list : {&s.trusted, &s.recent})
      for (const auto& c : *list)
        if (c.find('\n') != std::string::npos)
          return Status::InvalidArgument("throttle client key must be one line");
    ADJ_TRY(auto st,
            db_.prepare("INSERT OR REPLACE INTO auth_throttle(key, failures, window_start, "
                        "last_failure, lockouts, locked_until, total_failures, trusted, "
                        "recent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    st.bind_text(1, keys[i])
        .bind_int(2, s.failures)
        .bind_int64(3, s.window_start)
        .bind_int64(4, s.last_failure)
        .bind_int(5, s.lockouts)
        .bind_int64(6, s.locked_until)
        .bind_int(7, s.total_failures)
        .bind_text(8, join_lines(s.trusted))
        .bind_text(9, join_lines(s.recent));
    ADJ_RETURN_IF_ERROR(st.run());
  }
  {
    // Quiet, unlocked keys are forgotten, unless they remember trusted clients.
    ADJ_TRY(auto st, db_.prepare("DELETE FROM auth_throttle WHERE locked_until <= ? AND "
                                 "last_failure < ? AND trusted = ''"));
    st.bind_int64(1, now).bind_int64(2, forget_before);
    ADJ_RETURN_IF_ERROR(st.run());
  }
  {
    // The cap: beyond max_rows, the least recently failed unlocked rows go first.
    ADJ_TRY(auto st,
            db_.prepare("DELETE FROM auth_throttle WHERE key IN (SELECT key FROM auth_throttle "
                        "ORDER BY locked_until > ?, last_failure LIMIT max(0, (SELECT "
                        "count(*) FROM auth_throttle) - ?))"));
    st.bind_int64(1, now).bind_int64(2, static_cast<std::int64_t>(max_rows));
    ADJ_RETURN_IF_ERROR(st.run());
  }
  return tx.commit();
}

}  // namespace adj
