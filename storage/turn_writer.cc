#include "storage/turn_writer.h"

#include <iterator>
#include <utility>

#include "storage/game_store.h"

namespace adj {

Result<std::unique_ptr<TurnWriter>> GameStore::begin_commit(const std::string& game, int turn,
                                                            std::vector<std::int64_t> submissions) {
  return std::unique_ptr<TurnWriter>(
      std::make_unique<BufferedTurnWriter>(*this, game, turn, std::move(submissions)));
}

BufferedTurnWriter::BufferedTurnWriter(GameStore& store, std::string game, int turn,
                                       std::vector<std::int64_t> submissions)
    : store_(store), game_(std::move(game)), turn_(turn), submissions_(std::move(submissions)) {}

Status BufferedTurnWriter::add_battle(BattleRecord b) {
  if (finished_) return Status::FailedPrecondition("turn writer: already finished or failed");
  battles_.push_back(std::move(b));
  return Status::Ok();
}

Status BufferedTurnWriter::add_report(ReportRecord r) {
  if (finished_) return Status::FailedPrecondition("turn writer: already finished or failed");
  if (r.turn != turn_) {
    finished_ = true;  // after an error nothing more is taken, and finish() writes nothing
    return Status::InvalidArgument("commit_turn game " + game_ + " turn " + std::to_string(turn_) +
                                   ": the report of " + r.player + " is for turn " +
                                   std::to_string(r.turn));
  }
  reports_.push_back(std::move(r));
  return Status::Ok();
}

Status BufferedTurnWriter::finish(TurnCommit& rest) {
  if (finished_) return Status::FailedPrecondition("turn writer: already finished or failed");
  finished_ = true;
  if (rest.turn != turn_)
    return Status::InvalidArgument("commit_turn game " + game_ + ": the writer is for turn " +
                                   std::to_string(turn_) + ", not " + std::to_string(rest.turn));
  battles_.insert(battles_.end(), std::make_move_iterator(rest.battles.begin()),
                  std::make_move_iterator(rest.battles.end()));
  reports_.insert(reports_.end(), std::make_move_iterator(rest.reports.begin()),
                  std::make_move_iterator(rest.reports.end()));
  rest.battles = std::move(battles_);
  rest.reports = std::move(reports_);
  std::vector<std::int64_t> given = std::move(rest.submissions);
  rest.submissions = std::move(submissions_);
  const Status s = store_.commit_turn(game_, rest);
  rest.submissions = std::move(given);
  return s;
}

}  // namespace adj
