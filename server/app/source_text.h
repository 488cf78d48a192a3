// How a stored order file's source is shown to players and the GM: the channel in words ("by
// mail", "on the web", ...), never the internal form ("email:<Message-ID>", "web", "api").
#pragma once

#include <string>

namespace adj {

inline std::string source_in_words(const std::string& source) {
  if (source.rfind("email:", 0) == 0) return "by mail";
  if (source == "web") return "on the web";
  if (source == "api") return "through the API";
  if (source == "cli") return "from the command line";
  if (source == "gm") return "entered by the game master";
  if (source == "demo") return "from the demo's order files";
  return "by another channel";
}

}  // namespace adj
