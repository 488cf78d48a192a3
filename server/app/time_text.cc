#include "server/app/time_text.h"

#include <ctime>

namespace adj {

std::string format_utc(UnixTime t, const char* format) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  char buf[64];
  if (!gmtime_r(&tt, &tm) || std::strftime(buf, sizeof buf, format, &tm) == 0)
    return std::to_string(t);
  return buf;
}

}  // namespace adj
