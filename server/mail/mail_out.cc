// The mail the game sends on its own: turn reports, corrections, new secrets and reminders.
#include <algorithm>

#include "base/ascii.h"
#include "server/app/secrets.h"
#include "server/app/time_text.h"
#include "server/app/turn_runs.h"
#include "server/mail/gm_contact.h"
#include "server/mail/mail_ingest.h"
#include "server/mail/mail_ingest_internal.h"
#include "server/mail/signature.h"

namespace adj::mail {

using ingest_detail::report_html;

Result<int> MailIngest::queue_turn_reports(const std::string& game, int turn) {
  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  const std::string game_name = state->value("name", game);
  // A turn that ran before (then was rolled back) is mailed again as a correction.
  auto log = admin_.audit_log(game);
  if (!log.ok()) return log.status();
  const int runs = std::max(1, turn_runs(*log, turn).runs);
  if (runs > 1) {
    auto n = queue_corrections(game, turn, runs);
    if (n.ok()) ADJ_RETURN_IF_ERROR(record_reports_queued(game, turn, *n));
    return n;
  }
  const auto next = admin_.deadline_after_report(game, turn);  // none once the game is over
  // The map prepared and stored once for the turn (with map_arrows, each player's adds only that
  // player's arrows).
  ReportMaps maps(config_.map_painter, services_, game, turn, map_mail());
  const std::string due = next ? " " + deadline_sentence(next->turn, next->at) : "";
  std::optional<Json> roundup;            // read once, for the first report mailed
  std::optional<std::string> gm_contact;  // the same for every mail of the game
  // Queued a transaction at a time, each of at most about kBatchBytes (a map per player makes a
  // mail of a megabyte): a game's mails in one commit, a big game's in a few.
  constexpr std::size_t kBatchBytes = 8u << 20;
  std::vector<OutboxMessage> batch;
  std::size_t batch_bytes = 0;
  int queued = 0;
  const auto flush = [&]() -> Status {
    if (batch.empty()) return Status::Ok();
    auto ids = mail_.enqueue_batch(batch);
    if (!ids.ok()) return ids.status();
    queued += static_cast<int>(
        std::count_if(ids->begin(), ids->end(), [](std::int64_t id) { return id != 0; }));
    batch.clear();
    batch_bytes = 0;
    return Status::Ok();
  };
  for (const Json& p : (*state)["players"]) {
    const std::string code = p.value("code", "");
    const std::string email = p.value("email", "");
    if (code.empty() || email.empty()) continue;
    if (!roundup) {
      Result<Json> r = services_.turn_roundup(game, turn);
      if (!r.ok()) return r.status();
      roundup = std::move(*r);
      auto gm = app_.press().gm_address(game);
      if (!gm.ok()) return gm.status();
      gm_contact = gm_contact_text(game, *gm);
    }
    auto rep = services_.report(game, code, turn, *roundup);
    if (!rep.ok()) return rep.status();
    // The map after the turn (with map_arrows, with this player's moves and battles).
    std::optional<MailAttachment> map = maps.for_report(&rep->json);
    const std::string name = p.value("name", code);
    const std::string intro = "Turn " + std::to_string(turn) + " report for " + name + " (" + code +
                              ") in " + game_name + " (" + game + ")." + due;
    std::vector<std::pair<std::string, std::string>> links;
    if (const std::string link = game_link(game); !link.empty()) {
      links.emplace_back("Your report on the web", link + "/me/reports/" + std::to_string(turn));
      // No sign-in link: link tokens exist in clear only when issued (stored hashed), and a
      // mail waits in the outbox.
      links.emplace_back("The game page", link);
    }
    std::string text = intro + "\n\n" + rep->text + "\n";
    for (const auto& [label, url] : links) text += label + ": " + url + "\n";
    text += "\nReply to this message with your orders for turn " + std::to_string(turn + 1) + "." +
            due + "\n\n";
    text += kSignature;
    OutgoingMail m;
    m.subject = game_name + " (" + game + "): turn " + std::to_string(turn) + " report for " + code;
    m.text = std::move(text);
    m.html = report_html(intro, rep->text, links);
    if (map) m.attachments.push_back(*map);
    m.headers.emplace_back("Auto-Submitted", "auto-generated");
    auto o = outgoing("report", game, Mailbox{email, name},
                      "report:" + game + ":" + std::to_string(turn) + ":" + code, std::move(m),
                      &*gm_contact);
    if (!o.ok()) return o.status();
    batch_bytes += o->raw.size();
    batch.push_back(std::move(o).value());
    if (batch_bytes >= kBatchBytes) ADJ_RETURN_IF_ERROR(flush());
  }
  ADJ_RETURN_IF_ERROR(flush());
  ADJ_RETURN_IF_ERROR(record_reports_queued(game, turn, queued));
  return queued;
}

Status MailIngest::record_reports_queued(const std::string& game, int turn, int queued) {
  return admin_.audit(
      game, "mail", "reports",
      {{"turn", turn},
       {"queued", queued},
       {"message", "the reports of turn " + std::to_string(turn) + " are in the outbox (" +
                       std::to_string(queued) + " queued now)"}});
}

Result<int> MailIngest::queue_corrections(const std::string& game, int turn, int run) {
  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  const std::string t = std::to_string(turn);
  const auto next = admin_.deadline_after_report(game, turn);
  const std::string due = next ? " " + deadline_sentence(next->turn, next->at) : "";
  int queued = 0;
  for (const Json& p : (*state)["players"]) {
    const std::string code = p.value("code", "");
    if (code.empty()) continue;
    auto rep = services_.report(game, code, turn);
    if (!rep.ok()) return rep.status();
    Notice n;
    n.game = game;
    n.kind = "correction";
    n.players = {code};
    // The mailer puts "Correction: <game name> (<game>): " before it.
    n.subject = "turn " + t + " report for " + code;
    std::string text = "This report replaces the turn " + t +
                       " report mailed to you before: the game master reopened turn " + t +
                       " and it ran again. Disregard the earlier one.\n\n" + rep->text + "\n";
    if (const std::string link = game_link(game); !link.empty())
      text += "Your report on the web: " + link + "/me/reports/" + t + "\n";
    text += "\nReply to this message with your orders for turn " + std::to_string(turn + 1) + "." +
            due + "\n";
    n.text = std::move(text);
    n.dedupe_key = correction_key(game, turn, run, code);  // NoticeMailer attaches the map
    n.thread = "turns:" + game;
    ADJ_RETURN_IF_ERROR(services_.notify(std::move(n)));
    ++queued;
  }
  return queued;
}

namespace {

// A player's position as a mail tells it: the open turn, BPs, and each area held with its armies.
std::string position_text(const Json& state, const std::string& code) {
  const int turn = state.value("turn", 1);
  std::string out = "Your position at the start of turn " + std::to_string(turn) + ":\n";
  for (const Json& p : state["players"])
    if (p.value("code", "") == code)
      out +=
          "  BPs for turn " + std::to_string(turn) + ": " + std::to_string(p.value("bp", 0)) + "\n";
  int held = 0;
  for (const Json& a : state["areas"]) {
    if (!a.contains("owner") || !a["owner"].is_string() || a["owner"].get<std::string>() != code)
      continue;
    ++held;
    out += "  " + a.value("code", "") + " " + a.value("name", "") + ": " +
           (a.value("armies", 0) == 1 ? std::string("1 army")
                                      : std::to_string(a.value("armies", 0)) + " armies") +
           "\n";
  }
  if (held == 0) out += "  (no area)\n";
  return out;
}

}  // namespace

Result<int> MailIngest::queue_new_secrets(const std::string& game,
                                          const std::map<std::string, std::string>& secrets,
                                          bool with_link) {
  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  const std::string game_name = state->value("name", game);
  // A new holder of a position (with_link), and every player of a game that has not run a turn
  // yet (a game the GM created, not only one started from sign-ups), is also told the position
  // and the deadline; at the game's start (turn 1 open) the mail carries the map too (later
  // holders, a takeover or a replacement, have the game page's: painting holds up the mail it
  // answers).
  const int open_turn = state->value("turn", 1);
  const bool playing = (with_link || open_turn == 1) && state->value("status", "") != "finished" &&
                       state->value("status", "") != "signup";
  std::string due;
  std::optional<MailAttachment> map;
  if (playing) {
    auto sched = admin_.schedule(game);
    if (!sched.ok()) return sched.status();
    due = deadline_sentence(open_turn, sched->deadline);
    if (open_turn == 1)
      map = ReportMaps(config_.map_painter, services_, game, 0, map_mail()).for_report(nullptr);
    if (map) map->filename = "map-turn-1-start.png";
  }
  int queued = 0;
  for (const Json& p : (*state)["players"]) {
    const std::string code = p.value("code", "");
    const std::string email = p.value("email", "");
    const auto it = secrets.find(code);
    if (code.empty() || email.empty() || it == secrets.end()) continue;
    const std::string name = p.value("name", code);
    std::string text = "You play " + name + " (" + code + ") in " + game_name + " (" + game +
                       ").\n\nYour secret is: " + it->second +
                       "\n\nPut it on the PLAYER line of your orders:\n\n  GAME " + game +
                       "\n  PLAYER " + code + " " + it->second +
                       "\n\nIt replaces any secret you had before in this game. Keep it to "
                       "yourself. To choose your own, send a message with the GAME and PLAYER "
                       "lines and a line\n\n  SECRET <your new secret>\n\n";
    if (playing)
      text += position_text(*state, code) + (map ? "The map is attached.\n" : "") + "\n" + due +
              " Send your orders for turn " + std::to_string(open_turn) +
              " with the GAME and PLAYER lines above; HELP gives the order syntax with "
              "examples from your position.\n\n";
    if (const std::string link = game_link(game); !link.empty()) {
      text += "The game page: " + link + "\n\n";
      if (with_link) {
        auto token = services_.issue_link_token(game, code);
        if (!token.ok()) return token.status();
        text += "Your sign-in link (it signs you in without the secret; keep it to yourself):\n" +
                link + "/p/" + *token + "\n\n";
      }
    }
    text += kSignature;
    OutgoingMail m;
    m.subject = game_name + " (" + game + "): your secret for " + code;
    m.text = std::move(text);
    if (map) m.attachments.push_back(*map);
    m.headers.emplace_back("Auto-Submitted", "auto-generated");
    // A fresh key each time: a second reset must be mailed too; it never contains the secret.
    auto q = queue("secret", game, Mailbox{email, name},
                   "secret:" + game + ":" + code + ":" + new_token(), std::move(m));
    if (!q.ok()) return q.status();
    queued += *q ? 1 : 0;
  }
  return queued;
}

Result<int> MailIngest::queue_reminders(const std::string& game, const std::string& tag) {
  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  const int turn = state->value("turn", 0);
  const std::string game_name = state->value("name", game);
  auto subs = services_.orders_on_file(game, turn);  // every line rejected: reminded too
  if (!subs.ok()) return subs.status();
  auto files = services_.files_on_record(game, turn);  // to say which case it is
  if (!files.ok()) return files.status();
  auto sched = admin_.schedule(game);
  if (!sched.ok()) return sched.status();
  int queued = 0;
  for (const Json& p : (*state)["players"]) {
    const std::string code = p.value("code", "");
    const std::string email = p.value("email", "");
    if (code.empty() || email.empty()) continue;
    if (std::any_of(subs->begin(), subs->end(),
                    [&](const SubmissionRecord& s) { return s.player == code; }))
      continue;
    const std::string name = p.value("name", code);
    const bool unusable = std::any_of(files->begin(), files->end(),
                                      [&](const SubmissionRecord& s) { return s.player == code; });
    std::string text =
        unusable ? "The file on record for " + name + " (" + code + ") for turn " +
                       std::to_string(turn) + " of " + game_name + " (" + game +
                       ") has no line that can be carried out, so it does not count as "
                       "orders. Send STATUS to see why each line was rejected.\n"
                 : "No orders from " + name + " (" + code + ") are on file yet for turn " +
                       std::to_string(turn) + " of " + game_name + " (" + game + ").\n";
    text += deadline_sentence(turn, sched->deadline) + "\n";
    text += "\nReply to this message with your orders:\n\n  GAME " + game + "\n  PLAYER " + code +
            " <your secret>\n  TURN " + std::to_string(turn) +
            "\n  ...one order per line...\n  END\n\nSend HELP for the order syntax.\n";
    if (const std::string link = game_link(game); !link.empty())
      text += "Or enter them on the web: " + link + "/me\n";
    text += "\n";
    text += kSignature;
    OutgoingMail m;
    m.subject =
        game_name + " (" + game + "): reminder, no orders yet for turn " + std::to_string(turn);
    m.text = std::move(text);
    m.headers.emplace_back("Auto-Submitted", "auto-generated");
    std::string key = "reminder:" + game + ":" + std::to_string(turn) + ":" + code;
    if (!tag.empty()) key += ":" + tag;
    auto q = queue("reminder", game, Mailbox{email, name}, key, std::move(m));
    if (!q.ok()) return q.status();
    queued += *q ? 1 : 0;
  }
  return queued;
}

}  // namespace adj::mail
