#include "server/mail/attendance_mail.h"

#include <cctype>

#include "server/app/app_runtime.h"
#include "server/app/membership.h"
#include "server/mail/detail.h"
namespace adj::mail {

using detail::upper;
using detail::words;

std::optional<AttendanceCommand> attendance_command_in(std::string_view line) {
  std::vector<std::string> w = words(line);
  if (w.empty() || w.size() > 6) return std::nullopt;
  const std::string name = upper(w[0]);
  if (name != "STANDBY" && name != "TAKEOVER") return std::nullopt;
  return AttendanceCommand{name, std::vector<std::string>(w.begin() + 1, w.end())};
}

std::optional<AttendanceCommand> absence_command_in(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::vector<std::string> w = words(text.substr(start, end - start));
    if (!w.empty() && w.size() <= 4 && upper(w[0]) == "ABSENCE")
      return AttendanceCommand{"ABSENCE", std::vector<std::string>(w.begin() + 1, w.end())};
    start = end + 1;
  }
  return std::nullopt;
}

AttendanceAccess attendance_access(AppRuntime& app, const std::string& base_url) {
  AttendanceAccess out;
  out.attendance.emplace(app.attendance(base_url));
  out.replace = [&app, base_url](const std::string& game, const std::string& player,
                                 const std::string& email,
                                 const std::string& actor) -> Result<TakeoverOutcome> {
    auto r = app.membership(base_url).replace(game, player, email, "", actor);
    if (!r.ok()) return r.status();
    return TakeoverOutcome{game, r->player, r->email, r->secret};
  };
  return out;
}

std::string standby_usage() {
  return "To stand by for a game, send a message whose first line is\n\n  STANDBY <game-id>\n\n"
         "from the address that should get the takeover offers. The answer carries a "
         "confirmation code: you are on the list once you confirm it (CONFIRM <code>, or the "
         "link in it).\n";
}

std::string takeover_usage() {
  return "To take a position over, send a message whose first line is\n\n"
         "  TAKEOVER <game-id> <kingdom code> <takeover code>\n\n"
         "with the takeover code from your offer (or from the GM), from the address you will "
         "play from.\n";
}

std::string absence_usage() {
  return "To declare an absence, send\n\n  GAME <game-id>\n  PLAYER <code> <secret>\n"
         "  ABSENCE <first day> <last day>\n\nwith the days written YYYY-MM-DD (UTC).\n";
}

}  // namespace adj::mail
