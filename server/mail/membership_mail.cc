// JOIN and ADDRESS by mail (membership_mail.h): MailIngest::handle_join and handle_address.
#include "server/mail/membership_mail.h"

#include <cctype>

#include "server/app/app_runtime.h"
#include "server/app/confirmations.h"
#include "server/app/membership.h"
#include "server/app/services.h"
#include "server/mail/detail.h"
#include "server/mail/mail_ingest.h"
#include "server/mail/signature.h"
namespace adj::mail {

using detail::upper;
using detail::words;

namespace {

constexpr std::size_t kMaxLine = 1000;

// "  JOIN <id> <code> <code>" for the first game open for sign-ups, with two of its own kingdom
// codes; placeholders when no game is open.
std::string join_example(Services& services) {
  auto games = services.list_games();
  if (games.ok())
    for (const GameSummary& g : *games) {
      if (g.status != "signup" || g.archived_at) continue;
      auto st = services.load_state(g.id);
      if (!st.ok()) break;
      std::string line = "  JOIN " + g.id;
      for (std::size_t i = 0; i < st->players.size() && i < 2; ++i)
        line += " " + st->players[i].code;
      return line + "\n";
    }
  return "  JOIN <game-id> <kingdom> <kingdom>\n";
}

}  // namespace

std::optional<std::vector<std::string>> join_command_in(std::string_view line) {
  if (line.size() > kMaxLine) line = line.substr(0, kMaxLine);
  std::vector<std::string> w = words(line);
  if (w.empty() || upper(w[0]) != "JOIN") return std::nullopt;
  w[0] = "JOIN";
  return w;
}

std::optional<std::string> address_command_in(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::vector<std::string> w = words(text.substr(start, end - start));
    // Only a word with an '@' is meant as an address: "Address London" in a signature is not
    // the command (a malformed address with an '@' is, and is refused naming what is wrong).
    if (w.size() == 2 && upper(w[0]) == "ADDRESS" && w[1].find('@') != std::string::npos)
      return w[1];
    start = end + 1;
  }
  return std::nullopt;
}

std::optional<std::string> confirm_command_in(std::string_view line) {
  if (line.size() > kMaxLine) line = line.substr(0, kMaxLine);
  const std::vector<std::string> w = words(line);
  if (w.empty() || upper(w[0]) != "CONFIRM") return std::nullopt;
  return w.size() < 2 || w.size() > 3 ? std::string() : w.back();
}

Membership MailIngest::membership() { return app_.membership(config_.base_url); }

Result<ProcessResult> MailIngest::handle_join(Context& c, const std::string& refusal_to,
                                              const std::vector<std::string>& words) {
  ProcessResult r;
  r.state = "processed";
  r.action = "join";
  if (refusal_to.empty()) {
    r.outcome = "JOIN; not answered nor recorded: no envelope sender";
    return r;
  }
  auto spent = refusal_budget_spent(refusal_to);
  if (!spent.ok()) return spent.status();
  if (!spent->empty()) {
    r.outcome = "JOIN; not recorded nor answered: " + *spent;
    return r;
  }
  std::string text, game;
  if (words.size() < 2) {
    text =
        "To join a game, send a message whose first line is\n\n  JOIN <game-id> [the kingdoms "
        "you would like, most wanted first]\n\nfrom the address you want to play from, e.g.\n\n" +
        join_example(services_) +
        "\nThe games open for sign-ups are listed on the server's home page.\n";
    r.outcome = "JOIN without a game";
  } else {
    game = words[1].substr(0, 64);
    std::string prefs;
    for (std::size_t i = 2; i < words.size(); ++i) prefs += (i > 2 ? " " : "") + words[i];
    Confirmations confirm = app_.confirmations(config_.base_url);
    auto joined = confirm.ask_signup(game, refusal_to, prefs, "mail", "");
    if (joined.ok()) {
      game = joined->game;
      text = joined->text;
      r.outcome = "JOIN " + game + ": " +
                  (joined->limited ? "refused (request limit) for " : "confirmation asked for ") +
                  refusal_to;
    } else if (joined.status().code() == StatusCode::kNotFound ||
               joined.status().code() == StatusCode::kInvalidArgument ||
               joined.status().code() == StatusCode::kFailedPrecondition ||
               joined.status().code() == StatusCode::kAlreadyExists) {
      const std::string& why = joined.status().message();
      text = (joined.status().code() == StatusCode::kAlreadyExists
                  ? why
                  : "Your sign-up was not recorded: " + why +
                        ".\n\nCorrect it and send JOIN again: the first line of your message "
                        "is\n\n  JOIN <game-id> [kingdoms you would like]") +
             "\n";
      r.outcome = "JOIN " + game + " refused: " + why;
      if (joined.status().code() == StatusCode::kNotFound) game.clear();
    } else {
      return joined.status();
    }
  }
  text += "\n";
  text += kSignature;
  auto queued = reply_anonymous(c, "join", game, "Adjutant: your sign-up (JOIN)", text);
  if (!queued.ok()) return queued.status();
  r.queued = *queued ? 1 : 0;
  return r;
}

