// libFuzzer harness: scenario loading (rules/game/scenario.h), what `adjutant new` and
// POST /api/games run on a GM's JSON. The input is parsed as JSON (without exceptions); a
// document is validated and turned into the starting state. Invariants: nothing crashes or
// throws; a scenario with validation errors is refused by state_from_scenario, one without is
// accepted or refused with a reason; an accepted state survives its JSON round trip (what the
// store keeps) unchanged. The direct state reader (rules/game/state_reader.h) runs on the raw
// input and on the stored text: whenever it gives a state, the tree gives the same one. The
// scenario check (rules/game/scenario_lint.h) agrees with validation and with what refuses a game.
#include <cstddef>
#include <cstdint>
#include <string>

#include "rules/game/json_text.h"
#include "rules/game/scenario.h"
#include "rules/game/scenario_lint.h"
#include "rules/game/state_reader.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const adj::Json doc = adj::Json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto direct = adj::read_state_direct(text)) {
    FUZZ_CHECK(!doc.is_discarded());
    const auto tree = adj::state_from_json(doc);
    FUZZ_CHECK(tree.ok());
    FUZZ_CHECK(adj::to_json(*direct) == adj::to_json(*tree));
  }
  if (doc.is_discarded()) return 0;
  const auto errors = adj::validate_scenario(doc);
  for (const adj::ScenarioError& e : errors) FUZZ_CHECK(!e.message.empty());
  // The check (rules/game/scenario_lint.h): validation's errors alone when there are any; else
  // its errors are what refuses a game, errors first, every message said.
  const auto findings = adj::lint_scenario(doc);
  const auto refusing = adj::scenario_errors(doc);
  std::size_t lint_errors = 0;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    FUZZ_CHECK(!findings[i].message.empty());
    if (findings[i].severity != adj::ScenarioFinding::Severity::kError) continue;
    FUZZ_CHECK(i == lint_errors);
    FUZZ_CHECK(i < refusing.size() && refusing[i].message == findings[i].message);
    ++lint_errors;
  }
  FUZZ_CHECK(lint_errors == refusing.size());
  if (!errors.empty()) FUZZ_CHECK(findings.size() == errors.size());
  const auto state = adj::state_from_scenario(doc, 42);
  if (!errors.empty()) FUZZ_CHECK(!state.ok());
  if (!state.ok()) {
    FUZZ_CHECK(!state.status().message().empty());
    return 0;
  }
  const adj::Json stored = adj::to_json(*state);
  const auto back = adj::state_from_json(stored);
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(adj::to_json(*back) == stored);
  std::string stored_text;
  adj::json_text::state(stored_text, *state);
  const auto direct = adj::read_state_direct(stored_text);
  FUZZ_CHECK(direct.has_value());
  FUZZ_CHECK(adj::to_json(*direct) == stored);
  return 0;
}
