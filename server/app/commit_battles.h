// A resolved turn's battles handed to the commit (storage/turn_writer.h) as stored records.
#pragma once

#include <cstddef>
#include <vector>

#include "rules/core/status.h"
#include "rules/turn/turn_result.h"
#include "storage/turn_writer.h"

namespace adj {

// Adds one BattleRecord per battle to `writer`, in order: id, seed and engine; outcome_text the
// battle's log as to_json(b).dump() writes it (json_text::battle_log); input_text the battle's
// replay input, moved out of b.input (left empty). The logs of the next `chunk` battles are
// written on a second thread while this one hands the previous ones to the writer (all on this
// thread when no thread can be started); the records and their order are the same either way.
// InvalidArgument naming the battle when a log cannot be written as JSON (invalid UTF-8), or the
// writer's error; the battles from there on are then left as they were or partly moved.
// Not thread-safe as a whole: `battles` and `writer` are the caller's, untouched by others
// meanwhile.
Status add_battles(std::vector<BattleLog>& battles, TurnWriter& writer, std::size_t chunk = 2048);

}  // namespace adj
