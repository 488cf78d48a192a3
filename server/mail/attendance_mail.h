// The attendance mail commands (server/app/attendance.h), recognised and answered for
// MailIngest (whose dispatch calls these; the rate limits, throttling and replies stay there):
//   STANDBY <game>                    the envelope sender goes on the game's standby list
//   TAKEOVER <game> <KINGDOM> <code>  the envelope sender takes the position over
//   ABSENCE <YYYY-MM-DD> <YYYY-MM-DD> a line of a signed mail (GAME and PLAYER lines)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/app/attendance.h"

namespace adj {
class AppRuntime;  // server/app/app_runtime.h
}  // namespace adj

namespace adj::mail {

struct AttendanceCommand {
  std::string name;               // "STANDBY", "TAKEOVER", "ABSENCE"
  std::vector<std::string> args;  // as written
};

// STANDBY or TAKEOVER as the whole of `line` (a first line or a subject); the words after the
// keyword are kept even when there are too few or too many (the answer says what is missing).
std::optional<AttendanceCommand> attendance_command_in(std::string_view line);
// "ABSENCE <from> <to>" on a line of its own in `text`.
std::optional<AttendanceCommand> absence_command_in(std::string_view text);

// The runtime's Attendance (always set) and a Replacer through its Membership, with `base_url`
// in their links. Use on the calling thread; `app` must outlive the Replacer.
struct AttendanceAccess {
  std::optional<Attendance> attendance;
  Replacer replace;
};
AttendanceAccess attendance_access(AppRuntime& app, const std::string& base_url);

// Texts of the answers (plain, without the signature).
std::string standby_usage();
std::string takeover_usage();
std::string absence_usage();

}  // namespace adj::mail
