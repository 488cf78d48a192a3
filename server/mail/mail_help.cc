#include "server/mail/mail_help.h"

#include <algorithm>

namespace adj::mail {

namespace {

constexpr std::size_t kMaxListedAreas = 40;  // a large position is listed in part
constexpr std::size_t kMaxNeighbours = 12;

std::string kind_word(AreaKind k) {
  switch (k) {
    case AreaKind::kCity:
      return "city";
    case AreaKind::kSea:
      return "sea";
    case AreaKind::kLand:
      break;
  }
  return "land";
}

bool land_or_city(const Area& a) { return a.kind != AreaKind::kSea; }

// The first neighbour of `a` that is not sea, preferring one not owned by `owner` (an attack),
// else any ("" for none).
std::string pick_neighbour(const GameState& st, const Area& a, const std::string& owner,
                           bool want_foreign) {
  std::string any;
  for (const std::string& n : st.neighbours(a.code)) {
    const Area* b = st.find_area(n);
    if (!b || !land_or_city(*b)) continue;
    const bool foreign = b->owner.value_or("") != owner;
    if (want_foreign == foreign) return n;
    if (any.empty()) any = n;
  }
  return any;
}

std::string examples(const GameState& st, const std::string& player) {
  // A land area to act from: the player's own with the most armies, else the first land area
  // with a land neighbour.
  const Area* from = nullptr;
  for (const Area& a : st.areas) {
    if (a.kind != AreaKind::kLand || st.neighbours(a.code).empty()) continue;
    if (!player.empty()) {
      if (a.owner.value_or("") != player) continue;
      if (!from || a.armies > from->armies) from = &a;
    } else if (!from) {
      from = &a;
    }
  }
  if (!from) return {};
  const std::string owner = player.empty() ? from->owner.value_or("") : player;
  const std::string enemy = pick_neighbour(st, *from, owner, true);
  const std::string friendly = pick_neighbour(st, *from, owner, false);
  std::string out =
      "Examples" + std::string(player.empty() ? " on this map" : " from your position") + ":\n";
  const auto line = [&out](const std::string& order, const std::string& meaning) {
    out +=
        "  " + order + std::string(order.size() < 24 ? 24 - order.size() : 1, ' ') + meaning + "\n";
  };
  const std::string target = enemy.empty() ? friendly : enemy;
  if (!target.empty()) {
    line("MOVE " + from->code + " " + target + " 2",
         "move two armies from " + from->code + " to " + target);
    line("ASSAULT " + from->code + " " + target + " AB-1",
         "attack " + target + " with all armies but one");
    line("AMBUSH " + from->code + " " + target, "ambush attackers coming from " + target);
  }
  line("LEVY " + from->code + " 1", "raise one army in " + from->code);
  line("DEFEND " + from->code, "defend " + from->code + " instead of retreating");
  line("ORDER 3", "bid 3 BPs for next turn's order of play");
  for (const Player& p : st.players)
    if (p.code != owner) {
      line("GIFT " + p.code + " 2", "give 2 BPs to " + (p.name.empty() ? p.code : p.name));
      break;
    }
  return out;
}

// The combined-attack lines of the syntax: two land areas of `st` next to one land target,
// else placeholders.
std::string combined_example(const GameState* st) {
  if (st)
    for (const Area& t : st->areas) {
      if (!land_or_city(t)) continue;
      std::vector<std::string> from;
      for (const std::string& n : st->neighbours(t.code))
        if (const Area* a = st->find_area(n); a && land_or_city(*a) && from.size() < 2)
          from.push_back(n);
      if (from.size() == 2)
        return "  3. MOVE " + from[0] + " " + t.code + " 3\n  3. MOVE " + from[1] + " " + t.code +
               " AB-1\n";
    }
  return "  3. MOVE <area> <target> 3\n  3. MOVE <another area> <target> AB-1\n";
}

}  // namespace

std::string help_syntax(const GameState* st) {
  return "HOW TO WRITE ORDERS\n"
         "An order file is plain text: the header lines, then one action per line in the order\n"
         "you want them carried out, then END. Anything after END is ignored.\n"
         "\n"
         "  GAME <game-id>\n"
         "  PLAYER <your code> <your secret>\n"
         "  TURN <n>                 (optional: the turn open for orders)\n"
         "  1. <action>\n"
         "  2. <action>\n"
         "  END\n"
         "\n"
         "Actions (areas are written by their codes):\n"
         "  MOVE    <from> <to> [<n> | AB-<n>]   move armies to an adjacent area\n"
         "  ASSAULT <from> <to> [<n> | AB-<n>]   attack until one side is wiped out\n"
         "  PROBE   <from> <to> [<n> | AB-<n>]   a cautious attack (not against cities)\n"
         "  OVERRUN <from> <to> [<n> | AB-<n>]   sweep a weak defender aside (not cities)\n"
         "  AMBUSH  <where> <against>            ambush attackers from an adjacent area\n"
         "  RETREAT <from> [<to>]                retreat when attacked (to an adjacent land)\n"
         "  DEFEND  <where>                      stand and defend when attacked\n"
         "  LEVY    <where> [<n>]                raise n armies (1 when blank)\n"
         "  ORDER   [<bps>]                      bid BPs for next turn's order of play\n"
         "  GIFT    <kingdom> <bps>              give BPs to another kingdom\n"
         "  MIGRATE <from> <to> <n>              move n people between your adjacent areas\n"
         "Number of armies: blank = all of them, n = exactly n, AB-n = all but n.\n"
         "Combined attack: lines with the same action number, the same attack and the same\n"
         "target, each from another area, fight one battle together:\n" +
         combined_example(st) +
         "Each line gets its own answer; a rejected line never stops the others. A new file\n"
         "for the same turn replaces the one on file. Lines starting with # are comments.\n";
}

std::string help_for_game(const GameState& st, const std::string& player,
                          std::string_view engine_help) {
  const std::string name = st.name.empty() ? st.game_id : st.name;
  std::string out = "GAME " + st.game_id + ": " + name + ", " + st.engine.name + " rules, turn " +
                    std::to_string(st.turn) + " is open for orders.\n\n";
  if (!engine_help.empty()) out += "Options of these rules:\n" + std::string(engine_help) + "\n\n";
  if (!player.empty()) {
    const Player* p = st.find_player(player);
    out += "YOUR AREAS (" + player + (p && !p->name.empty() ? ", " + p->name : "") +
           ") and their neighbours:\n";
    std::size_t listed = 0, owned = 0;
    for (const Area& a : st.areas) {
      if (a.owner.value_or("") != player) continue;
      ++owned;
      if (listed == kMaxListedAreas) continue;
      ++listed;
      out += "  " + a.code + " " + a.name + " (" + kind_word(a.kind) + ", " +
             std::to_string(a.armies) + (a.armies == 1 ? " army" : " armies") + "): ";
      const std::vector<std::string> ns = st.neighbours(a.code);
      for (std::size_t i = 0; i < ns.size() && i < kMaxNeighbours; ++i)
        out += (i ? " " : "") + ns[i];
      if (ns.size() > kMaxNeighbours) out += " ...";
      out += "\n";
    }
    if (owned == 0) out += "  (none: you hold no areas this turn)\n";
    if (owned > listed)
      out += "  ... and " + std::to_string(owned - listed) + " more (see your report)\n";
    out += "\n";
  }
  out += examples(st, player);
  if (player.empty())
    out +=
        "\nSend HELP with your GAME and PLAYER lines for your own areas and examples from\n"
        "your position.\n";
  return out;
}

}  // namespace adj::mail
