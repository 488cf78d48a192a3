// ASCII text helpers for every layer (rules, storage, services, web, mail): case folding,
// comparison and white space trimming, independent of the locale's notion of letters beyond
// ASCII. Bytes outside a-z / A-Z are never changed. Pure functions, thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace adj::ascii {

// `c` with a-z made A-Z (other bytes unchanged).
constexpr char upper(char c) {
  return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
}
// `c` with A-Z made a-z (other bytes unchanged).
constexpr char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
// ASCII white space: space, \t, \n, \v, \f, \r.
constexpr bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// `s` with a-z made A-Z (other bytes unchanged).
std::string upper(std::string s);
// `s` with A-Z made a-z (other bytes unchanged).
std::string lower(std::string s);
// `s` without ASCII white space at either end.
std::string trim(std::string_view s);
// The same, as a view into `s`.
std::string_view trim_view(std::string_view s);
// Whether `a` and `b` are equal ignoring ASCII case.
bool iequals(std::string_view a, std::string_view b);
// Whether `s` starts with `prefix`, ignoring ASCII case.
bool istarts_with(std::string_view s, std::string_view prefix);
// `n` and `noun`, the noun with an "s" unless n is 1: with_count(1, "line") == "1 line",
// with_count(0, "line") == "0 lines". For nouns whose plural is a plain "s".
std::string with_count(long long n, std::string_view noun);
// The words of `s`: its runs of bytes that are not is_space, in order.
std::vector<std::string> words(std::string_view s);
// The items joined by `sep`: a separator goes before each item once the text so far is not empty,
// so leading empty items leave nothing (joined({"", "a"}, ',') == "a").
std::string joined(const std::vector<std::string>& items, char sep);

}  // namespace adj::ascii
