#include "storage/core/record_checks.h"

#include <cctype>

namespace adj::store_checks {

Status check_schedule(const Schedule& s) {
  if (s.kind != "none" && s.kind != "fixed" && s.kind != "interval")
    return Status::InvalidArgument("schedule kind must be none, fixed or interval, not '" + s.kind +
                                   "'");
  if (s.interval_seconds < 0)
    return Status::InvalidArgument("schedule interval must not be negative");
  if (s.time_of_day && (*s.time_of_day < 0 || *s.time_of_day > 86399))
    return Status::InvalidArgument("schedule time of day must be 0..86399 seconds after midnight");
  if (s.max_attempts < 1) return Status::InvalidArgument("schedule max_attempts must be >= 1");
  if (!(s.nmr_guard_ratio >= 0 && s.nmr_guard_ratio <= 1))
    return Status::InvalidArgument("schedule nmr_guard_ratio must be between 0 and 1");
  if (s.downtime_grace_seconds < 0)
    return Status::InvalidArgument("schedule downtime grace must not be negative");
  return Status::Ok();
}

Status check_commit(const std::string& game, const TurnCommit& c) {
  const std::string where = "commit_turn game " + game + " turn " + std::to_string(c.turn) + ": ";
  if (c.next_state.game_id != game)
    return Status::InvalidArgument(where + "next_state is for game " + c.next_state.game_id);
  if (c.next_state.turn != c.turn + 1)
    return Status::InvalidArgument(where + "next_state is for turn " +
                                   std::to_string(c.next_state.turn) + ", expected " +
                                   std::to_string(c.turn + 1));
  for (const auto& r : c.reports) ADJ_RETURN_IF_ERROR(check_report_turn(game, c.turn, r));
  return Status::Ok();
}

Status check_report_turn(const std::string& game, int turn, const ReportRecord& r) {
  if (r.turn == turn) return Status::Ok();
  return Status::InvalidArgument("commit_turn game " + game + " turn " + std::to_string(turn) +
                                 ": the report of " + r.player + " is for turn " +
                                 std::to_string(r.turn));
}

Status check_audit_entry(const AuditEntry& e) {
  if (!e.actor.empty() && !e.action.empty()) return Status::Ok();
  return Status::InvalidArgument("audit entry needs an actor and an action");
}

bool valid_inbox_state(const std::string& s) {
  return s == "new" || s == "processed" || s == "failed";
}

bool known_press_level(const std::string& p) {
  return p == "none" || p == "public" || p == "private" || p == "anonymous";
}

Status check_engine_script(const std::string& source, const std::string& sha256, int from_turn) {
  if (source.empty()) return Status::InvalidArgument("an engine script cannot be empty");
  if (sha256.size() != 64 || sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
    return Status::InvalidArgument("an engine script's sha256 must be 64 lowercase hex digits");
  if (from_turn < 1)
    return Status::InvalidArgument("an engine script's first turn must be 1 or later, not " +
                                   std::to_string(from_turn));
  return Status::Ok();
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < s.size()) {
    const auto nl = s.find('\n', start);
    out.push_back(s.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

bool valid_throttle_key(const std::string& k) {
  return !k.empty() && k.find('\n') == std::string::npos;
}

bool bad_recipient(const std::vector<std::string>& recipients) {
  for (const auto& r : recipients)
    if (r.empty() || r.find_first_of("\r\n") != std::string::npos) return true;
  return false;
}

Status check_confirmation(const PendingConfirmation& c) {
  if (c.kind != "signup" && c.kind != "standby")
    return Status::InvalidArgument("a confirmation's kind must be signup or standby, not \"" +
                                   c.kind.substr(0, 16) + "\"");
  if (c.address.empty()) return Status::InvalidArgument("a confirmation needs an address");
  if (c.client.empty()) return Status::InvalidArgument("a confirmation needs a client");
  if (c.code_hash.size() != 64)
    return Status::InvalidArgument("a confirmation's code hash must have 64 characters");
  return Status::Ok();
}

Status confirmation_limit(const std::string& which, const ConfirmationLimits& l) {
  if (which == "client")
    return Status::Unavailable("client: at most " + std::to_string(l.per_client) +
                               " requests per client in " + std::to_string(l.window / 60) +
                               " minutes");
  if (which == "address")
    return Status::Unavailable("address: at most " + std::to_string(l.per_address) +
                               " requests per address in " + std::to_string(l.window / 60) +
                               " minutes");
  return Status::Unavailable("game: at most " + std::to_string(l.per_game) +
                             " unconfirmed requests per game");
}

std::string sql_context(std::string_view sql) {
  constexpr std::size_t kMax = 160;
  std::string out;
  bool space = false;
  for (char c : sql) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
    if (out.size() >= kMax) {
      out += "...";
      break;
    }
  }
  return out;
}

std::string redacted(std::string text, std::string_view secret) {
  if (secret.empty()) return text;
  constexpr std::string_view kMask = "***";
  for (auto p = text.find(secret); p != std::string::npos; p = text.find(secret, p + kMask.size()))
    text.replace(p, secret.size(), kMask);
  return text;
}

std::string quote_identifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace adj::store_checks
