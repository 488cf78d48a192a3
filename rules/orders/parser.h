// Order-file parsing: a pure function from text to an AST plus per-line diagnostics.
// It never looks at a game; checking against the game's map is validator.h's job.
// The grammar is specified in schemas/orders/grammar.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/orders/order.h"

namespace adj {

// Files larger than this are refused whole (they are not order files).
inline constexpr std::size_t kMaxOrderFileBytes = 256 * 1024;

struct ParsedOrderFile {
  // Header lines. Values are as written except codes, which are upper-cased.
  std::optional<std::string> game;  // GAME <game-id> (case preserved, compared case-insensitively)
  std::optional<std::string> player;  // PLAYER <code> <secret>
  std::optional<std::string> secret;
  std::optional<int> turn;  // TURN <n>
  // The line of "DRAW" (alone on its line, without an action number): the player proposes a
  // draw (rules/game/victory.h). Not an order: it is in neither `lines` nor `orders`; the
  // validator adds its result. The first such line when there are several.
  std::optional<int> draw_line;
  // Problems that make the whole file unusable (missing GAME line, file too large, ...).
  std::vector<std::string> fatal;

  // Every order line with its result; syntactically valid lines are accepted here and may still
  // be rejected by the validator. Header, comment and blank lines do not appear.
  std::vector<LineResult> lines;
  // The syntactically valid orders, in file order. orders[i].line matches an accepted lines[] row.
  std::vector<Order> orders;
};

// REQUIRES: nothing; any byte string is accepted and diagnosed. Never throws.
// actions_per_turn bounds explicit action numbers and the count of order lines.
ParsedOrderFile parse_order_file(std::string_view text, int actions_per_turn = 16);

// `text` with the secret of every PLAYER line (the words after the player code, up to a comment)
// replaced by "********"; every other byte as given. What is stored of an order file. Never throws.
std::string mask_player_secret(std::string_view text);

}  // namespace adj
