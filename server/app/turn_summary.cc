#include "server/app/turn_summary.h"

#include "rules/game/json_form.h"
#include "rules/turn/turn_fields.h"

namespace adj {

namespace {

// The summary, every member once, in key order (rules/game/json_form.h): turn_summary builds its
// tree with it, turn_summary_text its text. W is json_form::TreeWriter or json_form::TextWriter.
template <class W>
void summary_members(W& w, const TurnSummaryParts& p) {
  auto strings = [&](const auto& list) {
    w.open_array();
    for (const std::string& s : list) {
      w.item();
      w.value(s);
    }
    w.close_array();
  };
  w.open_object();
  w.key("actions");
  w.open_array();
  for (const ActionResult& a : *p.actions) {
    w.item();
    w.element(a);
  }
  w.close_array();
  w.member("digest", *p.digest);
  if (!p.draws->empty()) {
    w.key("draw");
    strings(*p.draws);
  }
  if (*p.ending) {
    w.key("ending");
    w.value(to_json(**p.ending));
  }
  w.key("orders");
  w.open_object();
  for (const auto& [code, list] : *p.orders) {  // std::map: the tree's key order
    w.data_key(code);
    w.open_array();
    for (const Order& o : list) {
      w.item();
      w.value(o.text);
    }
    w.close_array();
  }
  w.close_object();
  w.key("players_without_orders");
  strings(*p.players_without_orders);
  w.member("roundup", *p.roundup);
  w.close_object();
}

}  // namespace

Json turn_summary(const TurnSummaryParts& p) {
  Json summary;
  json_form::TreeWriter w(summary);
  summary_members(w, p);
  return summary;
}

std::string turn_summary_text(const TurnSummaryParts& p) {
  std::string out;
  json_form::TextWriter w(out);
  summary_members(w, p);
  return out;
}

}  // namespace adj
