// MailIngest's mail commands: HELP, SECRET, RESEND, STATUS and the attendance commands
// (STANDBY, TAKEOVER, ABSENCE; attendance_mail.h), and signed_command, the GAME and PLAYER lines
// they need.
#include <algorithm>
#include <optional>

#include "rules/combat/engine_registry.h"
#include "rules/orders/parser.h"
#include "server/app/app_runtime.h"
#include "server/app/confirmations.h"
#include "server/app/source_text.h"
#include "server/app/time_text.h"
#include "server/mail/attendance_mail.h"
#include "server/mail/detail.h"
#include "server/mail/mail_help.h"
#include "server/mail/mail_ingest.h"
#include "server/mail/mail_ingest_internal.h"
#include "server/mail/signature.h"
namespace adj::mail {

using detail::lower;
using detail::upper;
using ingest_detail::MailCommand;
using ingest_detail::report_html;
using ingest_detail::resend_turn;
using ingest_detail::wrap;

namespace {

constexpr const char* kCommandsHelp =
    "Commands by email (the first line of a message, or its subject):\n"
    "  HELP [<game-id>]   this text, with the rules of a game when it is named\n"
    "  RESEND [<turn>]    your latest report, or that turn's (add the GAME and PLAYER\n"
    "                     <code> <secret> lines)\n"
    "  STATUS             the orders on file for this turn (same lines)\n"
    "  SECRET <new>       after the GAME and PLAYER lines: change your secret (8 to 64\n"
    "                     characters, one word)\n"
    "  ADDRESS <new>      after the GAME and PLAYER lines: change your address\n"
    "  JOIN <game-id> [kingdoms]  sign up for a game open for sign-ups, from the address\n"
    "                     you will play from\n"
    "  STANDBY <game-id>  stand by to take over a position whose player stopped sending\n"
    "                     orders (offers come with a takeover code)\n"
    "  CONFIRM <code>     confirm a JOIN or STANDBY: the answer to either carries the code,\n"
    "                     and nothing is recorded until it is confirmed\n"
    "  TAKEOVER <game-id> <kingdom> <code>  take a position over with its takeover code\n"
    "  ABSENCE <from> <to>  after the GAME and PLAYER lines: declare an absence (days as\n"
    "                     YYYY-MM-DD, UTC)\n"
    "  PRESS TO GM        after the GAME and PLAYER lines, then your text and ENDPRESS: a\n"
    "                     message to the game master. A message from your address that is\n"
    "                     neither orders nor a command reaches the game master too.\n";

// A refusal of an attendance service that is the sender's to read (anything else is an error).
bool attendance_client_error(const Status& s) {
  return s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kNotFound ||
         s.code() == StatusCode::kFailedPrecondition || s.code() == StatusCode::kPermissionDenied ||
         s.code() == StatusCode::kAlreadyExists;
}

// ABSENCE <from> <to> of `game`/`player` (authenticated): declares it; the answer's text, with
// the outcome in *outcome.
Result<std::string> absence_answer(Attendance& att, const std::string& game,
                                   const std::string& player, const std::vector<std::string>& args,
                                   std::string* outcome) {
  if (args.size() != 2) {
    *outcome = "ABSENCE: refused for " + game + "/" + player + ": not two dates";
    return "The absence was not noted: ABSENCE needs the first and the last day.\n\n" +
           absence_usage();
  }
  auto a = att.declare_absence(game, player, args[0], args[1], "player:" + player);
  if (!a.ok() && !attendance_client_error(a.status())) return a.status();
  if (!a.ok()) {
    *outcome = "ABSENCE: refused for " + game + "/" + player + ": " + a.status().message();
    return "The absence was not noted: " + a.status().message() + ".\n";
  }
  auto opts = att.options(game);
  *outcome = "ABSENCE: " + game + "/" + player + " " + a->from + " to " + a->to;
  return "Your absence from " + a->from + " to " + a->to + " is noted for " + player + " in game " +
         game + ". " +
         (opts.ok() && opts->absence_extends
              ? "A deadline that falls in it while you have no orders in is extended by "
                "at most " +
                    std::to_string(opts->absence_max_days) + " days."
              : "This game does not extend deadlines for absences; send orders ahead.") +
         " Turns you miss while away do not count toward civil disorder.\n";
}

// The answer's text to STANDBY <game> from `address`, given what asking for the confirmation
// gave; the outcome in *outcome.
Result<std::string> standby_answer(const Result<ConfirmationAsked>& s, const std::string& address,
                                   const std::string& game, std::string* outcome) {
  if (s.ok()) {
    *outcome =
        "STANDBY: " +
        std::string(s->limited ? "refused (request limit) for " : "confirmation asked for ") +
        address + " for " + game;
    return s->text;
  }
  if (s.status().code() == StatusCode::kNotFound) {
    *outcome = "STANDBY for unknown game " + game;
    return "There is no game \"" + game + "\" on this server.\n";
  }
  if (!attendance_client_error(s.status())) return s.status();
  *outcome = "STANDBY refused: " + s.status().message();
  return "You were not put on the standby list: " + s.status().message() + ".\n";
}

// The order file of a command message: the first text with a GAME or PLAYER line, else the first.
ParsedOrderFile command_lines(const ParsedMail& m) {
  for (const MailText& t : m.texts) {
    ParsedOrderFile p = parse_order_file(t.text);
    if (p.game || p.player) return p;
  }
  return m.texts.empty() ? ParsedOrderFile{} : parse_order_file(m.texts.front().text);
}

}  // namespace

Result<ProcessResult> MailIngest::handle_help(Context& c) {
  const ParsedOrderFile lines = command_lines(c.mail);
  if (lines.secret) c.secret = *lines.secret;
  std::optional<std::string> named = lines.game;
  if (!c.command->arg.empty()) named = c.command->arg;
  const std::optional<std::string> game = find_game(c, named);

  ProcessResult r;
  r.state = "processed";
  r.action = "help";
  if (c.refusal_to.empty()) {
    r.outcome = "HELP; not answered: no envelope sender";
    return r;
  }
  auto spent = refusal_budget_spent(c.refusal_to);
  if (!spent.ok()) return spent.status();
  if (!spent->empty()) {
    r.outcome = "HELP; not answered: " + *spent;
    return r;
  }

  // With GAME and PLAYER lines whose secret is right, the answer has the player's own areas;
  // anything else gets the public part only (a wrong secret is counted like any other).
  std::string player;
  if (game && lines.player && lines.secret) {
    const ThrottleKeys keys = throttle_keys(c, *game, *lines.player);
    const bool locked = throttle_ && !throttle_->check(keys, now_()).allowed;
    if (!locked) {
      auto auth = authenticated(*game, *lines.player, *lines.secret);
      if (auth.ok()) {
        ADJ_RETURN_IF_ERROR(throttle_record(keys, *auth, *game, *lines.player));
        if (*auth) player = upper(*lines.player);
      } else if (auth.status().code() != StatusCode::kNotFound) {
        return auth.status();
      }
    }
  }

  std::string body;
  std::string game_part;
  std::optional<GameState> known;  // the named game's state: the syntax's examples use its map
  if (game) {
    auto state = services_.show_game(*game);
    if (state.ok()) {
      auto st = state_from_json(*state);
      if (!st.ok()) return st.status();
      known = std::move(st).value();
      Result<EngineHandle> e = services_.engine_of(*game);
      game_part = help_for_game(*known, player, e.ok() ? (*e)->order_help() : std::string_view());
      if (const std::string link = game_link(*game); !link.empty())
        game_part += "\nGame page: " + link + (player.empty() ? "" : "/me") + "\n";
    } else if (state.status().code() == StatusCode::kNotFound) {
      game_part = "There is no game \"" + *game +
                  "\" on this server. Check the game id on the game list, or send HELP alone "
                  "for the order syntax.\n";
    } else {
      return state.status();
    }
  }
  if (!game_part.empty()) body += game_part + "\n";
  body += help_syntax(known ? &*known : nullptr);
  body += "\n";
  body += "Send orders and commands to " +
          (config_.allowed_recipients.empty() ? config_.from.address
                                              : config_.allowed_recipients.front()) +
          " (replying to any mail from this server does).\n\n";
  body += kCommandsHelp;
  if (!game) body += "\nSend HELP <game-id> for the rules and map of your game.\n";
  body += "\n";
  body += kSignature;
  auto queued = player.empty() ? reply_anonymous(c, "help", game.value_or(""),
                                                 "Adjutant: how to send orders (HELP)", body)
                               : reply(c, "help", *game, "help", body);
  if (!queued.ok()) return queued.status();
  r.queued = *queued ? 1 : 0;
  r.outcome = "HELP answered" + (game ? " for " + *game : std::string()) +
              (player.empty() ? std::string() : " (player " + player + ")");
  return r;
}

Result<std::optional<MailIngest::Signed>> MailIngest::signed_command(Context& c,
                                                                     ProcessResult* refusal) {
  const ParsedOrderFile lines = command_lines(c.mail);
  if (lines.secret) c.secret = *lines.secret;
  std::optional<std::string> named = lines.game;
  if (!named && !c.command->arg.empty() && c.command->name != "SECRET" &&
      c.command->name != "ADDRESS" && !resend_turn(*c.command))
    named = c.command->arg;
  const std::optional<std::string> game = find_game(c, named);
  const std::string what = c.command->name;
  Result<ProcessResult> refused = Status::Internal("unset");
  if (!game || !lines.player || !lines.secret) {
    refused = refuse(c, what + " without GAME and PLAYER lines",
                     what +
                         " needs the lines\n\n  GAME <game-id>\n  PLAYER <player-code> "
                         "<secret>\n\nin the message, so that only you can ask for it.");
  } else {
    // Guessing limit on the PLAYER line's secret (set_throttle).
    const ThrottleKeys keys = throttle_keys(c, *game, *lines.player);
    auto locked = throttled(c, keys);
    if (!locked.ok()) return locked.status();
    if (*locked) {
      *refusal = std::move(**locked);
      return std::optional<Signed>();
    }
    auto auth = authenticated(*game, *lines.player, *lines.secret);
    if (auth.ok()) ADJ_RETURN_IF_ERROR(throttle_record(keys, *auth, *game, *lines.player));
    if (auth.ok() && *auth) return std::optional<Signed>(Signed{*game, *lines.player});
    if (!auth.ok() && auth.status().code() != StatusCode::kNotFound) return auth.status();
    refused =
        !auth.ok()
            ? refuse(c, what + " for unknown game " + *game,
                     "There is no game \"" + *game + "\" on this server.")
            : refuse(c, what + " for " + *game + "/" + *lines.player + ": wrong code or secret",
                     "The PLAYER line's code or secret is not right for game " + *game + ".");
  }
  if (!refused.ok()) return refused.status();
  *refusal = std::move(refused).value();
  return std::optional<Signed>();
}

Result<ProcessResult> MailIngest::handle_secret(Context& c) {
  ProcessResult refusal;
  auto who = signed_command(c, &refusal);
  if (!who.ok()) return who.status();
  if (!*who) return refusal;
  const std::string& game = (*who)->game;
  const std::string player = upper((*who)->player);
  ProcessResult r;
  r.state = "processed";
  r.action = "secret";
  std::string text;
  const Status changed = services_.change_secret(game, player, c.command->arg);
  if (changed.ok()) {
    if (Status a = admin_.audit(game, "player:" + player, "secret",
                                {{"player", player}, {"what", "secret"}, {"channel", "mail"}});
        !a.ok())
      return a;
    text = "The secret of " + player + " in game " + game +
           " is changed. Use the new one on your PLAYER line from now on; the old one no "
           "longer works.\n\n";
    r.outcome = "SECRET: changed for " + game + "/" + player;
  } else if (changed.code() == StatusCode::kInvalidArgument) {
    text = "The secret was not changed: " + changed.message() + ".\n\n";
    r.outcome = "SECRET: refused for " + game + "/" + player + ": " + changed.message();
  } else {
    return changed;
  }
  text += kSignature;
  auto queued = reply(c, "secret", game, "secret", std::move(text));
  if (!queued.ok()) return queued.status();
  r.queued = *queued ? 1 : 0;
  return r;
}

// ---- attendance (attendance_mail.h) ------------------------------------------------------------

Result<ProcessResult> MailIngest::handle_attendance(Context& c, const AttendanceCommand& cmd) {
  AttendanceAccess acc = attendance_access(app_, config_.base_url);
  Attendance& att = *acc.attendance;
  ProcessResult r;
  r.state = "processed";
  r.action = lower(cmd.name);
  if (cmd.name == "ABSENCE") {
    c.command = MailCommand{"ABSENCE", ""};
    ProcessResult refusal;
    auto who = signed_command(c, &refusal);
    if (!who.ok()) return who.status();
    if (!*who) return refusal;
    const std::string game = (*who)->game, player = upper((*who)->player);
    auto text = absence_answer(att, game, player, cmd.args, &r.outcome);
    if (!text.ok()) return text.status();
    auto queued = reply(c, "absence", game, "absence", wrap(*text) + "\n" + kSignature);
    if (!queued.ok()) return queued.status();
    r.queued = *queued ? 1 : 0;
    return r;
  }

  // STANDBY and TAKEOVER come from anyone: answers go to the envelope sender only.
  if (c.refusal_to.empty()) {
    r.outcome = cmd.name + "; not answered: no envelope sender";
    return r;
  }
  const std::optional<std::string> game =
      cmd.args.empty() ? std::nullopt : find_game(c, cmd.args[0]);
  if (cmd.name == "STANDBY") {
    auto spent = refusal_budget_spent(c.refusal_to);
    if (!spent.ok()) return spent.status();
    if (!spent->empty()) {
      r.outcome = "STANDBY; not answered and not kept: " + *spent;
      return r;
    }
    std::string text;
    if (!game || cmd.args.size() != 1) {
      text = standby_usage();
      r.outcome = "STANDBY without a game";
    } else {
      auto s = app_.confirmations(config_.base_url).ask_standby(*game, c.refusal_to, "mail", "");
      auto answer = standby_answer(s, c.refusal_to, *game, &r.outcome);
      if (!answer.ok()) return answer.status();
      text = std::move(answer).value();
    }
    auto queued = reply_anonymous(c, "help", game.value_or(""), "Adjutant: standby (STANDBY)",
                                  wrap(text) + "\n" + kSignature);
    if (!queued.ok()) return queued.status();
    r.queued = *queued ? 1 : 0;
    return r;
  }

  // TAKEOVER <game> <KINGDOM> <code>
  if (!game || cmd.args.size() != 3)
    return refuse(c, "TAKEOVER without game, kingdom and code", takeover_usage());
  const std::string kingdom = upper(cmd.args[1]);
  c.secret = cmd.args[2];  // never echoed
  const ThrottleKeys keys{throttle_key_sender(c.refusal_to), takeover_throttle_key(*game, kingdom)};
  auto locked = throttled(c, keys);
  if (!locked.ok()) return locked.status();
  if (*locked) return std::move(**locked);
  auto t = att.takeover(*game, kingdom, cmd.args[2], c.refusal_to, acc.replace, "mail");
  if (!t.ok()) {
    if (!attendance_client_error(t.status())) return t.status();
    if (throttle_ && t.status().code() == StatusCode::kPermissionDenied)
      throttle_->record(keys, false, now_());
    return refuse(c, "TAKEOVER " + *game + "/" + kingdom + ": " + t.status().message(),
                  "The position was not taken over: " + t.status().message() + ".");
  }
  if (throttle_) throttle_->record(keys, true, now_());
  auto secret = queue_new_secrets(t->game, {{t->player, t->secret}}, true);
  if (!secret.ok()) return secret.status();
  std::string text = "You now play " + t->player + " in game " + t->game +
                     ", from this address. Your secret comes in a separate mail; use it on the "
                     "PLAYER line of your orders. Orders you send count from this turn on.\n";
  if (const std::string link = game_link(t->game); !link.empty())
    text += "\nThe game page: " + link + "\n";
  auto queued = reply_anonymous(c, "takeover", t->game, "Adjutant: takeover of " + t->player,
                                wrap(text) + "\n" + kSignature);
  if (!queued.ok()) return queued.status();
  r.queued = (*queued ? 1 : 0) + *secret;
  r.outcome = "TAKEOVER: " + t->game + "/" + t->player + " by " + t->email;
  return r;
}

Result<ProcessResult> MailIngest::handle_resend(Context& c) {
  ProcessResult refusal;
  auto who = signed_command(c, &refusal);
  if (!who.ok()) return who.status();
  if (!*who) return refusal;
  const std::string& game = (*who)->game;
  const std::string& player = (*who)->player;

  ProcessResult r;
  r.state = "processed";
  r.action = "resend";
  const std::optional<int> turn = resend_turn(*c.command);
  auto rep = services_.report(game, player, turn);
  std::string text;
  std::optional<std::string> html;
  std::vector<MailAttachment> attachments;
  if (!rep.ok() && turn && rep.status().code() == StatusCode::kNotFound) {
    auto latest = services_.report(game, player, std::nullopt);
    text = "There is no report of turn " + std::to_string(*turn) + " for " + player + " in game " +
           game + ": " +
           (latest.ok() ? "turns 1 to " + std::to_string(latest->turn) + " have run"
                        : std::string("no turn has run yet")) +
           ". Send RESEND <turn> with one of them, or RESEND alone for the latest.\n\n" +
           kSignature;
    r.outcome =
        "RESEND: no report of turn " + std::to_string(*turn) + " for " + game + "/" + player;
  } else if (rep.ok()) {
    std::string intro = "Turn " + std::to_string(rep->turn) + " report for " + player +
                        " in game " + game + ", sent again as you asked.";
    if (const auto next = admin_.deadline_after_report(game, rep->turn))
      intro += " " + deadline_sentence(next->turn, next->at);
    std::vector<std::pair<std::string, std::string>> links;
    if (const std::string link = game_link(game); !link.empty())
      links.emplace_back("Your report on the web",
                         link + "/me/reports/" + std::to_string(rep->turn));
    text = intro + "\n\n" + rep->text + "\n";
    for (const auto& [label, url] : links) text += label + ": " + url + "\n";
    text += "\n";
    text += kSignature;
    html = report_html(intro, rep->text, links);
    if (auto map = ReportMaps(config_.map_painter, services_, game, rep->turn, map_mail())
                       .for_report(&rep->json))
      attachments.push_back(std::move(*map));
    r.outcome = "RESEND: turn " + std::to_string(rep->turn) + " report of " + game + "/" + player;
  } else if (rep.status().code() == StatusCode::kNotFound) {
    text = "There is no report for " + player + " in game " + game + " yet: no turn has run.\n\n" +
           kSignature;
    r.outcome = "RESEND: no report yet for " + game + "/" + player;
  } else {
    return rep.status();
  }
  auto queued =
      reply(c, "resend", game, "resend", std::move(text), std::move(html), std::move(attachments));
  if (!queued.ok()) return queued.status();
  r.queued = *queued ? 1 : 0;
  return r;
}

Result<ProcessResult> MailIngest::handle_status(Context& c) {
  ProcessResult refusal;
  auto who = signed_command(c, &refusal);
  if (!who.ok()) return who.status();
  if (!*who) return refusal;
  const std::string& game = (*who)->game;
  const std::string& player = (*who)->player;

  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  const int turn = state->value("turn", 0);
  auto subs = services_.files_on_record(game, turn);
  if (!subs.ok()) return subs.status();
  ProcessResult r;
  r.state = "processed";
  r.action = "status";
  std::string text;
  const auto it = std::find_if(subs->begin(), subs->end(),
                               [&](const SubmissionRecord& s) { return s.player == player; });
  if (it == subs->end()) {
    text = "No orders are on file for " + player + " in game " + game + ", turn " +
           std::to_string(turn) + ".\n";
    r.outcome = "STATUS: no orders on file for " + game + "/" + player;
  } else {
    auto ack = ack_from_json(it->ack);
    if (!ack.ok()) return ack.status();
    text = "The orders on file for " + player + " in game " + game + ", turn " +
           std::to_string(turn) + " (received " + utc_minutes(it->received_at) + ", " +
           source_in_words(it->source) + "):\n\n" + render_ack_text(*ack);
    if (!counts_as_orders(*it))
      text +=
          "\nNo line of this file can be carried out, so it does not count as orders: send "
          "a corrected file before the deadline.\n";
    r.outcome = "STATUS: submission " + std::to_string(it->id) + " of " + game + "/" + player;
  }
  if (const std::string link = game_link(game); !link.empty())
    text += "\nGame page: " + link + "\n";
  text += "\n";
  text += kSignature;
  auto queued = reply(c, "status", game, "status", std::move(text));
  if (!queued.ok()) return queued.status();
  r.queued = *queued ? 1 : 0;
  return r;
}

}  // namespace adj::mail
