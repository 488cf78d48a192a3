#include "storage/core/codec.h"

#include <charconv>

#include "rules/game/state_reader.h"

namespace adj {

Result<std::string> json_to_text(const Json& j, std::string_view what) {
  try {
    return j.dump();
  } catch (const Json::exception& e) {
    return Status::InvalidArgument(std::string(what) + " cannot be stored as JSON: " + e.what());
  }
}

Result<Json> json_from_text(std::string_view text, std::string_view what) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Corruption(std::string(what) + " is not valid JSON");
  return j;
}

Result<std::uint64_t> seed_from_text(std::string_view text, std::string_view what) {
  std::uint64_t seed = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return Status::Corruption(std::string(what) + ": seed '" + std::string(text) +
                              "' is not an unsigned 64-bit number");
  return seed;
}

Result<GameState> state_from_text(std::string_view text, const std::string& game, int turn) {
  const std::string what = "state of game " + game + " turn " + std::to_string(turn);
  // The direct reader gives the tree's state for the canonical form; anything else goes
  // through the tree, which names the error.
  Result<GameState> state = Status::Internal("unread");
  if (std::optional<GameState> direct = read_state_direct(text)) {
    state = std::move(*direct);
  } else {
    ADJ_TRY(const Json j, json_from_text(text, what));
    state = state_from_json(j);
    if (!state.ok()) return Status::Corruption(what + ": " + state.status().message());
  }
  if (state->game_id != game || state->turn != turn)
    return Status::Corruption(what + " holds game " + state->game_id + " turn " +
                              std::to_string(state->turn));
  return state;
}

std::vector<std::string> lines_from_text(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto nl = text.find('\n', start);
    out.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

std::optional<std::string> without_orders_text(const TurnCommit& c) {
  if (c.without_orders) return Json(*c.without_orders).dump();
  if (const auto it = c.summary.find("players_without_orders"); it != c.summary.end()) {
    if (!it->is_array()) return std::nullopt;
    for (const Json& code : *it)
      if (!code.is_string()) return std::nullopt;
    return it->dump();
  }
  if (c.summary_text.empty()) return std::string("[]");
  return std::nullopt;
}

}  // namespace adj
