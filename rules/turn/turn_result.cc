#include "rules/turn/turn_result.h"

#include "rules/turn/turn_fields.h"

namespace adj {

// The trees of the descriptions in rules/turn/turn_fields.h.
Json to_json(const BattleOutcome& o) { return json_form::write_tree(o); }
Json to_json(const BattleLog& b) { return json_form::write_tree(b); }
Json to_json(const ActionResult& a) { return json_form::write_tree(a); }

}  // namespace adj
