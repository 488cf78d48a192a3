#include "rules/orders/validator.h"

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

#include "base/ascii.h"
#include "rules/combat/combat_engine.h"
#include "rules/game/victory.h"
#include "rules/orders/suggest.h"

namespace adj {

namespace {

constexpr std::string_view kMask = "********";

using ascii::iequals;
using ascii::upper;

// Compares without stopping at the first difference, so timing says nothing about the secret.
bool same_secret(std::string_view given, std::string_view real) {
  unsigned diff = given.size() == real.size() ? 0u : 1u;
  for (std::size_t i = 0; i < given.size(); ++i)
    diff |= static_cast<unsigned char>(given[i]) ^
            static_cast<unsigned char>(i < real.size() ? real[i] : '\0');
  return diff == 0;
}

std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

const char* kind_name(Quantity::Kind k) {
  switch (k) {
    case Quantity::Kind::kAll:
      return "all";
    case Quantity::Kind::kExact:
      return "exact";
    case Quantity::Kind::kAllBut:
      return "all_but";
  }
  return "all";
}

std::string pad_left(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string pad_right(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// RAID and INVADE (docs/rules/dark-age.md §1.8) exist only under rules that play the Dark Age
// rulebook's own actions; INVADE only for the Gaelic kingdoms (DA13 5.15), by the player's nation.
std::string dark_age_action_reason(const Order& o, const Player& p, const GameState& state,
                                   const CombatEngine* engine) {
  const std::string verb = verb_name(o.verb);
  if (!engine || !engine->dark_age_actions())
    return verb + " is a Dark Age action, not part of this game's rules" +
           (engine ? " (" + std::string(engine->name()) + ")" : std::string());
  if (o.verb == Verb::kInvade && !state.rules.is_gaelic(p.nation)) {
    std::string nations;
    for (const std::string& n : state.rules.gaelic_nations)
      nations += (nations.empty() ? "" : ", ") + n;
    return "only the Gaelic kingdoms (" + nations + ") may INVADE; " + p.code + " is " +
           (p.nation.empty() ? std::string("of no nation") : p.nation);
  }
  return {};
}

}  // namespace

int OrderAck::accepted_count() const {
  return static_cast<int>(
      std::count_if(lines.begin(), lines.end(), [](const LineResult& l) { return l.accepted; }));
}

int OrderAck::rejected_count() const { return static_cast<int>(lines.size()) - accepted_count(); }

FileReferences references_of(const ParsedOrderFile& parsed) {
  FileReferences r;
  if (parsed.player) r.players.push_back(*parsed.player);
  for (const Order& o : parsed.orders) {
    if (o.verb == Verb::kGift) {
      r.players.push_back(o.to);
      continue;
    }
    if (!o.from.empty()) r.areas.push_back(o.from);
    if (!o.to.empty()) r.areas.push_back(o.to);
  }
  for (auto* v : {&r.players, &r.areas}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  return r;
}

std::string check_order_against_map(const Order& o, const GameState& state,
                                    const std::vector<Area>* suggest_from) {
  const std::vector<Area>& all_areas = suggest_from ? *suggest_from : state.areas;
  if (o.verb == Verb::kGift) {
    if (!state.find_player(o.to)) return "there is no kingdom " + in_quotes(o.to) + " in this game";
    if (o.qty.n <= 0) return "GIFT needs a number of BPs above 0";
    return {};
  }
  const Area* from = state.find_area(o.from);
  if (o.verb != Verb::kOrder && !from)
    return "unknown area " + in_quotes(o.from) + did_you_mean(o.from, all_areas);
  const Area* to = nullptr;
  if (!o.to.empty()) {
    to = state.find_area(o.to);
    if (!to) return "unknown area " + in_quotes(o.to) + did_you_mean(o.to, all_areas);
  }
  const auto not_adjacent = [&] { return o.from + " and " + o.to + " are not adjacent"; };

  switch (o.verb) {
    case Verb::kMove:
    case Verb::kAssault:
    case Verb::kProbe:
    case Verb::kOverrun: {
      if (!to) return std::string(verb_name(o.verb)) + " needs <from> <to> [<n> | AB-<n>]";
      if (o.from == o.to)
        return std::string(verb_name(o.verb)) + " needs two different areas (" + o.from + " twice)";
      if (from->kind == AreaKind::kSea)
        return "armies cannot leave the sea area " + o.from + " (this game has no ships)";
      if (to->kind == AreaKind::kSea)
        return "armies cannot enter the sea area " + o.to + " (this game has no ships)";
      if (!state.adjacent(o.from, o.to)) return not_adjacent();
      if ((o.verb == Verb::kProbe || o.verb == Verb::kOverrun) && to->kind == AreaKind::kCity)
        return std::string(verb_name(o.verb)) + " is not allowed against a city (" + o.to + ")";
      return {};
    }
    case Verb::kAmbush:
      if (!to) return "AMBUSH needs <where> <against>";
      if (from->kind == AreaKind::kCity)
        return "you cannot set an ambush in a city (" + o.from + ")";
      if (from->kind == AreaKind::kSea) return "you cannot set an ambush at sea (" + o.from + ")";
      if (!state.adjacent(o.from, o.to)) return not_adjacent();
      return {};
    case Verb::kRetreat:
      if (from->kind == AreaKind::kCity)
        return "you cannot set a retreat in a city (" + o.from + ")";
      if (from->kind == AreaKind::kSea) return "you cannot set a retreat at sea (" + o.from + ")";
      if (!to) return {};
      if (o.from == o.to) return "an area cannot retreat into itself (" + o.from + ")";
      if (to->kind != AreaKind::kLand)
        return "the retreat location must be a land area (" + o.to + " is " +
               (to->kind == AreaKind::kCity ? "a city" : "at sea") + ")";
      if (!state.adjacent(o.from, o.to)) return not_adjacent();
      return {};
    case Verb::kDefend:
      if (from->kind == AreaKind::kSea) return "you cannot defend a sea area (" + o.from + ")";
      return {};
    case Verb::kLevy:
      if (from->kind == AreaKind::kSea) return "you cannot levy armies at sea (" + o.from + ")";
      if (o.qty.kind == Quantity::Kind::kAllBut) return "LEVY needs <where> [<n>]";
      return {};
    case Verb::kOrder:
      if (o.qty.kind == Quantity::Kind::kAllBut || o.qty.n < 0) return "ORDER needs [<bps>]";
      return {};
    case Verb::kGift:
      return {};  // checked above
    case Verb::kSupport:
      if (!to) return "SUPPORT needs <where> <to>";
      if (o.from == o.to) return "an area cannot support itself (" + o.from + ")";
      if (from->kind == AreaKind::kSea || to->kind == AreaKind::kSea)
        return "there is no support to or from the sea (" +
               (from->kind == AreaKind::kSea ? o.from : o.to) + ")";
      if (!state.adjacent(o.from, o.to)) return not_adjacent();
      return {};
    case Verb::kRaid:
    case Verb::kInvade: {
      const std::string verb = verb_name(o.verb);
      if (!to)
        return o.verb == Verb::kRaid ? "RAID needs <from> <to> [<n> | AB-<n>]"
                                     : "INVADE needs <from> <to> [-]";
      if (o.from == o.to) return verb + " needs two different areas (" + o.from + " twice)";
      if (from->kind == AreaKind::kSea)
        return "armies cannot leave the sea area " + o.from + " (this game has no ships)";
      if (to->kind == AreaKind::kSea)
        return "armies cannot enter the sea area " + o.to + " (this game has no ships)";
      if (!state.adjacent(o.from, o.to)) return not_adjacent();
      if (to->kind == AreaKind::kCity)
        return verb + " is not allowed against a city (" + o.to + ")";
      return {};
    }
    case Verb::kMigrate:
      if (!to) return "MIGRATE needs <from> <to> <n>";
      if (o.from == o.to) return "MIGRATE needs two different areas (" + o.from + " twice)";
      if (from->kind == AreaKind::kSea || to->kind == AreaKind::kSea)
        return "population cannot migrate to or from the sea (" +
               (from->kind == AreaKind::kSea ? o.from : o.to) + ")";
      if (!state.adjacent(o.from, o.to)) return not_adjacent();
      if (o.qty.n <= 0) return "MIGRATE needs a number of people above 0";
      return {};
  }
  return {};
}

OrderAck check_order_file(std::string_view text, const GameState& state,
                          const CombatEngine* engine) {
  return check_order_file(text, state, engine,
                          [&state](const std::string& code, std::string_view given) {
                            const Player* p = state.find_player(code);
                            return p && !p->secret.empty() && same_secret(given, p->secret);
                          });
}

std::string order_legality(const Order& o, const Player& player, const GameState& state,
                           const CombatEngine* engine, const std::vector<Area>* suggest_from) {
  std::string reason = check_order_against_map(o, state, suggest_from);
  if (reason.empty() && o.verb == Verb::kGift && o.to == player.code)
    reason = "you cannot give BPs to yourself";
  if (reason.empty() && (o.verb == Verb::kRaid || o.verb == Verb::kInvade))
    reason = dark_age_action_reason(o, player, state, engine);
  if (reason.empty() && o.verb == Verb::kSupport && (!engine || !engine->accepts_support()))
    reason = "SUPPORT is not part of this game's rules" +
             (engine ? " (" + std::string(engine->name()) + ")" : std::string());
  if (reason.empty() && engine) {
    try {
      Status st = engine->check_order(o, state);
      if (!st.ok())
        reason = st.message().empty() ? "not allowed by this game's rules" : st.message();
    } catch (const std::exception& e) {
      reason = std::string("internal error checking this order: ") + e.what();
    } catch (...) {
      reason = "internal error checking this order";
    }
  }
  return reason;
}

OrderAck check_order_file(std::string_view text, const GameState& state, const CombatEngine* engine,
                          const SecretCheck& check, const std::vector<Area>* suggest_from) {
  ParsedOrderFile parsed = parse_order_file(text, state.rules.actions_per_turn);
  OrderAck ack;
  ack.game = parsed.game.value_or("");
  ack.player = parsed.player.value_or("");
  ack.turn = state.turn;
  ack.lines = std::move(parsed.lines);

  const Player* player = parsed.player ? state.find_player(*parsed.player) : nullptr;
  std::string refusal;
  if (!parsed.fatal.empty()) {
    for (const std::string& f : parsed.fatal) {
      if (!refusal.empty()) refusal += "; ";
      refusal += f;
    }
  } else if (!parsed.game) {
    refusal = "the file has no GAME line (GAME <game-id>)";
  } else if (!iequals(*parsed.game, state.game_id)) {
    refusal = "this file is for game " + *parsed.game + ", not " + state.game_id;
  } else if (!parsed.player || !parsed.secret) {
    refusal = "the file has no PLAYER line (PLAYER <player-code> <secret>)";
  } else if (!player) {
    refusal = "there is no player " + *parsed.player + " in game " + state.game_id;
  } else if (!check(player->code, *parsed.secret)) {
    refusal = "the secret for player " + player->code + " is wrong";
  } else if (parsed.turn && *parsed.turn != state.turn) {
    refusal = "orders are for turn " + std::to_string(*parsed.turn) + "; turn " +
              std::to_string(state.turn) + " is open";
  }

  if (!refusal.empty()) {
    ack.refused = true;
    ack.refusal = std::move(refusal);
    for (LineResult& l : ack.lines) {
      l.accepted = false;
      l.reason = "not checked: the whole file was refused";
    }
  } else {
    // parsed.orders holds one order per accepted line, in file order.
    std::size_t next = 0;
    ack.orders.reserve(parsed.orders.size());
    for (LineResult& l : ack.lines) {
      if (!l.accepted) continue;
      if (next >= parsed.orders.size() || parsed.orders[next].line != l.line) {
        l.accepted = false;
        l.reason = "internal error: this line was not parsed";
        continue;
      }
      Order& o = parsed.orders[next++];
      std::string reason;
      if (engine && !engine->combined_attacks() && !ack.orders.empty() &&
          ack.orders.back().action == o.action)
        reason = "this game's rules (" + std::string(engine->name()) +
                 ") do not combine attacks: give this line its own action number";
      if (reason.empty()) reason = order_legality(o, *player, state, engine, suggest_from);
      if (!reason.empty()) {
        l.accepted = false;
        l.reason = std::move(reason);
      } else {
        ack.orders.push_back(std::move(o));
      }
    }
    std::stable_sort(ack.orders.begin(), ack.orders.end(),
                     [](const Order& a, const Order& b) { return a.action < b.action; });
  }
  if (parsed.draw_line) {
    LineResult draw{*parsed.draw_line, std::nullopt, "DRAW", false, {}};
    if (ack.refused)
      draw.reason = "not checked: the whole file was refused";
    else if (!victory_of(state).draw)
      draw.reason = "this game does not allow draws (see its victory conditions); remove DRAW";
    else
      draw.accepted = ack.draw = true;
    const auto at = std::find_if(ack.lines.begin(), ack.lines.end(),
                                 [&](const LineResult& l) { return l.line > draw.line; });
    ack.lines.insert(at, std::move(draw));
  }

  // Nothing in the acknowledgement depends on the real secret (it is only compared above), and
  // the PLAYER line is not among ack.lines: render_ack_text echoes it with the secret field
  // masked. Other text is echoed exactly as the sender wrote it.
  return ack;
}

nlohmann::json to_json(const OrderAck& ack) {
  nlohmann::json lines = nlohmann::json::array();
  for (const LineResult& l : ack.lines) {
    nlohmann::json j = {{"line", l.line},
                        {"action", l.action ? nlohmann::json(*l.action) : nlohmann::json()},
                        {"text", l.text},
                        {"accepted", l.accepted}};
    if (!l.accepted) j["reason"] = l.reason;
    lines.push_back(std::move(j));
  }
  nlohmann::json orders = nlohmann::json::array();
  for (const Order& o : ack.orders) {
    nlohmann::json j = {{"line", o.line},
                        {"action", o.action},
                        {"verb", verb_name(o.verb)},
                        {"from", o.from},
                        {"to", o.to},
                        {"qty", {{"kind", kind_name(o.qty.kind)}, {"n", o.qty.n}}},
                        {"extras", nlohmann::json::object()},
                        {"text", o.text}};
    for (const auto& [k, v] : o.extras) j["extras"][k] = v;
    orders.push_back(std::move(j));
  }
  nlohmann::json j = {{"refused", ack.refused},
                      {"game", ack.game},
                      {"player", ack.player},
                      {"turn", ack.turn},
                      {"accepted", ack.accepted_count()},
                      {"rejected", ack.rejected_count()},
                      {"lines", std::move(lines)},
                      {"orders", std::move(orders)}};
  if (ack.refused) j["refusal"] = ack.refusal;
  if (ack.draw) j["draw"] = true;
  return j;
}

Result<OrderAck> ack_from_json(const nlohmann::json& j) {
  try {
    if (!j.is_object()) return Status::Corruption("order acknowledgement: not a JSON object");
    OrderAck ack;
    ack.refused = j.at("refused").get<bool>();
    if (ack.refused) ack.refusal = j.at("refusal").get<std::string>();
    ack.game = j.at("game").get<std::string>();
    ack.player = j.at("player").get<std::string>();
    ack.turn = j.at("turn").get<int>();
    ack.draw = j.value("draw", false);
    for (const auto& l : j.at("lines")) {
      LineResult r;
      r.line = l.at("line").get<int>();
      if (!l.at("action").is_null()) r.action = l.at("action").get<int>();
      r.text = l.at("text").get<std::string>();
      r.accepted = l.at("accepted").get<bool>();
      if (!r.accepted) r.reason = l.at("reason").get<std::string>();
      ack.lines.push_back(std::move(r));
    }
    for (const auto& oj : j.at("orders")) {
      Order o;
      o.line = oj.at("line").get<int>();
      o.action = oj.at("action").get<int>();
      const std::string verb = oj.at("verb").get<std::string>();
      std::optional<Verb> v = verb_from_name(verb);
      if (!v) return Status::Corruption("order acknowledgement: unknown verb " + in_quotes(verb));
      o.verb = *v;
      o.from = oj.at("from").get<std::string>();
      o.to = oj.at("to").get<std::string>();
      const std::string kind = oj.at("qty").at("kind").get<std::string>();
      if (kind == "all")
        o.qty.kind = Quantity::Kind::kAll;
      else if (kind == "exact")
        o.qty.kind = Quantity::Kind::kExact;
      else if (kind == "all_but")
        o.qty.kind = Quantity::Kind::kAllBut;
      else
        return Status::Corruption("order acknowledgement: unknown quantity kind " +
                                  in_quotes(kind));
      o.qty.n = oj.at("qty").at("n").get<int>();
      for (const auto& [k, v2] : oj.at("extras").items()) o.extras[k] = v2.get<int>();
      o.text = oj.at("text").get<std::string>();
      ack.orders.push_back(std::move(o));
    }
    return ack;
  } catch (const std::exception& e) {
    return Status::Corruption(std::string("order acknowledgement does not parse: ") + e.what());
  }
}

std::string render_ack_text(const OrderAck& ack) {
  // Blocks separated by one blank line: heading, header echo, order lines, outcome, counts.
  std::vector<std::string> blocks;
  std::string heading = "Orders";
  if (!ack.game.empty()) heading += " for game " + ack.game;
  if (!ack.refused)
    heading += (ack.game.empty() ? " for turn " : ", turn ") + std::to_string(ack.turn);
  if (!ack.player.empty()) heading += ", player " + ack.player;
  blocks.push_back(heading + "\n");

  std::string echo;
  if (!ack.game.empty()) echo += "GAME " + ack.game + "\n";
  if (!ack.player.empty()) echo += "PLAYER " + ack.player + " " + std::string(kMask) + "\n";
  if (!echo.empty()) blocks.push_back(std::move(echo));

  if (!ack.lines.empty()) {
    std::string table = ack.refused ? "line  action  order\n" : "line  action  result    order\n";
    for (const LineResult& l : ack.lines) {
      table += pad_left(std::to_string(l.line), 4) + "  ";
      table += pad_left(l.action ? std::to_string(*l.action) : "-", 6) + "  ";
      if (!ack.refused) table += pad_right(l.accepted ? "ok" : "rejected", 8) + "  ";
      table += l.text + "\n";
    }
    blocks.push_back(std::move(table));
  }

  if (ack.refused) {
    blocks.push_back("Refused: " + ack.refusal + "\n");
  } else {
    std::string reasons;
    for (const LineResult& l : ack.lines)
      if (!l.accepted) reasons += "line " + std::to_string(l.line) + ": " + l.reason + "\n";
    if (!reasons.empty()) blocks.push_back(std::move(reasons));
    if (ack.draw)
      blocks.push_back(
          "DRAW: you propose a draw. The game ends in a draw when every surviving "
          "kingdom's orders for turn " +
          std::to_string(ack.turn) +
          " say DRAW; send your orders again without DRAW to withdraw it.\n");
    blocks.push_back(std::to_string(ack.accepted_count()) + " accepted, " +
                     std::to_string(ack.rejected_count()) + " rejected\n");
  }

  return ascii::joined(blocks, '\n');
}

}  // namespace adj
