// TEMPORARY stubs of the PgStore methods helper pg-mail writes (storage/postgres/pg_store_*.cc):
// they let the PgStore vtable link until that helper's files land. DELETE this file then
// (duplicate symbols otherwise). Every stub fails with Internal.
#include "storage/postgres/pg_store.h"

namespace adj {

namespace {
Status pending(const char* what) {
  return Status::Internal(std::string("PgStore::") + what + " is not written yet (pg-mail)");
}
}  // namespace

Result<std::vector<GameStorage>> PgStore::storage_by_game() { return pending("storage_by_game"); }
Result<OutboxMessage> PgStore::outbox_message(std::int64_t) { return pending("outbox_message"); }
Result<std::int64_t> PgStore::put_inbox(const InboxMessage&, bool*) { return pending("put_inbox"); }
Result<std::vector<InboxPut>> PgStore::put_inbox_batch(const std::vector<InboxMessage>&) {
  return pending("put_inbox_batch");
}
Result<std::vector<InboxMessage>> PgStore::inbox_in_state(const std::string&, int) {
  return pending("inbox_in_state");
}
Result<std::vector<InboxMessage>> PgStore::inbox_list(const std::string&, int, bool) {
  return pending("inbox_list");
}
Result<InboxUsage> PgStore::inbox_usage_from(const std::string&, UnixTime) {
  return pending("inbox_usage_from");
}
Result<InboxUsage> PgStore::inbox_usage_peer(const std::string&, UnixTime) {
  return pending("inbox_usage_peer");
}
Result<int> PgStore::prune_inbox(UnixTime, UnixTime) { return pending("prune_inbox"); }
Status PgStore::set_inbox_state(std::int64_t, const std::string&, const std::string&) {
  return pending("set_inbox_state");
}
Result<InboxMessage> PgStore::inbox_message(std::int64_t) { return pending("inbox_message"); }
Status PgStore::mask_inbox_raw(std::int64_t, const std::string&) {
  return pending("mask_inbox_raw");
}
Result<bool> PgStore::lease_inbox(std::int64_t, const std::string&, UnixTime, std::int64_t) {
  return pending("lease_inbox");
}
Status PgStore::release_inbox(std::int64_t, const std::string&) { return pending("release_inbox"); }
Status PgStore::retry_inbox_later(std::int64_t, const std::string&) {
  return pending("retry_inbox_later");
}
Result<std::vector<InboxLease>> PgStore::inbox_leases() { return pending("inbox_leases"); }
Result<std::int64_t> PgStore::enqueue(const OutboxMessage&) { return pending("enqueue"); }
Result<std::vector<OutboxMessage>> PgStore::claim(UnixTime, int, std::int64_t) {
  return pending("claim");
}
Status PgStore::mark_sent(std::int64_t, UnixTime) { return pending("mark_sent"); }
Status PgStore::mark_retry(std::int64_t, const std::string&, UnixTime, bool) {
  return pending("mark_retry");
}
Result<std::vector<OutboxMessage>> PgStore::outbox(const std::string&, int) {
  return pending("outbox");
}
Result<int> PgStore::pending_count() { return pending("pending_count"); }
Result<int> PgStore::outbox_count(const std::string&, const std::string&, UnixTime) {
  return pending("outbox_count");
}
Result<std::vector<TurnAttendance>> PgStore::turns_without_orders(const std::string&, int) {
  return pending("turns_without_orders");
}
Result<AttendanceOptions> PgStore::attendance_options(const std::string&) {
  return pending("attendance_options");
}
Status PgStore::set_attendance_options(const std::string&, const AttendanceOptions&) {
  return pending("set_attendance_options");
}
Result<std::vector<AttendanceRecord>> PgStore::attendance_records(const std::string&) {
  return pending("attendance_records");
}
Status PgStore::put_attendance_record(const std::string&, const AttendanceRecord&) {
  return pending("put_attendance_record");
}
Result<std::int64_t> PgStore::add_absence(const Absence&) { return pending("add_absence"); }
Result<std::vector<Absence>> PgStore::absences(const std::string&) { return pending("absences"); }
Result<bool> PgStore::add_standby(const std::string&, const std::string&, UnixTime) {
  return pending("add_standby");
}
Result<std::vector<StandbyEntry>> PgStore::standby_list(const std::string&) {
  return pending("standby_list");
}
Status PgStore::remove_standby(const std::string&, const std::string&) {
  return pending("remove_standby");
}
Result<std::int64_t> PgStore::add_takeover_code(const TakeoverCode&) {
  return pending("add_takeover_code");
}
Result<bool> PgStore::use_takeover_code(const std::string&, const std::string&, const std::string&,
                                        const std::string&, UnixTime) {
  return pending("use_takeover_code");
}
Result<std::vector<TakeoverCode>> PgStore::takeover_codes(const std::string&) {
  return pending("takeover_codes");
}
Result<std::int64_t> PgStore::add_signup(const Signup&, int) { return pending("add_signup"); }
Result<std::vector<Signup>> PgStore::signups(const std::string&) { return pending("signups"); }
Status PgStore::set_signup_state(const std::string&, std::int64_t, const std::string&,
                                 const std::string&) {
  return pending("set_signup_state");
}
Status PgStore::set_contact(const std::string&, const Contact&) { return pending("set_contact"); }
Result<std::vector<Contact>> PgStore::contacts(const std::string&) { return pending("contacts"); }

}  // namespace adj
