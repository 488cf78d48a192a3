#include "server/app/turn_summary.h"

#include "rules/turn/turn_text.h"

namespace adj {

Json turn_summary(const TurnSummaryParts& p) {
  Json actions = Json::array();
  actions.get_ref<Json::array_t&>().reserve(p.actions->size());
  for (const auto& a : *p.actions) actions.push_back(to_json(a));
  Json orders = Json::object();
  for (const auto& [code, list] : *p.orders) {
    Json lines = Json::array();
    for (const auto& o : list) lines.push_back(o.text);
    orders[code] = std::move(lines);
  }
  Json summary = {{"digest", *p.digest},
                  {"roundup", *p.roundup},
                  {"players_without_orders", *p.players_without_orders},
                  {"orders", std::move(orders)},
                  {"actions", std::move(actions)}};
  if (!p.draws->empty()) summary["draw"] = *p.draws;
  if (*p.ending) summary["ending"] = to_json(**p.ending);
  return summary;
}

std::string turn_summary_text(const TurnSummaryParts& p) {
  std::string out = "{\"actions\":[";
  bool first = true;
  for (const auto& a : *p.actions) {
    if (!first) out += ',';
    first = false;
    json_text::action(out, a);
  }
  out += "],\"digest\":";
  json_text::str(out, *p.digest);
  auto strings = [&](const auto& list) {
    out += '[';
    bool first_string = true;
    for (const std::string& s : list) {
      if (!first_string) out += ',';
      first_string = false;
      json_text::str(out, s);
    }
    out += ']';
  };
  if (!p.draws->empty()) {
    out += ",\"draw\":";
    strings(*p.draws);
  }
  if (*p.ending) {
    out += ",\"ending\":";
    json_text::value(out, to_json(**p.ending));
  }
  out += ",\"orders\":{";
  first = true;
  for (const auto& [code, list] : *p.orders) {  // std::map: the tree's key order
    if (!first) out += ',';
    first = false;
    json_text::str(out, code);
    out += ":[";
    bool first_line = true;
    for (const auto& o : list) {
      if (!first_line) out += ',';
      first_line = false;
      json_text::str(out, o.text);
    }
    out += ']';
  }
  out += "},\"players_without_orders\":";
  strings(*p.players_without_orders);
  out += ",\"roundup\":";
  json_text::value(out, *p.roundup);
  out += '}';
  return out;
}

}  // namespace adj
