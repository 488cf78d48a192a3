// TEMPORARY stubs of the PgStore methods helper pg-admin writes (storage/postgres/pg_store_*.cc):
// they let the PgStore vtable link until that helper's files land. DELETE this file then
// (duplicate symbols otherwise). Every stub fails with Internal.
#include "storage/postgres/pg_store.h"
#include "storage/sqlite/messages.h"

namespace adj {

namespace {
Status pending(const char* what) {
  return Status::Internal(std::string("PgStore::") + what + " is not written yet (pg-admin)");
}
}  // namespace

Result<Schedule> PgStore::schedule(const std::string&) { return pending("schedule"); }
Status PgStore::set_schedule(const std::string&, const Schedule&) {
  return pending("set_schedule");
}
Status PgStore::append_audit(const AuditEntry&) { return pending("append_audit"); }
Result<std::vector<AuditEntry>> PgStore::audit_log(const std::string&) {
  return pending("audit_log");
}
Result<int> PgStore::failed_attempts(const std::string&) { return pending("failed_attempts"); }
Status PgStore::record_failed_attempt(const std::string&, const std::string&) {
  return pending("record_failed_attempt");
}
Status PgStore::reset_attempts(const std::string&) { return pending("reset_attempts"); }
Result<UnixTime> PgStore::last_tick() { return pending("last_tick"); }
Status PgStore::set_last_tick(UnixTime) { return pending("set_last_tick"); }
// Real (the core tests use it); pg-admin's pg_store_admin.cc replaces it with this file.
Status PgStore::set_game_status(const std::string& game, const std::string& status) {
  if (status.empty()) return Status::InvalidArgument("game status must not be empty");
  auto r = conn_.query("UPDATE games SET status = $2 WHERE id = $1", {game, status});
  if (!r.ok()) return r.status();
  if (r->affected() == 0) return Status::NotFound(no_such_game(game));
  return Status::Ok();
}
Result<std::string> PgStore::secret_hash(const std::string&, const std::string&) {
  return pending("secret_hash");
}
Status PgStore::set_secret_hash(const std::string&, const std::string&, const std::string&,
                                UnixTime) {
  return pending("set_secret_hash");
}
Status PgStore::set_link_token(const std::string&, const std::string&, const std::string&,
                               UnixTime) {
  return pending("set_link_token");
}
Status PgStore::add_session_token(const std::string&, const std::string&, const std::string&,
                                  UnixTime) {
  return pending("add_session_token");
}
Status PgStore::revoke_tokens(const std::string&, const std::string&) {
  return pending("revoke_tokens");
}
Result<std::pair<std::string, std::string>> PgStore::token_owner(const std::string&) {
  return pending("token_owner");
}
Result<PressOptions> PgStore::press_options(const std::string&) { return pending("press_options"); }
Status PgStore::set_press_options(const std::string&, const PressOptions&) {
  return pending("set_press_options");
}
Result<std::int64_t> PgStore::append_press(const PressMessage&, const PressBounds&) {
  return pending("append_press");
}
Result<std::vector<PressMessage>> PgStore::press_messages(const std::string&) {
  return pending("press_messages");
}
Result<std::vector<ThrottleState>> PgStore::throttle_states(const std::vector<std::string>&) {
  return pending("throttle_states");
}
Status PgStore::update_throttle(const std::vector<std::string>&,
                                const std::function<void(std::vector<ThrottleState>&)>&,
                                std::int64_t, std::int64_t, std::size_t) {
  return pending("update_throttle");
}

}  // namespace adj
