#include "storage/core/state_text.h"

#include <cstddef>

#include "rules/game/state_reader.h"
#include "storage/core/codec.h"

namespace adj {

namespace {

// The elements of the array starting at text[i] == '['; false if it is not a whole array.
bool split_array(std::string_view text, std::size_t i, std::size_t end,
                 std::vector<std::string_view>& out) {
  if (text[i] != '[') return false;
  ++i;
  if (i < end && text[i] == ']') return i + 1 == end;
  while (i < end) {
    const std::size_t n = json_value_length(text.substr(i)), next = i + n;
    if (n == 0 || next >= end) return false;
    out.push_back(text.substr(i, next - i));
    if (text[next] == ']') return next + 1 == end;
    if (text[next] != ',') return false;
    i = next + 1;
  }
  return false;
}

}  // namespace

std::optional<StateTextParts> split_state_text(std::string_view text) {
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return std::nullopt;
  StateTextParts parts;
  bool players = false, areas = false, edges = false;
  std::size_t i = 1;
  while (i < text.size() - 1) {
    if (text[i] != '"') return std::nullopt;
    const std::size_t key_length = json_value_length(text.substr(i)), key_end = i + key_length;
    if (key_length == 0 || key_end >= text.size() || text[key_end] != ':') return std::nullopt;
    const std::string_view key = text.substr(i + 1, key_length - 2);
    const std::size_t value = key_end + 1;
    const std::size_t value_length = json_value_length(text.substr(value));
    const std::size_t value_end = value + value_length;
    if (value_length == 0 || value_end >= text.size()) return std::nullopt;
    std::vector<std::string_view>* into = nullptr;
    bool* seen = nullptr;
    if (key == "players") into = &parts.players, seen = &players;
    if (key == "areas") into = &parts.areas, seen = &areas;
    if (key == "adjacency") into = &parts.edges, seen = &edges;
    if (into) {
      if (*seen || !split_array(text, value, value_end, *into)) return std::nullopt;
      *seen = true;
    }
    if (text[value_end] == '}') {
      if (value_end != text.size() - 1) return std::nullopt;
      break;
    }
    if (text[value_end] != ',') return std::nullopt;
    i = value_end + 1;
  }
  if (!players || !areas || !edges) return std::nullopt;
  return parts;
}

Result<OpenStateTexts> open_state_texts(const GameState& state, std::string_view state_text,
                                        const std::string& where) {
  OpenStateTexts out;
  if (!state_text.empty()) {
    if (auto parts = split_state_text(state_text);
        parts && parts->players.size() == state.players.size() &&
        parts->areas.size() == state.areas.size() && parts->edges.size() == state.edges.size()) {
      static_cast<StateTextParts&>(out) = std::move(*parts);
      return out;
    }
  }
  // Reserved up front: the views below point into these strings, which must not move.
  out.owned.reserve(state.players.size() + state.areas.size() + state.edges.size());
  const auto add = [&](const Json& j, std::vector<std::string_view>& into) -> Status {
    ADJ_TRY(out.owned.emplace_back(), json_to_text(j, where));
    into.push_back(out.owned.back());
    return Status::Ok();
  };
  for (const Player& p : state.players) ADJ_RETURN_IF_ERROR(add(to_json(p), out.players));
  for (const Area& a : state.areas) ADJ_RETURN_IF_ERROR(add(to_json(a), out.areas));
  for (const Edge& e : state.edges) ADJ_RETURN_IF_ERROR(add(to_json(e), out.edges));
  return out;
}

}  // namespace adj
