// MailIngest's mail between the players and the GM (mail_ingest.h): a player's letter that is
// neither orders nor a command goes to the GM inbox (press to the GM, server/app/press.h) and is
// forwarded to the GM's address, unless it replies to a press digest mailed to that player: then
// it is press to the digest's senders. The GM's own mail, signed with a GM line and sent from the
// game's GM address, sends its PRESS blocks as the GM's press.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "rules/orders/parser.h"
#include "rules/orders/suggest.h"
#include "server/app/app_runtime.h"
#include "server/app/press.h"
#include "server/mail/compose.h"
#include "server/mail/detail.h"
#include "server/mail/mail_ingest.h"
#include "server/mail/mail_ingest_internal.h"
#include "server/mail/press_mail.h"
#include "server/mail/signature.h"
#include "storage/store.h"

namespace adj::mail {

using detail::trim;
using detail::upper;
using ingest_detail::iequals;
using ingest_detail::wrap;

namespace {

// The first word of `line` (up to a space or tab).
std::string first_word(std::string_view line) {
  const std::string t = trim(std::string(line));
  return t.substr(0, t.find_first_of(" \t"));
}

// Whether the file reads as a letter, not as orders: it has lines, none of them an order, none
// numbered, and none starting with a word within one letter of an action's name.
bool reads_as_letter(const ParsedOrderFile& p) {
  if (p.lines.empty() || !p.orders.empty() || p.draw_line) return false;
  for (const LineResult& l : p.lines) {
    if (l.reason.rfind("unknown action", 0) != 0) return false;
    const std::string word = first_word(l.text);
    if (word.empty() || std::isdigit(static_cast<unsigned char>(word[0]))) return false;
    for (int v = static_cast<int>(Verb::kMove); v <= static_cast<int>(Verb::kInvade); ++v)
      if (edit_distance(word, verb_name(static_cast<Verb>(v)), 1) <= 1) return false;
  }
  return true;
}

// What the GM is given of a letter: its subject, then its text without the GAME, PLAYER (never
// the secret), TURN and END lines, cut to `max` bytes (on a UTF-8 boundary) with a note.
std::string letter_body(const std::string& subject, std::string_view text, std::size_t max,
                        bool* cut) {
  std::string body = subject.empty() ? "" : "Subject: " + subject + "\n\n";
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    const std::string w = upper(first_word(line));
    if (w != "GAME" && w != "PLAYER" && w != "TURN" && w != "END") {
      body.append(line);
      body += '\n';
    }
    start = end + 1;
  }
  *cut = false;
  const std::string note = "\n[cut here: the message was longer than the GM inbox keeps]";
  if (body.size() > max && max > note.size()) {
    std::size_t at = max - note.size();
    while (at > 0 && (static_cast<unsigned char>(body[at]) & 0xC0) == 0x80) --at;
    body = body.substr(0, at) + note;
    *cut = true;
  }
  return body;
}

// The token of a "GM <token>" line of its own in `text`.
std::optional<std::string> gm_line_in(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string line = trim(std::string(text.substr(start, end - start)));
    const std::size_t space = line.find_first_of(" \t");
    if (space != std::string::npos && iequals(line.substr(0, space), "GM")) {
      const std::string rest = trim(line.substr(space + 1));
      if (!rest.empty() && rest.find_first_of(" \t") == std::string::npos) return rest;
    }
    start = end + 1;
  }
  return std::nullopt;
}

// The senders (named, not `player`) of the press digest mailed to `player` at `address` that
// `m` replies to (In-Reply-To or References); nullopt when it replies to none. *anonymous counts
// the digest's anonymous messages, whose senders are never named.
Result<std::optional<std::vector<std::string>>> replied_press_senders(
    Store& store, const std::string& game, const std::string& player, const std::string& address,
    const ParsedMail& m, const std::string& domain, int* anonymous) {
  using Maybe = std::optional<std::vector<std::string>>;
  std::vector<std::string> ids = m.references;
  if (!m.in_reply_to.empty()) ids.push_back(m.in_reply_to);
  if (ids.empty()) return Maybe();
  auto notices = store.notices(game);
  if (!notices.ok()) return notices.status();
  std::int64_t from = 0;  // the previous digest's last press id
  for (const Notice& n : *notices) {
    if (n.kind != "press" || n.players != std::vector<std::string>{player}) continue;
    const std::int64_t to = std::atoll(n.dedupe_key.substr(n.dedupe_key.rfind(':') + 1).c_str());
    const std::string id = make_message_id("notice:" + n.dedupe_key + ":" + address, domain);
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
      from = to;
      continue;
    }
    auto messages = store.press_messages_after(game, from);
    if (!messages.ok()) return messages.status();
    std::vector<std::string> senders;
    for (const PressMessage& p : *messages) {
      const bool to_player = p.to_all || std::find(p.recipients.begin(), p.recipients.end(),
                                                   player) != p.recipients.end();
      if (p.id > to || p.sender == player || !to_player) continue;
      if (p.anonymous) {
        ++*anonymous;
      } else if (std::find(senders.begin(), senders.end(), p.sender) == senders.end()) {
        senders.push_back(p.sender == kGmPressCode ? std::string("GM") : p.sender);
      }
    }
    return Maybe(std::move(senders));
  }
  return Maybe();
}

