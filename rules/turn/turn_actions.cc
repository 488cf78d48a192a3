// TurnRun: standing orders, levies, bids, gifts and migration (rules/turn/turn_run.h).
#include <algorithm>
#include <cassert>
#include <cmath>

#include "rules/turn/turn_run.h"

namespace adj::turn_detail {

Area* TurnRun::own_area(ActionResult& r, const Player& p, const std::string& code) {
  Area* a = s_.find_area(code);
  if (!a) return fail(r, "unknown area " + code), nullptr;
  if (!owns(p.code, *a)) return fail(r, "you do not own " + code), nullptr;
  return a;
}

void TurnRun::set_ambush(ActionResult& r, Player& p, const Order& o) {
  Area* a = own_area(r, p, o.from);
  if (!a || !pay(r, p, s_.rules.cost("AMBUSH"))) return;
  a->mode = DefenceMode::kAmbush;
  a->ambush_against = o.to;
  if (!o.extras.empty()) engine_.standing_order(o, *a, p);
  r.ok = true;
  r.message = "ambush set in " + a->code + " against " + o.to;
}

void TurnRun::set_retreat(ActionResult& r, Player& p, const Order& o) {
  Area* a = own_area(r, p, o.from);
  if (!a || !pay(r, p, s_.rules.cost("RETREAT"))) return;
  a->mode = DefenceMode::kRetreat;
  a->ambush_against.reset();
  if (!o.to.empty()) a->retreat_to = o.to;
  if (!o.extras.empty()) engine_.standing_order(o, *a, p);
  r.ok = true;
  r.message = "retreat set in " + a->code +
              (a->retreat_to ? " to " + *a->retreat_to : std::string(" (no retreat location)"));
}

void TurnRun::set_defend(ActionResult& r, Player& p, const Order& o) {
  Area* a = own_area(r, p, o.from);
  if (!a || !pay(r, p, s_.rules.cost("DEFEND"))) return;
  a->mode = DefenceMode::kDefend;
  a->ambush_against.reset();
  if (!o.extras.empty()) engine_.standing_order(o, *a, p);
  r.ok = true;
  r.message = a->code + " will defend";
}

void TurnRun::levy(ActionResult& r, Player& p, const Order& o) {
  Area* a = s_.find_area(o.from);
  if (!a) return fail(r, "unknown area " + o.from);
  const bool recapture =
      a->owner != p.code && a->armies == 0 && owned_at_start_[p.code].count(a->code) > 0;
  if (a->owner && a->owner != p.code && !recapture) return fail(r, "you do not own " + a->code);
  if (a->kind == AreaKind::kCity && blockaded(s_, *a))
    return fail(r, a->code + " is blockaded and cannot levy");
  if (a->population <= 0) return fail(r, a->code + " has no population to levy from");
  int n = o.qty.kind == Quantity::Kind::kExact ? o.qty.n : 1;
  if (n <= 0) return fail(r, "no armies to levy");
  const bool cut = n > a->population;
  n = std::min(n, a->population);
  if (!pay(r, p, n * s_.rules.cost("LEVY"))) return;
  engine_.merge_units(a->engine_state, a->armies, Json(), n);
  a->armies += n;
  if (recapture) a->owner = p.code;
  r.ok = true;
  r.message = "levied " + armies(n) + " in " + a->code;
  if (cut) r.message += " (cut to its population)";
  if (!a->owner) r.message += " (the area stays unowned)";
}

void TurnRun::bid(ActionResult& r, Player& p, const Order& o) {
  int want;
  if (o.qty.kind == Quantity::Kind::kExact) {
    want = o.qty.n;
  } else if (o.action == s_.rules.actions_per_turn) {
    want = p.bp;  // ORDER with no number as the last action spends everything
  } else {
    return fail(r, "ORDER with no number is ignored unless it is your last action");
  }
  const int spent = std::min(want, p.bp);
  p.bp -= spent;
  r.bp_spent = spent;
  Economy& e = economy_of(p);
  e.bp_spent += spent;
  e.bid += spent;
  e.order_bid += spent;
  r.ok = true;
  r.message = "bid " + std::to_string(spent) + " BPs for the order of play";
  if (spent < want) r.message += " (cut to what you had)";
}

void TurnRun::set_support(ActionResult& r, Player& p, const Order& o) {
  Area* a = s_.find_area(o.from);
  if (!a) return fail(r, "unknown area " + o.from);
  if (!engine_.accepts_support()) return fail(r, "SUPPORT is not part of this game's rules");
  if (!owns(p.code, *a)) return fail(r, "you do not own " + a->code);
  engine_.standing_order(o, *a, p);
  r.ok = true;
  r.message =
      "the units in " + a->code + " support battles in " + o.to + " for the rest of the turn";
}

void TurnRun::gift(ActionResult& r, Player& p, const Order& o) {
  Player* to = s_.find_player(o.to);
  if (!to) return fail(r, "there is no kingdom " + o.to);  // validator prevents this
  if (to->code == p.code) return fail(r, "you cannot give BPs to yourself");
  if (p.bp <= 0) return fail(r, "you have no BPs left to give");
  const int given = std::min(o.qty.n, p.bp);
  p.bp -= given;
  to->bp += given;
  r.bp_spent = given;
  economy_of(p).bp_spent += given;
  result_.gifts.push_back({p.code, to->code, given, o.action});
  r.ok = true;
  r.message = "gave " + bps(given) + " to " + to->name + " (" + to->code + ")";
  if (given < o.qty.n) r.message += " (cut to what you had)";
}

void TurnRun::migrate(ActionResult& r, Player& p, const Order& o) {
  Area* from = s_.find_area(o.from);
  Area* to = s_.find_area(o.to);
  if (!from || !to) return fail(r, "unknown area");  // validator prevents this
  if (!owns(p.code, *from)) return fail(r, "you do not own " + from->code);
  if (!owns(p.code, *to))
    return fail(r, "people only migrate into your own areas (" + to->code + " is " +
                       (to->owner ? "held by " + *to->owner : std::string("unowned")) + ")");
  if (from->kind == AreaKind::kCity && blockaded(s_, *from))
    return fail(r, from->code + " is blockaded: nobody can leave");
  const int n = o.qty.n;
  if (from->population < n + 1)
    return fail(r, "moving " + std::to_string(n) + " people needs a population of " +
                       std::to_string(n + 1) + " in " + from->code + " (it has " +
                       std::to_string(from->population) + ")");
  from->population -= n + 1;
  to->population += n;
  r.ok = true;
  r.message = "moved " + std::to_string(n) + " population from " + from->code + " to " + to->code +
              " (1 more was lost on the way)";
}

}  // namespace adj::turn_detail
