#include "server/app/ending.h"

#include <algorithm>

#include "server/app/time_text.h"

namespace adj {

namespace {

std::string pad(std::string s, std::size_t n) {
  if (s.size() < n) s.append(n - s.size(), ' ');
  return s;
}

std::string channel_of(const std::string& source) {
  const std::size_t colon = source.find(':');
  return colon == std::string::npos ? source : source.substr(0, colon);
}

std::vector<std::string> strings(const Json& j) {
  std::vector<std::string> out;
  if (j.is_array())
    for (const Json& v : j)
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

ArchiveTurn from_record(const Json& rec) {
  ArchiveTurn t;
  t.turn = rec.value("turn", 0);
  t.ran_at = rec.value("ran_at", UnixTime{0});
  const Json& sum = rec.contains("summary") ? rec["summary"] : Json::object();
  if (sum.contains("roundup")) t.roundup = sum["roundup"];
  t.without_orders = strings(sum.value("players_without_orders", Json::array()));
  t.draw = strings(sum.value("draw", Json::array()));
  if (sum.contains("ending")) t.ending = ending_from_json(sum["ending"]);
  return t;
}

OrderFileView view_of(const SubmissionRecord& r) {
  OrderFileView f;
  f.turn = r.turn;
  f.player = r.player;
  f.received_at = r.received_at;
  f.channel = channel_of(r.source);
  f.accepted = r.accepted;
  f.current = r.current;
  f.text = r.raw_text;
  f.ack = r.ack;
  Result<OrderAck> ack = ack_from_json(r.ack);
  f.answer = ack.ok() ? render_ack_text(*ack) : "(the answer to this file cannot be shown)";
  return f;
}

}  // namespace

std::optional<std::string> game_over(Stores s, const std::string& game) {
  Result<GameSummary> g = s.games.game_summary(game);
  if (!g.ok() || g->status != "finished") return std::nullopt;
  return "the game is over: game " + g->id + " ended after turn " + std::to_string(g->turn - 1) +
         ", so no more orders are taken and no more turns run. Its final standings are on its "
         "standings page.";
}

std::string standings_table(const std::vector<Standing>& table, bool results) {
  const auto row = [results](const std::string& rank, const std::string& kingdom,
                             const std::string& vp, const std::string& areas,
                             const std::string& armies, const std::string& result) {
    std::string r = pad(rank, 4) + "  " + pad(kingdom, 26) + "  " + pad(vp, 6) + "  " +
                    pad(areas, 5) + "  " + pad(armies, 6);
    if (results) r += "  " + result;
    while (!r.empty() && r.back() == ' ') r.pop_back();
    return r + "\n";
  };
  std::string out = row("rank", "kingdom", "VP", "areas", "armies", "result");
  for (const Standing& s : table)
    out += row(std::to_string(s.rank), s.code + " " + s.name, std::to_string(s.vp),
               std::to_string(s.areas), std::to_string(s.armies), s.result);
  out +=
      "\nVP: victory points (the kingdom's VP plus those of the areas it holds). Ties are ranked "
      "by areas held, then armies.\n";
  return out;
}

std::string standings_text(const std::string& game_name, const Ending& e) {
  return "The game " + game_name + " is over after turn " + std::to_string(e.turn) + ". " +
         e.reason + "\n\nFinal standings\n\n" + standings_table(e.standings, true) +
         "Every report, order file and press message of the game is now in its archive.\n";
}

Notice standings_notice(const std::string& game, const TurnRunOutcome& out, UnixTime ran_at) {
  const Ending& e = *out.ending;
  const std::string name = out.result.next_state.name.empty() ? game : out.result.next_state.name;
  Notice n;
  n.game = game;
  n.kind = "standings";
  for (const Standing& s : e.standings) n.players.push_back(s.code);
  n.subject = "Game over: final standings";
  n.text = standings_text(name, e);
  n.dedupe_key = "standings:" + game + ":" + std::to_string(e.turn) + ":" + out.digest + ":" +
                 std::to_string(ran_at);
  n.thread = "standings:" + game;
  return n;
}

std::string victory_text(const VictoryConditions& v) {
  if (!v.any()) return "none: this game ends only when its GM stops it.";
  std::string out;
  const auto add = [&out](const std::string& s) { out += (out.empty() ? "" : "; ") + s; };
  if (v.vp) add(std::to_string(*v.vp) + " victory points win");
  if (v.last_standing) add("the last kingdom standing wins");
  if (v.draw) add("a draw when every surviving kingdom orders DRAW in the same turn");
  if (v.last_turn) add("after turn " + std::to_string(*v.last_turn) + " the leader wins");
  return out + ".";
}

Result<Ending> final_standings(Stores s, const std::string& game) {
  Result<GameSummary> g = s.games.game_summary(game);
  if (!g.ok()) return g.status();
  if (g->status != "finished")
    return Status::FailedPrecondition("game " + g->id + " is not over yet: turn " +
                                      std::to_string(g->turn) + " is open");
  Result<Json> rec = s.games.turn_record(game, g->turn - 1);
  if (!rec.ok()) return rec.status();
  const ArchiveTurn t = from_record(*rec);
  if (!t.ending)
    return Status::Corruption("game " + g->id + " is finished but turn " +
                              std::to_string(g->turn - 1) + " has no ending");
  return *t.ending;
}

Result<std::vector<FinishedGame>> finished_games(Stores s) {
  Result<std::vector<GameSummary>> games = s.games.list_games();
  if (!games.ok()) return games.status();
  std::vector<FinishedGame> out;
  for (const GameSummary& g : *games) {
    if (g.status != "finished") continue;
    Result<Json> rec = s.games.turn_record(g.id, g.turn - 1);
    if (!rec.ok()) continue;  // a game being reopened at this moment
    ArchiveTurn t = from_record(*rec);
    if (!t.ending) continue;
    out.push_back({g, std::move(*t.ending), t.ran_at});
  }
  std::stable_sort(out.begin(), out.end(), [](const FinishedGame& a, const FinishedGame& b) {
    return a.finished_at > b.finished_at;
  });
  return out;
}

Result<std::vector<ArchiveTurn>> archive_turns(Stores s, const std::string& game) {
  Result<GameSummary> g = s.games.game_summary(game);
  if (!g.ok()) return g.status();
  std::vector<ArchiveTurn> out;
  for (int t = 1; t < g->turn; ++t) {
    Result<Json> rec = s.games.turn_record(game, t);
    if (!rec.ok()) {
      if (rec.status().code() == StatusCode::kNotFound) continue;
      return rec.status();
    }
    out.push_back(from_record(*rec));
  }
  return out;
}

Result<ArchiveTurn> archive_turn(Stores s, const std::string& game, int turn) {
  Result<Json> rec = s.games.turn_record(game, turn);
  if (!rec.ok()) return rec.status();
  return from_record(*rec);
}

Result<std::vector<OrderFileView>> player_files(Stores s, const std::string& game,
                                                const std::string& player) {
  Result<std::vector<SubmissionRecord>> all = s.submissions.all_submissions(game);
  if (!all.ok()) return all.status();
  std::vector<OrderFileView> out;
  for (const SubmissionRecord& r : *all)
    if (!player.empty() && r.player == player) out.push_back(view_of(r));
  return out;
}

Result<std::vector<OrderFileView>> turn_files(Stores s, const std::string& game, int turn) {
  Result<std::vector<SubmissionRecord>> all = s.submissions.all_submissions(game);
  if (!all.ok()) return all.status();
  std::vector<OrderFileView> out;
  for (const SubmissionRecord& r : *all)
    if (r.turn == turn && !r.player.empty()) out.push_back(view_of(r));
  std::stable_sort(out.begin(), out.end(), [](const OrderFileView& a, const OrderFileView& b) {
    return a.player < b.player;
  });
  return out;
}

Json to_json(const OrderFileView& f) {
  return {{"turn", f.turn},
          {"player", f.player},
          {"received_at", f.received_at},
          {"received", utc_minutes(f.received_at)},
          {"channel", f.channel},
          {"accepted", f.accepted},
          {"current", f.current},
          {"text", f.text},
          {"answer", f.answer},
          {"ack", f.ack}};
}

}  // namespace adj