// Whether `a` is the token `b` (not empty), compared without stopping at the first difference.
bool same_token(const std::string& a, const std::string& b) {
  if (b.empty()) return false;
  unsigned diff = a.size() == b.size() ? 0u : 1u;
  for (std::size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i < b.size() ? i : 0]);
  return diff == 0;
}

}  // namespace

namespace ingest_detail {

std::optional<std::string> gm_token_line(const ParsedMail& m) {
  if (m.texts.empty()) return std::nullopt;
  return gm_line_in(without_quotes_and_signature(m.texts.front().text));
}

}  // namespace ingest_detail

Result<ProcessResult> MailIngest::handle_gm_mail(Context& c, const std::string& token) {
  c.secret = token;  // masked out of anything sent back
  const std::string text = without_quotes_and_signature(c.mail.texts.front().text);
  const ParsedOrderFile header = parse_order_file(text);
  const std::optional<std::string> game = find_game(c, header.game);
  Press press = app_.press();
  Result<std::string> address = std::string();
  if (game) {
    address = press.gm_address(*game);
    if (!address.ok() && address.status().code() != StatusCode::kNotFound) return address.status();
  }
  // Not from the game's GM address: a player's mail with a line that happens to start with "GM"
  // ("GM thanks"), read as any other mail (the token is never checked, so never counted).
  if (!game || !address.ok() || address->empty() || !iequals(*address, c.sender)) {
    c.secret.clear();
    return handle_orders(c);
  }
  const ThrottleKeys keys{throttle_keys(c, *game, "").client, kThrottleKeyGm};
  auto locked = throttled(c, keys);
  if (!locked.ok()) return locked.status();
  if (*locked) return std::move(**locked);
  const bool right = same_token(token, config_.gm_token);
  if (throttle_ && !right) ADJ_RETURN_IF_ERROR(throttle_record(keys, false, *game, ""));
  if (!right)
    return refuse(c, "GM mail refused for " + *game,
                  "A message with a GM line must carry the GM token; this one does not, so "
                  "nothing in it was read or sent.");
  if (throttle_) ADJ_RETURN_IF_ERROR(throttle_record(keys, true, *game, ""));
  const PressExtract blocks = extract_press_blocks(text);
  std::string body;
  int sent = 0;
  if (blocks.blocks.empty()) {
    body = "Your message as the GM of " + *game +
           " had no PRESS block, so nothing was sent. Write\n\n  PRESS TO ALL (or kingdoms)\n  "
           "<your message>\n  ENDPRESS\n\nafter the GAME and GM lines.\n";
  } else {
    auto answer = send_press_blocks(press, *game, kGmPressCode, blocks.blocks, c.source, &sent);
    if (!answer.ok()) return answer.status();
    body = "Your press as the GM of " + *game + ":\n\n" + *answer;
  }
  body += "\n";
  body += kSignature;
  return answered(c, "gm-press-ack", *game, "gm-press", std::move(body), "gm-press",
                  "GM press in " + *game + ": " + std::to_string(sent) + " of " +
                      std::to_string(blocks.blocks.size()) + " sent");
}