Result<ProcessResult> MailIngest::handle_confirm(Context& c, const std::string& refusal_to,
                                                 const std::string& code) {
  ProcessResult r;
  r.state = "processed";
  r.action = "confirm";
  if (refusal_to.empty()) {
    r.outcome = "CONFIRM; not answered nor confirmed: no envelope sender";
    return r;
  }
  auto spent = refusal_budget_spent(refusal_to);
  if (!spent.ok()) return spent.status();
  if (!spent->empty()) {
    r.outcome = "CONFIRM; not confirmed nor answered: " + *spent;
    return r;
  }
  std::string text, game;
  if (code.empty()) {
    text =
        "To confirm a sign-up or standby request, send a message whose first line is\n\n"
        "  CONFIRM <code>\n\nwith the code from the confirmation mail.\n";
    r.outcome = "CONFIRM without a code";
  } else {
    Confirmations confirm = app_.confirmations(config_.base_url);
    auto done = confirm.confirm(code, "mail");
    if (done.ok()) {
      game = done->game;
      text = done->text;
      r.outcome = "CONFIRM " + done->kind + " " + game + " for " + done->address;
    } else if (done.status().code() == StatusCode::kPermissionDenied ||
               done.status().code() == StatusCode::kNotFound ||
               done.status().code() == StatusCode::kInvalidArgument ||
               done.status().code() == StatusCode::kFailedPrecondition ||
               done.status().code() == StatusCode::kAlreadyExists) {
      text = "Nothing was confirmed: " + done.status().message() + ".\n";
      r.outcome = "CONFIRM refused: " + done.status().message();
    } else {
      return done.status();
    }
  }
  text += "\n";
  text += kSignature;
  auto queued = reply_anonymous(c, "join", game, "Adjutant: confirmation (CONFIRM)", text);
  if (!queued.ok()) return queued.status();
  r.queued = *queued ? 1 : 0;
  return r;
}

Result<ProcessResult> MailIngest::handle_address(Context& c, const std::string& new_address) {
  ProcessResult refusal;
  auto who = signed_command(c, &refusal);
  if (!who.ok()) return who.status();
  if (!*who) return refusal;
  const std::string& game = (*who)->game;
  const std::string player = upper((*who)->player);
  ProcessResult r;
  r.state = "processed";
  r.action = "address";
  std::string text;
  const Status changed = membership().change_address(game, player, new_address, "player:" + player);
  if (changed.ok()) {
    text = "The address of " + player + " in game " + game + " is now " + new_address +
           ". Reports and messages of the game go there from now on; the old address was told "
           "of the change.\n\n";
    r.outcome = "ADDRESS: changed for " + game + "/" + player;
  } else if (changed.code() == StatusCode::kInvalidArgument ||
             changed.code() == StatusCode::kFailedPrecondition) {
    text = "The address was not changed: " + changed.message() +
           ".\n\nSend the line ADDRESS <new address> with your GAME and PLAYER lines.\n\n";
    r.outcome = "ADDRESS: refused for " + game + "/" + player + ": " + changed.message();
  } else {
    return changed;
  }
  text += kSignature;
  auto queued = reply(c, "address", game, "address", std::move(text));
  if (!queued.ok()) return queued.status();
  r.queued = *queued ? 1 : 0;
  return r;
}

}  // namespace adj::mail
