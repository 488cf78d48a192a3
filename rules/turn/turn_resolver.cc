#include "rules/turn/turn_resolver.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "rules/turn/turn_run.h"
#include "rules/turn/turn_text.h"

namespace adj {

Seed turn_seed(Seed game_seed, int turn) {
  return derive_seed(game_seed, "turn:" + std::to_string(turn));
}

namespace turn_detail {

Result<TurnResult> TurnRun::run() {
  draw_order_of_play();
  // Each player's orders (in the order of play) with their positions sorted by action, stably:
  // an action's lines are then visited in their list order, as a scan of the whole list per
  // action would, without looking the player up and scanning every line for every action.
  struct Book {
    const std::string* code;
    const std::vector<Order>* list;
    std::vector<std::uint32_t> by_action;
    std::size_t next = 0;  // first entry of by_action not yet behind the current action
  };
  std::vector<Book> books;
  books.reserve(result_.order_of_play.size());
  for (const auto& code : result_.order_of_play) {
    auto it = orders_.find(code);
    if (it == orders_.end()) continue;
    Book b{&code, &it->second, {}, 0};
    b.by_action.resize(it->second.size());
    for (std::uint32_t i = 0; i < b.by_action.size(); ++i) b.by_action[i] = i;
    std::stable_sort(b.by_action.begin(), b.by_action.end(), [&](std::uint32_t x, std::uint32_t y) {
      return (*b.list)[x].action < (*b.list)[y].action;
    });
    books.push_back(std::move(b));
  }
  const int n = s_.rules.actions_per_turn;
  for (int slot = 1; slot <= n; ++slot) {
    if (slot == 1 || phase_.scope == CombatPhaseRules::Scope::kActionRound) {
      attacked_.clear();
      spent_.clear();
    }
    for (Book& b : books) {
      const std::string& code = *b.code;
      const std::vector<Order>& list = *b.list;
      while (b.next < b.by_action.size() && list[b.by_action[b.next]].action < slot) ++b.next;
      std::size_t taken = 0;  // list positions below this were taken by a combined attack
      for (; b.next < b.by_action.size() && list[b.by_action[b.next]].action == slot; ++b.next) {
        std::size_t i = b.by_action[b.next];
        if (i < taken) continue;
        const Order& o = list[i];
        if (!done_.empty() && done_.count({code, o.line})) continue;
        if (!is_attack_verb(o.verb)) {
          execute(code, o);
          continue;
        }
        // A combined attack: the following lines of the same action (parser-checked to be the
        // same attack on the same area from other areas).
        std::vector<const Order*> lines = {&o};
        while (i + 1 < list.size() && list[i + 1].action == slot &&
               is_attack_verb(list[i + 1].verb))
          lines.push_back(&list[++i]);
        taken = i + 1;
        attack(*s_.find_player(code), lines);
      }
    }
  }
  close_sink();
  engine_.end_turn(s_);
  end_of_turn();
  s_.turn += 1;
  s_.order_of_play = result_.next_order_of_play;
  s_.normalise();
  result_.next_state = std::move(s_);
  if (!fatal_.ok()) return fatal_;  // a script engine failed: the turn is not used
  result_.digest = digest();
  return std::move(result_);
}

void TurnRun::draw_order_of_play() {
  std::vector<std::string> order = s_.order_of_play;
  // Keep only current players; add any missing ones in code order.
  std::erase_if(order, [&](const std::string& c) { return !s_.find_player(c); });
  const std::set<std::string> listed(order.begin(), order.end());
  for (const auto& p : s_.players)
    if (!listed.count(p.code)) order.push_back(p.code);
  if (s_.order_of_play.empty()) {
    // Turn 1 (or a game without one): a seeded random permutation (Fisher-Yates).
    Xoshiro256 rng(derive_seed(result_.seed, "order-of-play"));
    for (std::size_t i = order.size(); i > 1; --i)
      std::swap(order[i - 1], order[rng.uniform(static_cast<std::uint32_t>(i))]);
  }
  result_.order_of_play = order;
  s_.order_of_play = order;  // engines read this turn's order (Virtuti Militari ties)
  for (std::size_t i = 0; i < order.size(); ++i) order_position_.emplace(order[i], i);
}

void TurnRun::execute(const std::string& code, const Order& o) {
  ActionResult& r = begin(code, o);
  Player& p = *s_.find_player(code);
  switch (o.verb) {
    case Verb::kMove:
    case Verb::kAssault:
    case Verb::kProbe:
    case Verb::kOverrun:
      assert(false && "attacks are run by TurnRun::attack");
      break;
    case Verb::kAmbush:
      set_ambush(r, p, o);
      break;
    case Verb::kRetreat:
      set_retreat(r, p, o);
      break;
    case Verb::kDefend:
      set_defend(r, p, o);
      break;
    case Verb::kLevy:
      levy(r, p, o);
      break;
    case Verb::kOrder:
      bid(r, p, o);
      break;
    case Verb::kGift:
      gift(r, p, o);
      break;
    case Verb::kMigrate:
      migrate(r, p, o);
      break;
    case Verb::kSupport:
      set_support(r, p, o);
      break;
    case Verb::kRaid:
      raid(r, p, o);
      break;
    case Verb::kInvade:
      invade(r, p, o);
      break;
  }
}

void TurnRun::end_of_turn() {
  apply_end_of_turn(s_, result_.economy);
  // Next order of play: by BPs bid, highest first; ties keep the current order.
  std::vector<std::string> next = result_.order_of_play;
  std::stable_sort(next.begin(), next.end(), [&](const std::string& a, const std::string& b) {
    return result_.economy[a].bid > result_.economy[b].bid;
  });
  result_.next_order_of_play = next;
}

std::string TurnRun::digest() {
  // FNV-1a over the next state's dump followed by each action's, hashed piece by piece.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto hash = [&h](const std::string& text) {
    for (unsigned char c : text) {
      h ^= c;
      h *= 0x100000001b3ULL;
    }
  };
  // The same bytes as to_json(...).dump(), written without the trees (rules/turn/turn_text.h).
  result_.next_state_text.clear();
  json_text::state(result_.next_state_text, result_.next_state);
  result_.next_state_text.shrink_to_fit();  // kept until the commit
  hash(result_.next_state_text);
  std::string text;
  for (const auto& a : result_.actions) {
    text.clear();
    json_text::action(text, a);
    hash(text);
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace turn_detail

Result<TurnResult> resolve_turn(const GameState& state, const OrderBook& orders,
                                const CombatEngine& engine) {
  return resolve_turn(state, OrderBook(orders), engine);
}

Result<TurnResult> resolve_turn(const GameState& state, OrderBook&& orders,
                                const CombatEngine& engine) {
  return resolve_turn(state, std::move(orders), engine, nullptr);
}

Result<TurnResult> resolve_turn(const GameState& state, OrderBook&& orders,
                                const CombatEngine& engine, BattleSink* sink) {
  for (const auto& [code, list] : orders)
    if (!state.find_player(code)) {
      if (sink) sink->close();
      return Status::InvalidArgument("orders for unknown player " + code);
    }
  return turn_detail::TurnRun(state, std::move(orders), engine, sink).run();
}

}  // namespace adj