Result<std::optional<ProcessResult>> MailIngest::letter_to_gm(Context& c, const std::string& text,
                                                              const ParsedOrderFile& parsed) {
  using Maybe = std::optional<ProcessResult>;
  if (!reads_as_letter(parsed)) return Maybe();
  std::optional<std::string> game;
  std::string player;
  const bool signed_letter = parsed.player && parsed.secret;
  if (signed_letter) {
    game = find_game(c, parsed.game);
    if (!game) return Maybe();
    player = upper(*parsed.player);
    const ThrottleKeys keys = throttle_keys(c, *game, player);
    auto locked = throttled(c, keys);
    if (!locked.ok()) return locked.status();
    if (*locked) return Maybe(std::move(**locked));
    auto auth = authenticated(*game, player, *parsed.secret);
    if (!auth.ok()) return auth.status();
    ADJ_RETURN_IF_ERROR(throttle_record(keys, *auth, *game, player));
    if (!*auth) return Maybe();  // answered as orders: the refusal says what is wrong
  } else if (!parsed.game && !parsed.player) {
    // Unsigned: a player's address on file, in the game the subject or recipient names, else
    // in the one game where it is on file.
    const std::optional<std::string> named = find_game(c, std::nullopt);
    auto games = services_.list_games();
    if (!games.ok()) return games.status();
    int found = 0;
    for (const GameSummary& g : *games) {
      if (g.status == "finished" || (named && !iequals(g.id, *named))) continue;
      auto state = services_.show_game(g.id);
      if (!state.ok()) return state.status();
      for (const Json& p : (*state)["players"])
        if (iequals(p.value("email", ""), c.sender)) {
          ++found;
          game = g.id;
          player = p.value("code", "");
        }
    }
    if (found != 1) return Maybe();
  } else {
    return Maybe();
  }
  Press press = app_.press();
  int anonymous = 0;
  auto replied = replied_press_senders(app_.store(), *game, player, c.sender, c.mail,
                                       domain_of(config_.from.address), &anonymous);
  if (!replied.ok()) return replied.status();
  if (*replied && !(*replied)->empty()) {
    auto answered = press_reply(c, press, *game, player, text, **replied, anonymous);
    if (!answered.ok()) return answered.status();
    return Maybe(std::move(answered).value());
  }
  bool cut = false;
  PressDraft d;
  d.to = {"GM"};
  d.body = letter_body(c.mail.subject, text, press.limits().max_body_bytes, &cut);
  d.source = c.source + (signed_letter ? "#gm" : "#gm-unsigned");
  auto sent = press.send(*game, player, d);
  std::string body;
  if (sent.ok()) {
    auto address = press.gm_address(*game);
    if (!address.ok()) return address.status();
    body = "Your message was passed to the GM of " + *game +
           (address->empty() ? "" : " (" + *address + ")") +
           ". It was not read as orders: your orders on file are unchanged.\n";
    if (cut)
      body += "It was longer than the GM inbox keeps, so only its beginning was passed on.\n";
    body += "\nTo send orders, start a message with the lines GAME " + *game + " and PLAYER " +
            player + " <your secret>, then one order per line. Send HELP for the syntax.\n";
  } else if (sent.status().code() == StatusCode::kInvalidArgument ||
             sent.status().code() == StatusCode::kFailedPrecondition) {
    body = "Your message could not be passed to the GM of " + *game + ": " +
           sent.status().message() + ".\n";
  } else {
    return sent.status();
  }
  body = wrap(body) + "\n";
  body += kSignature;
  auto r = answered(c, "to-gm", *game, "to-gm", std::move(body), "to-gm",
                    "letter to the GM of " + *game + " from " + player +
                        (signed_letter ? "" : " (by address, unsigned)") +
                        (sent.ok() ? "" : ": not passed (" + sent.status().message() + ")"));
  if (!r.ok()) return r.status();
  return Maybe(std::move(r).value());
}

Result<ProcessResult> MailIngest::press_reply(Context& c, Press& press, const std::string& game,
                                              const std::string& player, const std::string& text,
                                              const std::vector<std::string>& senders,
                                              int anonymous) {
  bool cut = false;
  PressDraft d;
  d.to = senders;
  d.body = letter_body("", text, press.limits().max_body_bytes, &cut);
  d.source = c.source + "#reply";
  auto sent = press.send(game, player, d);
  std::string body;
  if (sent.ok()) {
    body = "Your answer was sent as press to " + sent->to + ".\n";
    if (cut) body += "It was longer than a press message may be, so only its beginning was sent.\n";
  } else if (sent.status().code() == StatusCode::kInvalidArgument ||
             sent.status().code() == StatusCode::kFailedPrecondition) {
    body = "Your answer was not sent: " + sent.status().message() + ".\n";
  } else {
    return sent.status();
  }
  if (anonymous > 0)
    body += "Anonymous messages cannot be answered by reply; their senders stay unnamed.\n";
  body +=
      "\nPress is answered by replying to a press mail from your address on file; to write to "
      "others, send PRESS TO <kingdoms> ... ENDPRESS with your GAME and PLAYER lines.\n";
  body = wrap(body) + "\n";
  body += kSignature;
  return answered(
      c, "press-ack", game, "press", std::move(body), "press",
      "press reply from " + game + "/" + player +
          (sent.ok() ? " to " + sent->to : ": not sent (" + sent.status().message() + ")"));
}

}  // namespace adj::mail
