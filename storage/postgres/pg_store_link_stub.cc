// TEMPORARY: lets this branch link before the PostgreSQL store lands (storage/postgres/pg_store*.cc
// and pg_database.cc, other helpers' branches). Drop this file at the merge.
#include "storage/postgres/pg_store.h"

namespace adj {

namespace {
Status unavailable() {
  return Status::Unavailable("PostgreSQL support is not built into this binary yet");
}
}  // namespace

namespace pg {
struct Connection::Prepared {};
Connection::~Connection() = default;
}  // namespace pg

Result<std::unique_ptr<PgStore>> PgStore::open(const std::string&) { return unavailable(); }

Result<int> PgStore::schema_version() { return unavailable(); }
Result<std::vector<GameStorage>> PgStore::storage_by_game() { return unavailable(); }
Result<OutboxMessage> PgStore::outbox_message(std::int64_t) { return unavailable(); }
Result<std::shared_ptr<const RevisionMap>> PgStore::revisions() { return unavailable(); }
Status PgStore::create_game(const GameState&, const Json&, UnixTime) { return unavailable(); }
Result<std::vector<GameSummary>> PgStore::list_games() { return unavailable(); }
Result<std::string> PgStore::stored_game_id(const std::string&) { return unavailable(); }
Result<GameSummary> PgStore::game_summary(const std::string&) { return unavailable(); }
Result<Json> PgStore::scenario(const std::string&) { return unavailable(); }
Result<GameState> PgStore::load_state(const std::string&, std::optional<int>) {
  return unavailable();
}
Status PgStore::commit_turn(const std::string&, const TurnCommit&) { return unavailable(); }
Status PgStore::begin_resolving(const std::string&, int, UnixTime) { return unavailable(); }
Status PgStore::end_resolving(const std::string&, int) { return unavailable(); }
Status PgStore::rollback(const std::string&, int) { return unavailable(); }
Result<Json> PgStore::turn_record(const std::string&, int) { return unavailable(); }
Result<std::int64_t> PgStore::put_submission(const SubmissionRecord&) { return unavailable(); }
Result<std::vector<SubmissionRecord>> PgStore::current_submissions(const std::string&, int) {
  return unavailable();
}
Result<std::vector<SubmissionRecord>> PgStore::all_submissions(const std::string&) {
  return unavailable();
}
Result<ReportRecord> PgStore::report(const std::string&, const std::string&, int) {
  return unavailable();
}
Result<std::vector<int>> PgStore::report_turns(const std::string&) { return unavailable(); }
Result<BattleRecord> PgStore::battle(const std::string&, int, const std::string&) {
  return unavailable();
}
Result<std::vector<BattleRecord>> PgStore::battles(const std::string&, int) {
  return unavailable();
}
Result<Schedule> PgStore::schedule(const std::string&) { return unavailable(); }
Status PgStore::set_schedule(const std::string&, const Schedule&) { return unavailable(); }
Status PgStore::append_audit(const AuditEntry&) { return unavailable(); }
Result<std::vector<AuditEntry>> PgStore::audit_log(const std::string&) { return unavailable(); }
Result<int> PgStore::failed_attempts(const std::string&) { return unavailable(); }
Status PgStore::record_failed_attempt(const std::string&, const std::string&) {
  return unavailable();
}
Status PgStore::reset_attempts(const std::string&) { return unavailable(); }
Result<UnixTime> PgStore::last_tick() { return unavailable(); }
Status PgStore::set_last_tick(UnixTime) { return unavailable(); }
Status PgStore::set_game_status(const std::string&, const std::string&) { return unavailable(); }
Result<std::int64_t> PgStore::put_inbox(const InboxMessage&, bool*) { return unavailable(); }
Result<std::vector<InboxPut>> PgStore::put_inbox_batch(const std::vector<InboxMessage>&) {
  return unavailable();
}
Result<std::vector<InboxMessage>> PgStore::inbox_in_state(const std::string&, int) {
  return unavailable();
}
Result<std::vector<InboxMessage>> PgStore::inbox_list(const std::string&, int, bool) {
  return unavailable();
}
Result<InboxUsage> PgStore::inbox_usage_from(const std::string&, UnixTime) { return unavailable(); }
Result<InboxUsage> PgStore::inbox_usage_peer(const std::string&, UnixTime) { return unavailable(); }
Result<int> PgStore::prune_inbox(UnixTime, UnixTime) { return unavailable(); }
Status PgStore::set_inbox_state(std::int64_t, const std::string&, const std::string&) {
  return unavailable();
}
Result<InboxMessage> PgStore::inbox_message(std::int64_t) { return unavailable(); }
Status PgStore::mask_inbox_raw(std::int64_t, const std::string&) { return unavailable(); }
Result<bool> PgStore::lease_inbox(std::int64_t, const std::string&, UnixTime, std::int64_t) {
  return unavailable();
}
Status PgStore::release_inbox(std::int64_t, const std::string&) { return unavailable(); }
Status PgStore::retry_inbox_later(std::int64_t, const std::string&) { return unavailable(); }
Result<std::vector<InboxLease>> PgStore::inbox_leases() { return unavailable(); }
Result<std::int64_t> PgStore::enqueue(const OutboxMessage&) { return unavailable(); }
Result<std::vector<OutboxMessage>> PgStore::claim(UnixTime, int, std::int64_t) {
  return unavailable();
}
Status PgStore::mark_sent(std::int64_t, UnixTime) { return unavailable(); }
Status PgStore::mark_retry(std::int64_t, const std::string&, UnixTime, bool) {
  return unavailable();
}
Result<std::vector<OutboxMessage>> PgStore::outbox(const std::string&, int) {
  return unavailable();
}
Result<int> PgStore::pending_count() { return unavailable(); }
Result<int> PgStore::outbox_count(const std::string&, const std::string&, UnixTime) {
  return unavailable();
}
Result<std::string> PgStore::secret_hash(const std::string&, const std::string&) {
  return unavailable();
}
Status PgStore::set_secret_hash(const std::string&, const std::string&, const std::string&,
                                UnixTime) {
  return unavailable();
}
Status PgStore::set_link_token(const std::string&, const std::string&, const std::string&,
                               UnixTime) {
  return unavailable();
}
Status PgStore::add_session_token(const std::string&, const std::string&, const std::string&,
                                  UnixTime) {
  return unavailable();
}
Status PgStore::revoke_tokens(const std::string&, const std::string&) { return unavailable(); }
Result<std::pair<std::string, std::string>> PgStore::token_owner(const std::string&) {
  return unavailable();
}
Result<std::int64_t> PgStore::append_notice(const Notice&) { return unavailable(); }
Result<std::vector<Notice>> PgStore::pending_notices(int) { return unavailable(); }
Status PgStore::mark_notice_done(std::int64_t) { return unavailable(); }
Result<std::vector<Notice>> PgStore::notices(const std::string&) { return unavailable(); }
Result<std::vector<TurnAttendance>> PgStore::turns_without_orders(const std::string&, int) {
  return unavailable();
}
Result<AttendanceOptions> PgStore::attendance_options(const std::string&) { return unavailable(); }
Status PgStore::set_attendance_options(const std::string&, const AttendanceOptions&) {
  return unavailable();
}
Result<std::vector<AttendanceRecord>> PgStore::attendance_records(const std::string&) {
  return unavailable();
}
Status PgStore::put_attendance_record(const std::string&, const AttendanceRecord&) {
  return unavailable();
}
Result<std::int64_t> PgStore::add_absence(const Absence&) { return unavailable(); }
Result<std::vector<Absence>> PgStore::absences(const std::string&) { return unavailable(); }
Result<bool> PgStore::add_standby(const std::string&, const std::string&, UnixTime) {
  return unavailable();
}
Result<std::vector<StandbyEntry>> PgStore::standby_list(const std::string&) {
  return unavailable();
}
Status PgStore::remove_standby(const std::string&, const std::string&) { return unavailable(); }
Result<std::int64_t> PgStore::add_takeover_code(const TakeoverCode&) { return unavailable(); }
Result<bool> PgStore::use_takeover_code(const std::string&, const std::string&, const std::string&,
                                        const std::string&, UnixTime) {
  return unavailable();
}
Result<std::vector<TakeoverCode>> PgStore::takeover_codes(const std::string&) {
  return unavailable();
}
Result<std::int64_t> PgStore::add_signup(const Signup&, int) { return unavailable(); }
Result<std::vector<Signup>> PgStore::signups(const std::string&) { return unavailable(); }
Status PgStore::set_signup_state(const std::string&, std::int64_t, const std::string&,
                                 const std::string&) {
  return unavailable();
}
Status PgStore::set_contact(const std::string&, const Contact&) { return unavailable(); }
Result<std::vector<Contact>> PgStore::contacts(const std::string&) { return unavailable(); }
Result<PressOptions> PgStore::press_options(const std::string&) { return unavailable(); }
Status PgStore::set_press_options(const std::string&, const PressOptions&) { return unavailable(); }
Result<std::int64_t> PgStore::append_press(const PressMessage&, const PressBounds&) {
  return unavailable();
}
Result<std::vector<PressMessage>> PgStore::press_messages(const std::string&) {
  return unavailable();
}
Result<std::vector<ThrottleState>> PgStore::throttle_states(const std::vector<std::string>&) {
  return unavailable();
}
Status PgStore::update_throttle(const std::vector<std::string>&,
                                const std::function<void(std::vector<ThrottleState>&)>&,
                                std::int64_t, std::int64_t, std::size_t) {
  return unavailable();
}

}  // namespace adj
