// PRESS blocks in mail (server/app/press.h has the rules):
//
//   PRESS TO WSX,MRC [ANONYMOUS]      (codes or kingdom names, comma-separated; or ALL)
//   <the message, any number of lines>
//   ENDPRESS
//
// in an orders mail or alone, signed with the GAME and PLAYER lines like orders. The blocks are
// taken out of the text before the orders are checked (their lines become blank, so the order
// lines keep their numbers and a press line never counts as a rejected order). Several blocks
// per mail; at most kMaxPressBlocks are sent, the rest answered as refused.
// Pure functions except send_press_blocks (which calls Press).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/app/press.h"

namespace adj::mail {

inline constexpr int kMaxPressBlocks = 20;

struct PressBlock {
  int line = 0;                 // 1-based line of the PRESS TO line
  std::vector<std::string> to;  // as written, split at commas
  bool anonymous = false;
  std::string body;
  std::string error;  // why the block cannot be sent as written ("" when it can)
};

struct PressExtract {
  std::string rest;  // the text with every block's lines blanked
  std::vector<PressBlock> blocks;
};

// The PRESS blocks of `text`. A line "PRESS" (any case) starts a block; a block without an
// ENDPRESS line runs to the end of the text and is refused (nothing of it is sent, nor read as
// orders).
PressExtract extract_press_blocks(std::string_view text);

// Sends each block as `player` of `game` (kGmPressCode: as the GM, Press::send_as_gm); `source` is
// "email:<message-id>" (the block number is appended, so processing a mail again sends nothing
// twice). Returns the answer's press part: a line per block saying what was sent to whom (an
// anonymous block's recipients are not named: the answer is in the GM-readable outbox), or why not.
// Only store errors are errors.
Result<std::string> send_press_blocks(Press& press, const std::string& game,
                                      const std::string& player,
                                      const std::vector<PressBlock>& blocks,
                                      const std::string& source, int* sent = nullptr);

}  // namespace adj::mail
