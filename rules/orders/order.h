// The order AST: what a player's order file says, independent of any game state. Data only.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace adj {

enum class Verb {
  kMove,
  kAssault,
  kProbe,
  kOverrun,
  kAmbush,
  kRetreat,
  kDefend,
  kLevy,
  kOrder,
  kGift,     // GIFT <kingdom> <bps> (seed 9.2)
  kMigrate,  // MIGRATE <from> <to> <n> (seed 5.14)
  kSupport,  // SUPPORT <where> <to>: only under rules whose engine accepts it (virtuti-militari)
  kRaid,     // RAID <from> <to> [<n> | AB-<n>] (Dark Age 5.10, docs/rules/dark-age.md §1.8)
  kInvade,   // INVADE <from> <to> [-]: Gaelic kingdoms only (Dark Age 5.15, docs/rules/dark-age.md
             // §1.8)
};

// "MOVE", "ASSAULT", ... (upper case, as written in order files).
const char* verb_name(Verb verb);
// True for the four verbs that move armies and may fight: MOVE, ASSAULT, PROBE, OVERRUN.
bool is_attack_verb(Verb verb);
// The verb named `name`, compared case-insensitively ("move", "Move", "MOVE"); nullopt if none.
std::optional<Verb> verb_from_name(std::string_view name);

// How many armies (or BPs / levies) an order asks for.
struct Quantity {
  enum class Kind {
    kAll,     // blank: "all but none" for moves; default amount for LEVY (1) and ORDER
    kExact,   // a number n: the action fails at run time if fewer are available (seed 5.1)
    kAllBut,  // AB-n: all but n, resolved when the action runs
  };
  Kind kind = Kind::kAll;
  int n = 0;

  bool operator==(const Quantity&) const = default;
};

struct Order {
  int line = 0;    // 1-based line number in the file
  int action = 0;  // action slot, 1..actions_per_turn
  Verb verb = Verb::kMove;
  // MOVE..OVERRUN, RAID, INVADE, MIGRATE: origin; AMBUSH/RETREAT/DEFEND/LEVY: the area; else ""
  std::string from;
  // MOVE..OVERRUN, RAID, INVADE, MIGRATE: target; AMBUSH: against; RETREAT: retreat location;
  // SUPPORT: the area whose battles are supported; GIFT: the receiving kingdom's code; else ""
  std::string to;
  Quantity qty;  // armies (MOVE..OVERRUN, RAID), levies (LEVY), BPs (ORDER, GIFT), people (MIGRATE)
  // Engine-specific keyword arguments after the quantity, e.g. "CARD 3 AIR 2" -> {CARD:3, AIR:2}.
  std::map<std::string, int> extras;
  std::string text;  // the order as written, trimmed, without its action number or comment

  bool operator==(const Order&) const = default;
};

// The outcome of checking one order line, for the player's acknowledgement.
struct LineResult {
  int line = 0;
  std::optional<int> action;  // the slot the line occupies, when known
  std::string text;
  bool accepted = false;
  std::string reason;  // why it was rejected; empty when accepted

  bool operator==(const LineResult&) const = default;
};

}  // namespace adj
