// libFuzzer harness: the order-file parser and validator (rules/orders). The input is an order
// file; it is parsed, then checked against the starting state of every bundled scenario with
// that scenario's combat engine, and the acknowledgement is rendered and round-tripped through
// JSON. Invariants: nothing throws or crashes, every accepted order has a line, the JSON form of
// an acknowledgement reads back, and the answer to a refused file does not depend on the real
// secret (issue 10: checked by validating again against a copy of the state in which the named
// player's secret is another word; both answers must be identical).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rules/combat/engine_registry.h"
#include "rules/game/scenario.h"
#include "rules/orders/parser.h"
#include "rules/orders/validator.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

const std::vector<adj::GameState>& states() {
  static const std::vector<adj::GameState> all = [] {
    std::vector<adj::GameState> out;
    for (const std::string& name : adj::bundled_scenarios()) {
      auto json = adj::bundled_scenario_published(name);
      FUZZ_CHECK(json.ok());
      auto st = adj::state_from_scenario(*json, 1);
      FUZZ_CHECK(st.ok());
      out.push_back(std::move(*st));
    }
    FUZZ_CHECK(!out.empty());
    return out;
  }();
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const adj::ParsedOrderFile parsed = adj::parse_order_file(text);
  FUZZ_CHECK(parsed.orders.size() <= parsed.lines.size());

  for (const adj::GameState& st : states()) {
    const adj::OrderAck ack = adj::check_order_file(text, st, adj::find_engine(st.engine.name));
    FUZZ_CHECK(ack.orders.size() <= ack.lines.size());
    const std::string rendered = adj::render_ack_text(ack);
    if (ack.refused && !ack.player.empty()) {
      adj::GameState other = st;
      if (adj::Player* p = other.find_player(ack.player); p && parsed.secret != p->secret) {
        p->secret = "other-secret-for-fuzzing";
        if (parsed.secret != p->secret) {
          const adj::OrderAck ack2 =
              adj::check_order_file(text, other, adj::find_engine(st.engine.name));
          FUZZ_CHECK(adj::render_ack_text(ack2) == rendered);
        }
      }
    }
    const auto back = adj::ack_from_json(adj::to_json(ack));
    FUZZ_CHECK(back.ok());
    FUZZ_CHECK(back->lines.size() == ack.lines.size() && back->orders.size() == ack.orders.size());
  }
  return 0;
}
