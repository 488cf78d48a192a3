// Unix times as text, in UTC, for pages, mail, the CLI and JSON. Pure (gmtime_r).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "storage/records.h"  // UnixTime

namespace adj {

// Seconds in a UTC day (Unix time has no leap seconds).
inline constexpr std::int64_t kDay = 86400;

// `t` through strftime with `format` (e.g. "%Y-%m-%d %H:%M UTC"); the number itself when it is
// out of range.
std::string format_utc(UnixTime t, const char* format);

// "2026-11-21 18:00 UTC": how people read a deadline or a time of day in pages and mail.
inline std::string utc_minutes(UnixTime t) { return format_utc(t, "%Y-%m-%d %H:%M UTC"); }
// "2026-11-21 18:00:07": tables of events (the outbox); "-" for 0 (never).
inline std::string utc_seconds_or_dash(UnixTime t) {
  return t == 0 ? std::string("-") : format_utc(t, "%Y-%m-%d %H:%M:%S");
}
// "2026-11-21T18:00:07Z" (ISO 8601), for JSON.
inline std::string utc_iso(UnixTime t) { return format_utc(t, "%Y-%m-%dT%H:%M:%SZ"); }

// What a player is told of the next deadline, one sentence: "Orders for turn 4 are due by
// 2026-12-01 18:00 UTC." or, without one, "No deadline is set for turn 4: the game master runs
// it by hand."
inline std::string deadline_sentence(int turn, const std::optional<UnixTime>& deadline) {
  const std::string t = std::to_string(turn);
  return deadline ? "Orders for turn " + t + " are due by " + utc_minutes(*deadline) + "."
                  : "No deadline is set for turn " + t + ": the game master runs it by hand.";
}

}  // namespace adj
