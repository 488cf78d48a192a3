#include "rules/orders/suggest.h"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace adj {

namespace {

char fold(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }

bool starts_with_folded(std::string_view s, std::string_view prefix) {
  if (prefix.size() > s.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (fold(s[i]) != fold(prefix[i])) return false;
  return true;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit) {
  const std::size_t gap = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (gap > limit) return limit + 1;
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    std::size_t row_min = cur[0];
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > limit) return limit + 1;
    std::swap(prev, cur);
  }
  return std::min(prev[b.size()], limit + 1);
}

std::vector<std::string> nearest_area_codes(std::string_view word, const GameState& state,
                                            std::size_t max) {
  return nearest_area_codes(word, state.areas, max);
}

std::vector<std::string> nearest_area_codes(std::string_view word, const std::vector<Area>& areas,
                                            std::size_t max) {
  if (word.empty() || word.size() > kMaxSuggestInput || max == 0) return {};
  std::vector<std::tuple<std::size_t, std::string>> found;  // (distance, code)
  for (const Area& a : areas) {
    const std::size_t code_limit = a.code.size() >= 5 ? 2 : 1;
    std::size_t d = edit_distance(word, a.code, code_limit);
    if (d > code_limit) d = code_limit + 1;
    std::size_t best = d <= code_limit ? d : 99;
    if (!a.name.empty() && a.name.size() <= 4 * kMaxSuggestInput) {
      // Short names are codes in all but name: only a close match of a longer name counts.
      const std::size_t name_limit = a.name.size() >= 8 ? 2 : a.name.size() >= 5 ? 1 : 0;
      const std::size_t nd = edit_distance(word, a.name, name_limit);
      if (nd <= name_limit) best = std::min(best, nd);
      if (word.size() >= 3 && starts_with_folded(a.name, word))
        best = std::min<std::size_t>(best, 1);
    }
    if (best != 99) found.emplace_back(best, a.code);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (const auto& [d, code] : found) {
    if (out.size() == max) break;
    out.push_back(code);
  }
  return out;
}

std::string did_you_mean(std::string_view word, const GameState& state) {
  return did_you_mean(word, state.areas);
}

std::string did_you_mean(std::string_view word, const std::vector<Area>& areas) {
  const std::vector<std::string> codes = nearest_area_codes(word, areas);
  if (codes.empty()) return {};
  std::string out = "; did you mean ";
  for (std::size_t i = 0; i < codes.size(); ++i) {
    if (i > 0) out += i + 1 == codes.size() ? " or " : ", ";
    out += codes[i];
  }
  return out + "?";
}

}  // namespace adj
