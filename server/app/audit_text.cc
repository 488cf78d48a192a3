#include "server/app/audit_text.h"

#include <cstdio>

#include "base/ascii.h"
#include "server/app/time_text.h"

namespace adj {

namespace {

std::string str(const Json& d, const char* key) {
  auto it = d.find(key);
  return it != d.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string num(const Json& d, const char* key) {
  auto it = d.find(key);
  return it != d.end() && it->is_number_integer() ? std::to_string(it->get<std::int64_t>())
                                                  : std::string("?");
}

// A Unix time field as "2026-11-22 18:00 UTC", or `none` when absent or null.
std::string when(const Json& d, const char* key, const std::string& none = "none") {
  auto it = d.find(key);
  if (it == d.end() || !it->is_number_integer()) return none;
  return utc_minutes(it->get<UnixTime>());
}

std::string list(const Json& d, const char* key) {
  std::string out;
  auto it = d.find(key);
  if (it == d.end() || !it->is_array()) return out;
  for (const auto& x : *it)
    if (x.is_string()) out += (out.empty() ? "" : ", ") + x.get<std::string>();
  return out;
}

std::string duration(std::int64_t seconds) {
  if (seconds % 86400 == 0 && seconds >= 86400)
    return std::to_string(seconds / 86400) + (seconds == 86400 ? " day" : " days");
  if (seconds % 3600 == 0 && seconds >= 3600)
    return std::to_string(seconds / 3600) + (seconds == 3600 ? " hour" : " hours");
  if (seconds % 60 == 0 && seconds >= 60) return std::to_string(seconds / 60) + " minutes";
  return std::to_string(seconds) + " seconds";
}

// "; reason: ..." when the GM gave one ("why").
std::string why(const Json& d) {
  const std::string w = str(d, "why");
  return w.empty() ? "" : "; reason: " + w;
}

// The words of server/app/membership.h's actions, or "" for another action.
std::string membership_words(const std::string& a, const Json& d) {
  if (a == "signup-open") return "opened the game for sign-ups";
  if (a == "approve") return "confirmed the sign-up of " + str(d, "address");
  if (a == "signup-remove") return "removed the sign-up of " + str(d, "address");
  if (a == "invite") return "invited " + str(d, "address") + " to sign up";
  if (a == "assign") {
    auto it = d.find("preference_rank");
    return "gave " + str(d, "player") + " to " + str(d, "address") +
           (it != d.end() && it->is_number_integer()
                ? " (their choice " + std::to_string(it->get<int>()) + ")"
                : " (none of their choices was free)");
  }
  if (a == "world-fitted")
    return "made the generated world again for " + num(d, "players") + " players (it had " +
           num(d, "players_before") + ")";
  if (a == "start") {
    std::string t = "started the game with " + num(d, "assigned") + " players";
    const std::string vacant = list(d, "vacant");
    if (!vacant.empty()) t += "; vacant: " + vacant;
    auto it = d.find("unassigned");
    if (it != d.end() && it->is_number_integer() && it->get<int>() > 0)
      t += "; " + ascii::with_count(it->get<int>(), "sign-up") + " got no place";
    return t;
  }
  if (a == "address")
    return "changed the address of " + str(d, "player") + " from " + str(d, "from") + " to " +
           str(d, "to");
  if (a == "replace")
    return "gave " + str(d, "player") + " to " + str(d, "to") +
           (str(d, "from").empty() ? "" : " (was " + str(d, "from") + ")") + why(d);
  return "";
}

std::string schedule_words(const Json& s) {
  const std::string kind = str(s, "kind");
  if (kind == "fixed") return "fixed: turns run at the deadline (" + when(s, "deadline") + ")";
  if (kind == "interval") {
    std::string t = "every ";
    auto it = s.find("interval_seconds");
    t += it != s.end() && it->is_number_integer() ? duration(it->get<std::int64_t>()) : "?";
    auto tod = s.find("time_of_day");
    if (tod != s.end() && tod->is_number_integer()) {
      const int v = tod->get<int>();
      char b[16];
      std::snprintf(b, sizeof b, "%02d:%02d", v / 3600 % 24, v / 60 % 60);
      t += std::string(" at ") + b + " UTC";
    }
    if (s.value("early_when_all_in", false)) t += ", early when every player has orders in";
    return t + "; next deadline " + when(s, "deadline");
  }
  return "none: turns run only by hand";
}

}  // namespace

std::string audit_actor_text(const std::string& actor) {
  if (actor == "gm" || actor == "gm:web" || actor == "gm:api") return "the GM";
  if (actor == "gm:cli") return "the GM (command line)";
  if (actor.rfind("gm:", 0) == 0) return "the GM";
  if (actor == "scheduler") return "the scheduler";
  if (actor == "mail") return "the mail robot";
  if (actor.rfind("player:", 0) == 0) return "player " + actor.substr(7);
  return actor;
}

std::string audit_action_text(const AuditEntry& e) {
  const Json& d = e.detail.is_object() ? e.detail : Json::object();
  const std::string& a = e.action;
  if (a == "create")
    return "created the game " + str(d, "name") + " (" + str(d, "engine") + " rules)";
  if (a == "preview") return "previewed turn " + num(d, "turn") + " (nothing stored)";
  if (a == "run") {
    std::string t = "ran turn " + num(d, "turn");
    const std::string missing = list(d, "players_without_orders");
    t += missing.empty() ? "; every player had orders in" : "; no orders from " + missing;
    if (d.contains("deadline") && d["deadline"].is_number_integer())
      t += "; next deadline " + when(d, "deadline");
    if (d.value("released_hold", false)) t += "; the hold was released";
    return t;
  }
  if (a == "rollback") {
    std::string t = "rolled back from turn " + num(d, "from_turn") + " to turn " + num(d, "turn");
    auto it = d.find("later_files");
    if (it != d.end() && it->is_array() && !it->empty())
      t += "; " + std::to_string(it->size()) + " order file" + (it->size() == 1 ? "" : "s") +
           " of later turns kept for when they open again";
    return t + why(d);
  }
  if (a == "schedule") {
    auto it = d.find("schedule");
    return "set the schedule to " +
           schedule_words(it != d.end() && it->is_object() ? *it : Json::object());
  }
  if (a == "deadline") return "moved the deadline from " + when(d, "from") + " to " + when(d, "to");
  if (a == "extend") {
    std::string t = "extended the deadline from " + when(d, "from") + " to " + when(d, "to");
    if (str(d, "reason") == "downtime") t += " after the server was down";
    return t;
  }
  if (a == "pause") {
    std::string t = "paused the game (it was " + str(d, "from") + ")";
    if (d.contains("remaining") && d["remaining"].is_number_integer())
      t += "; " + duration(d["remaining"].get<std::int64_t>()) + " were left to the deadline";
    return t;
  }
  if (a == "resume")
    return "resumed the game (it was " + str(d, "from") + "); deadline " + when(d, "deadline");
  if (a == "archive")
    return "archived the game: it takes no orders, sign-ups or turn runs" + why(d);
  if (a == "unarchive") return "unarchived the game" + why(d);
  if (a == "delete") {  // on the host's log: the game is gone
    std::string t = "deleted the game " + str(d, "name") + ", which had not started";
    if (d.contains("removed") && d["removed"].is_object()) {
      std::int64_t rows = 0;
      for (const auto& [table, n] : d["removed"].items())
        if (n.is_number_integer()) rows += n.get<std::int64_t>();
      t += " (" + std::to_string(rows) + " rows)";
    }
    return t + why(d);
  }
  if (a == "guard") {
    std::string t = "held turn " + num(d, "turn") + ": unusually many players without orders";
    const std::string missing = list(d, "players_without_orders");
    if (!missing.empty()) t += " (" + missing + ")";
    return t;
  }
  if (a == "engine_script")
    return "stored version " + num(d, "version") + " of the engine script (sha256 " +
           str(d, "sha256").substr(0, 12) + ")";
  if (a == "failed" || a == "hold") {
    const std::string m = str(d, "message");
    if (!m.empty()) return m;
    return a == "failed" ? "turn " + num(d, "turn") + " failed to run"
                         : "held turn " + num(d, "turn") + " for the GM";
  }
  if (a == "token") return "issued a new sign-in link for " + str(d, "player");
  if (a == "reset") {
    const std::string what = str(d, "what");
    return std::string(what == "token"    ? "issued a new sign-in link"
                       : what == "secret" ? "issued a new secret"
                                          : "issued a new secret and sign-in link") +
           " for " + str(d, "player");
  }
  if (a == "secret")
    return str(d, "what") == "token" ? "replaced their sign-in link" : "changed their secret";
  if (a == "orders") {
    std::string t = "entered orders for " + str(d, "player") + " for turn " + num(d, "turn");
    if (d.contains("accepted"))
      t += " (" + num(d, "accepted") + (num(d, "accepted") == "1" ? " line" : " lines") +
           " accepted, " + num(d, "rejected") + " rejected)";
    return t;
  }
  if (const std::string m = membership_words(a, d); !m.empty()) return m;
  const std::string m = str(d, "message");
  if (!m.empty()) return a + ": " + m;
  return a;
}

namespace {

std::string without_addresses(const std::string& s) {
  if (s.find('@') == std::string::npos) return s;
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] == ' ' || s[i] == '\n' || s[i] == '\t') {
      out += s[i++];
      continue;
    }
    std::size_t end = i;
    while (end < s.size() && s[end] != ' ' && s[end] != '\n' && s[end] != '\t') ++end;
    const std::string word = s.substr(i, end - i);
    out += word.find('@') == std::string::npos ? word : std::string(kAddressWithheld);
    i = end;
  }
  return out;
}

void withhold_addresses(Json& j) {
  if (j.is_string()) {
    j = without_addresses(j.get<std::string>());
  } else if (j.is_structured()) {
    for (auto& x : j) withhold_addresses(x);
  }
}

}  // namespace

AuditEntry public_audit_entry(AuditEntry e) {
  e.actor = without_addresses(e.actor);
  withhold_addresses(e.detail);
  return e;
}

}  // namespace adj
