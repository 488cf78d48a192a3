// The end of a game and what stays of it: the finished state, final standings, the standings
// mail, the archive of resolved turns and a player's own order files. Over the store interfaces
// only (no sockets, no clock); every front end (web, API, mail, CLI) calls these.
//
// A game is "finished" when a committed turn's record carries an "ending" (Services::run_turn
// decides it with rules/game/victory.h check_ending; the store sets the status in the same
// commit). Then turns and orders are refused ("the game is over"); a GM rollback to an earlier
// turn reopens it.
//
// Privacy: while a game goes on the archive shows only what the game page shows to anyone (the
// map after each turn and its roundup); reports, order files and private press become public
// when it is over. Order files never carry a secret (stored masked); sources are shown as the
// channel only ("email", "web", "cli"), never a message id.
// Thread-safety: as the stores (one thread at a time).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rules/game/victory.h"
#include "server/app/services.h"
#include "storage/notice_store.h"

namespace adj {

// The refusal for orders and turns of a finished game ("the game is over ..."); nullopt when
// the game is not finished or cannot be read (the caller's own load reports that).
std::optional<std::string> game_over(Stores s, const std::string& game);

// The "standings" notice to every player of the game after the run `out`, committed at
// `ran_at`, ended it (dedupe key per game, turn, digest and time, so a re-run after a rollback
// mails again). REQUIRES: out.ending.
Notice standings_notice(const std::string& game, const TurnRunOutcome& out, UnixTime ran_at);

// The final standings as plain text (mail, the CLI).
std::string standings_text(const std::string& game_name, const Ending& e);
// The victory conditions in one sentence for players.
std::string victory_text(const VictoryConditions& v);
// Standings as a plain-text table (with a result column when `results`).
std::string standings_table(const std::vector<Standing>& table, bool results);

// The ending of a finished game. FailedPrecondition when it is not finished ("game X is not
// over yet"), NotFound for an unknown game.
Result<Ending> final_standings(Stores s, const std::string& game);

struct FinishedGame {
  GameSummary game;
  Ending ending;
  UnixTime finished_at = 0;
};
// Every finished game, most recently finished first.
Result<std::vector<FinishedGame>> finished_games(Stores s);

// One resolved turn in the archive.
struct ArchiveTurn {
  int turn = 0;
  UnixTime ran_at = 0;
  Json roundup = nullptr;                   // report.h build_roundup
  std::vector<std::string> without_orders;  // players who sent none
  std::vector<std::string> draw;            // players who proposed a draw
  std::optional<Ending> ending;             // the turn that ended the game
};
// Every resolved turn, oldest first. NotFound for an unknown game.
Result<std::vector<ArchiveTurn>> archive_turns(Stores s, const std::string& game);
// One resolved turn; NotFound when it has not run.
Result<ArchiveTurn> archive_turn(Stores s, const std::string& game, int turn);

// An order file as a player or the archive shows it.
struct OrderFileView {
  int turn = 0;
  std::string player;
  UnixTime received_at = 0;
  std::string channel;  // "email", "web", "cli", ...
  bool accepted = false, current = false;
  std::string text;    // as received, the PLAYER secret masked
  std::string answer;  // the acknowledgement as the player read it (render_ack_text)
  Json ack = Json::object();
};
// Every order file of `player` (upper-case code), oldest first. NotFound for an unknown game.
Result<std::vector<OrderFileView>> player_files(Stores s, const std::string& game,
                                                const std::string& player);
// Every order file of the game for `turn` that names a player, by player then arrival.
Result<std::vector<OrderFileView>> turn_files(Stores s, const std::string& game, int turn);
Json to_json(const OrderFileView& f);

}  // namespace adj
