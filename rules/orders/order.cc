#include "rules/orders/order.h"

#include "base/ascii.h"

namespace adj {

const char* verb_name(Verb verb) {
  switch (verb) {
    case Verb::kMove:
      return "MOVE";
    case Verb::kAssault:
      return "ASSAULT";
    case Verb::kProbe:
      return "PROBE";
    case Verb::kOverrun:
      return "OVERRUN";
    case Verb::kAmbush:
      return "AMBUSH";
    case Verb::kRetreat:
      return "RETREAT";
    case Verb::kDefend:
      return "DEFEND";
    case Verb::kLevy:
      return "LEVY";
    case Verb::kOrder:
      return "ORDER";
    case Verb::kGift:
      return "GIFT";
    case Verb::kMigrate:
      return "MIGRATE";
    case Verb::kSupport:
      return "SUPPORT";
    case Verb::kRaid:
      return "RAID";
    case Verb::kInvade:
      return "INVADE";
  }
  return "MOVE";
}

bool is_attack_verb(Verb verb) {
  return verb == Verb::kMove || verb == Verb::kAssault || verb == Verb::kProbe ||
         verb == Verb::kOverrun;
}

std::optional<Verb> verb_from_name(std::string_view name) {
  // Dispatch on length and first letter, then compare the rest.
  if (name.size() < 4 || name.size() > 7) return std::nullopt;
  Verb candidate;
  switch (ascii::upper(name[0])) {
    case 'M':
      candidate = name.size() == 4 ? Verb::kMove : Verb::kMigrate;
      break;
    case 'G':
      candidate = Verb::kGift;
      break;
    case 'P':
      candidate = Verb::kProbe;
      break;
    case 'S':
      candidate = Verb::kSupport;
      break;
    case 'D':
      candidate = Verb::kDefend;
      break;
    case 'L':
      candidate = Verb::kLevy;
      break;
    case 'R':
      candidate = name.size() == 4 ? Verb::kRaid : Verb::kRetreat;
      break;
    case 'I':
      candidate = Verb::kInvade;
      break;
    case 'O':
      candidate = name.size() == 5 ? Verb::kOrder : Verb::kOverrun;
      break;
    case 'A':
      candidate = name.size() == 6 ? Verb::kAmbush : Verb::kAssault;
      break;
    default:
      return std::nullopt;
  }
  const std::string_view want = verb_name(candidate);
  if (want.size() != name.size()) return std::nullopt;
  for (std::size_t i = 1; i < want.size(); ++i)
    if (ascii::upper(name[i]) != want[i]) return std::nullopt;
  return candidate;
}

}  // namespace adj
