// ASCII string helpers shared by the services and the channels (web, mail): case folding and
// white space trimming, independent of the locale's notion of letters beyond ASCII.
#pragma once

#include <string>
#include <string_view>

namespace adj::ascii {

// `s` with a-z made A-Z (other bytes unchanged).
std::string upper(std::string s);
// `s` with A-Z made a-z (other bytes unchanged).
std::string lower(std::string s);
// `s` without ASCII white space (space, \t, \n, \v, \f, \r) at either end.
std::string trim(std::string_view s);

}  // namespace adj::ascii
