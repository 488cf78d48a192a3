// MailIngest's orders: a message read as an order file (handle_orders) and the PRESS blocks in
// it (press_mail.h), alone or with orders.
#include <algorithm>

#include "base/ascii.h"
#include "rules/orders/parser.h"
#include "server/app/app_runtime.h"
#include "server/app/press.h"
#include "server/app/time_text.h"
#include "server/mail/detail.h"
#include "server/mail/mail_ingest.h"
#include "server/mail/mail_ingest_internal.h"
#include "server/mail/press_mail.h"
#include "server/mail/signature.h"

namespace adj::mail {

using detail::trim;
using detail::upper;
using ingest_detail::bytes_text;
using ingest_detail::iequals;
using ingest_detail::MailCommand;
using ingest_detail::wrap;

namespace {

// What of a message is read as orders (handle_orders).
struct OrdersText {
  const MailText* chosen = nullptr;  // null: nothing can be read (refusal_why says why)
  std::string text;                  // without quotes, signature and PRESS blocks
  int dropped = 0;                   // lines of quoted text or signature not read
  ParsedOrderFile parsed;            // of `text`
  std::vector<PressBlock> press;     // the PRESS blocks taken out of it
  std::string refusal_why, refusal_text;
};

// The text with orders: the first candidate with a GAME or PLAYER line, else the first text.
// Each is read without what it quotes and without the signature (a reply to a report with the
// report quoted below and no END must not become dozens of rejected lines). PRESS blocks
// (press_mail.h) are taken out before the orders are read.
OrdersText orders_text_of(const ParsedMail& m) {
  OrdersText o;
  for (const MailText& t : m.texts) {
    int n = 0;
    std::string own = without_quotes_and_signature(t.text, &n);
    ParsedOrderFile p = parse_order_file(own);
    if (p.game || p.player) {
      o.chosen = &t;
      o.text = std::move(own);
      o.dropped = n;
      o.parsed = std::move(p);
      break;
    }
  }
  if (!o.chosen) {
    const bool blank = std::all_of(m.texts.begin(), m.texts.end(),
                                   [](const MailText& t) { return trim(t.text).empty(); });
    if (m.text_source == TextSource::kHtml) {
      o.refusal_why = "HTML only, no orders in it";
      o.refusal_text =
          "Your message had only an HTML version and no orders could be read from it. "
          "Please send your orders as plain text (in most mail programs: Format > "
          "Plain Text), starting with the GAME and PLAYER lines.";
      return o;
    }
    if (blank) {
      o.refusal_why = "no text";
      o.refusal_text =
          "Your message had no text this server could read (no text/plain part, no "
          "text attachment). Send your orders as plain text in the body of a message.";
      return o;
    }
    if (m.text.size() > kMaxOrderFileBytes) {
      o.refusal_why = "text too large";
      o.refusal_text = "The text of your message is " + bytes_text(m.text.size()) +
                       "; order files are limited to " + bytes_text(kMaxOrderFileBytes) + ".";
      return o;
    }
    o.chosen = &m.texts.front();
    o.text = without_quotes_and_signature(o.chosen->text, &o.dropped);
    o.parsed = parse_order_file(o.text);
  }
  PressExtract press = extract_press_blocks(o.text);
  if (!press.blocks.empty()) {
    o.text = std::move(press.rest);
    o.parsed = parse_order_file(o.text);
    o.press = std::move(press.blocks);
  }
  return o;
}

// Idempotence: the submission from `source` already stored in `game` (a crash after
// submitting), into *ack and *id (left alone when there is none). False when the game does not
// exist.
Result<bool> stored_orders_of(Services& services, const std::string& game,
                              const std::string& source, OrderAck* ack,
                              std::optional<std::int64_t>* id) {
  auto all = services.all_files(game);
  if (!all.ok() && all.status().code() == StatusCode::kNotFound) return false;
  if (!all.ok()) return all.status();
  for (const auto& s : *all)
    if (s.source == source) {
      auto a = ack_from_json(s.ack);
      if (!a.ok()) return a.status();
      *ack = std::move(a).value();
      *id = s.id;
    }
  return true;
}

// The notes after an acknowledgement: the turn changed, where the orders were read from, what
// was not read, and whether the file counts as orders.
std::string orders_notes(const OrdersText& o, const OrderAck& ack, const std::string& turn_note,
                         UnixTime received_at) {
  std::string notes = turn_note.empty() ? "" : turn_note + "\n";
  if (o.chosen->source == TextSource::kHtml)
    notes +=
        "Note: your message had no plain-text version, so the orders were read from its "
        "HTML after removing the formatting. Please send plain text if you can.\n";
  if (o.chosen->source == TextSource::kAttachment)
    notes += "The orders were read from the attachment " +
             (o.chosen->filename.empty() ? std::string("(unnamed)") : o.chosen->filename) + ".\n";
  if (o.dropped > 0)
    notes += std::to_string(o.dropped) + (o.dropped == 1 ? " line" : " lines") +
             " of quoted text (starting with >) or signature " + (o.dropped == 1 ? "was" : "were") +
             " not read as orders.\n";
  if (!ack.refused && counts_as_orders(ack))
    notes += "Your orders for turn " + std::to_string(ack.turn) + " are on file (received " +
             utc_minutes(received_at) +
             ") and replace any you sent before; send a new file to replace them, or STATUS to "
             "see what is on file.\n";
  else if (!ack.refused)
    notes += "No line of this file can be carried out, so it does not count as orders for turn " +
             std::to_string(ack.turn) +
             ": you will be counted as missing them. Fix the rejected lines and send the whole "
             "file again.\n";
  return notes;
}

// "N accepted, M rejected", or "refused: <why>".
std::string orders_result_text(const OrderAck& ack) {
  return ack.refused ? "refused: " + ack.refusal
                     : std::to_string(ack.accepted_count()) + " accepted, " +
                           std::to_string(ack.rejected_count()) + " rejected";
}

// The warning to the player's address on file (`on_file`) that their orders came from `sender`.
OutgoingMail other_address_warning(const OrderAck& ack, const std::string& game,
                                   const std::string& sender, const std::string& on_file,
                                   UnixTime received_at) {
  OutgoingMail w;
  w.subject = "Orders for " + ack.player + " in " + game + " came from another address";
  w.text =
      wrap("Orders for player " + ack.player + " in game " + game + " (turn " +
           std::to_string(ack.turn) + ") arrived on " + utc_minutes(received_at) + " from " +
           sender + ", not from your address on file (" + on_file +
           ").\nThey carried your secret and were " +
           (ack.refused ? "refused: " + ack.refusal
                        : "accepted: " + ascii::with_count(ack.accepted_count(), "line") +
                              " accepted, " + std::to_string(ack.rejected_count()) + " rejected") +
           ".\n\nIf this was not you, tell the game master at once and ask for a new "
           "secret.\n\n") +
      kSignature;
  w.headers.emplace_back("Auto-Submitted", "auto-generated");
  return w;
}

}  // namespace

Result<ProcessResult> MailIngest::handle_orders(Context& c) {
  OrdersText o = orders_text_of(c.mail);
  if (!o.chosen) return refuse(c, o.refusal_why, o.refusal_text);
  const ParsedOrderFile& parsed = o.parsed;
  if (parsed.secret) c.secret = *parsed.secret;
  if (o.press.empty()) {  // a letter to the GM, not orders (mail_gm.cc)
    auto letter = letter_to_gm(c, o.text, parsed);
    if (!letter.ok()) return letter.status();
    if (*letter) return std::move(**letter);
  }

  const std::optional<std::string> game = find_game(c, parsed.game);
  if (!game)
    return refuse(c, "no game named",
                  "Your message did not say which game it is for, so it was not read as orders. "
                  "Orders start with the lines\n\n  GAME <game-id>\n  PLAYER <player-code> "
                  "<secret>\n\nfollowed by one order per line, and END.");

  OrderAck ack;
  std::optional<std::int64_t> submission_id;
  auto known_game = stored_orders_of(services_, *game, c.source, &ack, &submission_id);
  if (!known_game.ok()) return known_game.status();
  if (!*known_game)
    return refuse(c, "unknown game " + *game,
                  "There is no game \"" + *game +
                      "\" on this server, so your message was not "
                      "read as orders. Check the GAME line.");
  if (!o.press.empty() && parsed.lines.empty() && !submission_id)
    return handle_press(c, o.press);  // press alone: no orders to store
  std::string turn_note;              // the open turn changed while the file arrived
  // Guessing limit on the PLAYER line's secret (set_throttle); not again for a message whose
  // submission was stored before a crash.
  const bool guarded = !submission_id && parsed.player && parsed.secret;
  const ThrottleKeys keys = throttle_keys(c, *game, parsed.player.value_or(""));
  if (guarded) {
    auto locked = throttled(c, keys);
    if (!locked.ok()) return locked.status();
    if (*locked) return std::move(**locked);
  }
  if (!submission_id) {
    auto out = services_.submit_orders(*game, o.text, c.source);
    if (!out.ok()) return out.status();  // e.g. the turn is being resolved: answered on a retry
    ack = std::move(out->ack);
    submission_id = out->submission_id;
    turn_note = std::move(out->note);
  }
  if (guarded) {
    const SecretVerdict sc = secret_check_of(ack);
    if (sc != SecretVerdict::kNotChecked)
      ADJ_RETURN_IF_ERROR(throttle_record(
          sc == SecretVerdict::kUnknownPlayer ? ThrottleKeys{keys.client, ""} : keys,
          sc == SecretVerdict::kRight, *game, *parsed.player));
  }

  bool auth = !ack.refused;
  if (!auth && parsed.player && parsed.secret) {
    auto a = authenticated(*game, *parsed.player, *parsed.secret);
    if (!a.ok()) return a.status();
    auth = *a;
  }
  ProcessResult r;
  r.action = "orders";
  r.state = "processed";
  r.submission_id = submission_id;
  const std::string who = *game + "/" + (ack.player.empty() ? "?" : ack.player);
  const std::string sub =
      submission_id ? " (submission " + std::to_string(*submission_id) + ")" : std::string();
  if (!auth) {
    auto rr = refuse(c, "orders for " + who + " refused: " + ack.refusal,
                     "Your orders for game " + *game + " were refused: " + ack.refusal + ".");
    if (!rr.ok()) return rr;
    rr->action = "orders";
    rr->submission_id = submission_id;
    rr->outcome += sub;
    return rr;
  }

  std::string body = render_ack_text(ack);
  if (!o.press.empty()) {
    const std::string from = !ack.player.empty() ? ack.player : upper(parsed.player.value_or(""));
    auto sent = press_answer(c, *game, from, o.press);
    if (!sent.ok()) return sent.status();
    body += "\n" + *sent;
  }
  body += "\n" + wrap(orders_notes(o, ack, turn_note, c.in.received_at));
  if (const std::string link = game_link(*game); !link.empty()) body += "Game page: " + link + "\n";
  body += "\n";
  body += kSignature;
  auto queued = reply(c, "ack", *game, "ack", body);
  if (!queued.ok()) return queued.status();
  r.queued += *queued ? 1 : 0;
  r.outcome = "orders for " + who + ": " + orders_result_text(ack) + sub;

  // The player's address on file is warned when the orders came from elsewhere.
  if (!ack.player.empty()) {
    auto state = services_.show_game(*game);
    if (!state.ok()) return state.status();
    std::string on_file, name;
    for (const Json& p : (*state)["players"])
      if (p.value("code", "") == ack.player) {
        on_file = p.value("email", "");
        name = p.value("name", "");
      }
    if (!on_file.empty() && !iequals(on_file, c.sender)) {
      auto warned = queue("warning", *game, Mailbox{on_file, name},
                          "inbox:" + std::to_string(c.in.id) + ":warning",
                          other_address_warning(ack, *game, c.sender, on_file, c.in.received_at));
      if (!warned.ok()) return warned.status();
      r.queued += *warned ? 1 : 0;
      r.outcome += "; warned " + on_file;
    }
  }
  return r;
}

// ---- press (press_mail.h) ----------------------------------------------------------------------

Result<std::string> MailIngest::press_answer(Context& c, const std::string& game,
                                             const std::string& player,
                                             const std::vector<PressBlock>& blocks, int* sent) {
  if (player.empty())
    return std::string("Press: nothing was sent (press is not available here).\n");
  Press press = app_.press();
  return send_press_blocks(press, game, player, blocks, c.source, sent);
}

Result<ProcessResult> MailIngest::handle_press(Context& c, const std::vector<PressBlock>& blocks) {
  c.command = MailCommand{"PRESS", ""};
  ProcessResult refusal;
  auto who = signed_command(c, &refusal);
  if (!who.ok()) return who.status();
  if (!*who) return refusal;
  const std::string& game = (*who)->game;
  const std::string player = upper((*who)->player);
  int sent = 0;
  auto text = press_answer(c, game, player, blocks, &sent);
  if (!text.ok()) return text.status();
  std::string body = "Your press as " + player + " in game " + game +
                     " (no orders were in the "
                     "message, so your orders on file are unchanged).\n\n" +
                     *text + "\n";
  if (const std::string link = game_link(game); !link.empty())
    body += "Your press on the web: " + link + "/me/press\n\n";
  body += kSignature;
  return answered(c, "press-ack", game, "press", std::move(body), "press",
                  "press from " + game + "/" + player + ": " + std::to_string(sent) + " of " +
                      std::to_string(blocks.size()) + " sent");
}

}  // namespace adj::mail
