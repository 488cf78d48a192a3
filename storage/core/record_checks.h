// What both store backends check and encode the same way, whatever the database: argument checks
// of records (the texts are part of the stores' contracts), the plain-text encodings of list
// columns, and SQL text for error messages. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rules/core/status.h"
#include "storage/admin_store.h"
#include "storage/membership_store.h"
#include "storage/records.h"

namespace adj::store_checks {

// AdminStore::set_schedule's ranges (InvalidArgument naming the field).
Status check_schedule(const Schedule& s);
// The consistency of a turn's commit `c` with `game` (InvalidArgument).
Status check_commit(const std::string& game, const TurnCommit& c);
// InvalidArgument unless report `r` of a commit of `game`'s `turn` is for that turn.
Status check_report_turn(const std::string& game, int turn, const ReportRecord& r);
// InvalidArgument unless an audit entry (AdminStore, the host audit log) names its actor and
// action.
Status check_audit_entry(const AuditEntry& e);
// MailStore inbox states: "new", "processed", "failed".
bool valid_inbox_state(const std::string& s);
// PressStore levels: "none", "public", "private", "anonymous".
bool known_press_level(const std::string& p);
// EngineScriptStore::add_engine_script: Ok, or InvalidArgument naming what is wrong (an empty
// source, a sha256 that is not 64 lowercase hex digits, a first turn below 1).
Status check_engine_script(const std::string& source, const std::string& sha256, int from_turn);

// ThrottleStore list columns: one item per line (written by ascii::joined(items, '\n'),
// base/ascii.h), empty lines kept. A key is one non-empty line.
std::vector<std::string> split_lines(const std::string& s);
bool valid_throttle_key(const std::string& k);

// Notice and press recipients (stored one per line): true when one is empty or holds a line
// break.
bool bad_recipient(const std::vector<std::string>& recipients);

// MembershipStore::add_confirmation's argument checks (InvalidArgument naming the field), and
// its Unavailable for the bound `which` ("client", "address" or "game") of `l`.
Status check_confirmation(const PendingConfirmation& c);
Status confirmation_limit(const std::string& which, const ConfirmationLimits& l);

// `sql` with runs of white space folded to one space, cut after 160 characters: the context
// an error message names.
std::string sql_context(std::string_view sql);
// `text` with every occurrence of `secret` replaced by "***" (unchanged for an empty `secret`):
// a driver's message may quote a password.
std::string redacted(std::string text, std::string_view secret);
// `name` as a double-quoted SQL identifier (embedded quotes doubled).
std::string quote_identifier(const std::string& name);

}  // namespace adj::store_checks
