#include "server/app/commit_battles.h"

#include <algorithm>
#include <future>
#include <string>
#include <system_error>
#include <utility>

#include "rules/turn/turn_text.h"

namespace adj {

namespace {

// The records of battles [from, to). Touches only those battles.
Result<std::vector<BattleRecord>> records_of(std::vector<BattleLog>& battles, std::size_t from,
                                             std::size_t to) {
  std::vector<BattleRecord> out;
  out.reserve(to - from);
  for (std::size_t i = from; i < to; ++i) {
    BattleLog& b = battles[i];
    BattleRecord rec;
    rec.id = b.id;
    rec.seed = b.seed;
    rec.engine = b.engine;
    try {
      json_text::battle_log(rec.outcome_text, b);  // to_json(b).dump(), without the tree
    } catch (const Json::exception& e) {
      return Status::InvalidArgument("battle " + b.id +
                                     " outcome cannot be stored as JSON: " + e.what());
    }
    rec.input_text = std::move(b.input);  // the log keeps it; the in-memory result needs it no more
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace

Status add_battles(std::vector<BattleLog>& battles, TurnWriter& writer, std::size_t chunk) {
  const std::size_t n = battles.size();
  chunk = std::max<std::size_t>(chunk, 1);
  using Chunk = Result<std::vector<BattleRecord>>;
  // The chunk starting at `from`, on a second thread when one can be started.
  const auto start = [&battles, n, chunk](std::size_t from) -> std::future<Chunk> {
    const std::size_t to = std::min(n, from + chunk);
    try {
      return std::async(std::launch::async,
                        [&battles, from, to] { return records_of(battles, from, to); });
    } catch (const std::system_error&) {
      std::promise<Chunk> here;
      here.set_value(records_of(battles, from, to));
      return here.get_future();
    }
  };
  if (n == 0) return Status::Ok();
  std::future<Chunk> next = start(0);
  for (std::size_t from = 0; from < n; from += chunk) {
    Chunk ready = next.get();
    if (!ready.ok()) return ready.status();
    if (from + chunk < n) next = start(from + chunk);
    for (BattleRecord& rec : *ready) {
      if (Status s = writer.add_battle(std::move(rec)); !s.ok()) {
        if (next.valid()) next.wait();  // the thread still uses `battles`
        return s;
      }
    }
  }
  return Status::Ok();
}

}  // namespace adj
