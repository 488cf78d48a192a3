// Internal to the pieces of MailIngest (server/mail/mail_*.cc; not for other modules): the
// per-message Context, the command a message carries, and the text helpers the pieces share
// (defined once, in mail_ingest_text.cc). Pure functions; no state.
//
// The pieces: mail_ingest.cc (process_leased and the dispatch, game lookup, authentication and
// the guessing limiter), mail_inbox_leases.cc (accept, budgets, leases, process),
// mail_replies.cc (queueing answers and refusals), mail_orders.cc (orders and press),
// mail_commands.cc (HELP, RESEND, STATUS, SECRET, attendance), mail_out.cc (reports,
// corrections, secrets and reminders the game sends on its own).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/ascii.h"
#include "server/mail/mail_ingest.h"
#include "server/mail/mime.h"

namespace adj::mail {

namespace ingest_detail {

// A stored oversized message keeps at most this much of its header block, after a first line
// "X-Adjutant-Truncated: <original size>".
inline constexpr std::size_t kMaxHeadBytes = 64 * 1024;
inline constexpr std::string_view kTruncated = "X-Adjutant-Truncated:";

struct MailCommand {
  std::string name;  // "HELP", "RESEND", "STATUS", "SECRET"
  std::string arg;   // an optional game id; SECRET: the new secret
};

using ascii::iequals;  // base/ascii.h
// `text` with the secret field of each PLAYER line that carries `secret` masked; nothing else
// (a template line "PLAYER WSX <your secret>", or the same word elsewhere, stays as written).
std::string mask_player_lines(const std::string& text, const std::string& secret);
// A subject with the secret of a PLAYER line in it masked ("Re: PLAYER WSX ********"); the
// same word elsewhere stays as written.
std::string mask_subject(const std::string& s);
// Prose for a plain-text mail body: each line longer than `width` is broken at spaces (a word
// longer than the width stays whole). Lines that begin with a space (tables, quoted orders) are
// kept as they are.
std::string wrap(std::string_view text, std::size_t width = 76);
// The local part's +tag of an address ("britain-1" for "orders+britain-1@host"); "" if none.
std::string plus_tag(const std::string& address);
// The address without its +tag, lower-case.
std::string without_tag(const std::string& address);
// The subject without any "Re:", "Fwd:", "Fw:", "AW:", "WG:" prefixes.
std::string bare_subject(std::string s);
// `raw` with the secret of every PLAYER line, the word after every line-leading SECRET and every
// whole-word occurrence of `known` (the secrets the message was read to carry, e.g. in an HTML
// alternative) masked, as written: plain and quoted-printable bodies; base64 is not decoded.
std::string mask_mail_secrets(const std::string& raw, const std::vector<std::string>& known);
// True when `raw` has a part whose body is base64, where a secret cannot be masked as written.
bool has_base64_part(const std::string& raw);
// `raw`'s header block with its body replaced by a note: what is kept of a processed message
// that carried a secret in a part that cannot be masked as written.
std::string header_only(const std::string& raw);
// "SECRET <new-secret>" on a line of its own in the first text (after the GAME and PLAYER lines).
std::optional<MailCommand> secret_command_in(std::string_view text);
// RESEND's turn: "RESEND <turn>" names a turn by its number (a game id is never all digits in
// practice; the GAME line names the game). nullopt for RESEND alone or with a game id.
std::optional<int> resend_turn(const MailCommand& c);
// A line that is a command: the command word (HELP, RESEND, STATUS) alone, or followed by one
// game id.
std::optional<MailCommand> command_in(std::string_view line);
// The first line of `text` that is not blank, trimmed; "" when none.
std::string first_nonblank_line(std::string_view text);
// The token of a "GM <token>" line of its own in the first text, without quotes and signature
// (mail_gm.cc): the GM's own mail.
std::optional<std::string> gm_token_line(const ParsedMail& m);
// Whether a message is automatic mail, never answered (Auto-Submitted, Precedence, null sender,
// MAILER-DAEMON or postmaster).
bool automatic(const ParsedMail& m, const std::string& envelope_from);
// When the stored raw message is a truncated oversized one, its original size.
std::optional<std::size_t> truncated_size(std::string_view raw);
// "N bytes", or "N MiB (M bytes)" from 1 MiB on.
std::string bytes_text(std::size_t n);
// The HTML alternative of a report mail: `intro`, the links (label, URL) and `text` as <pre>.
// It carries a viewport line, so a phone lays it out at its own width (the intro and links
// wrap) instead of a 980-pixel page shrunk to fit; the <pre> keeps its columns and scrolls
// sideways inside its own box where the reader allows it.
std::string report_html(const std::string& intro, const std::string& text,
                        const std::vector<std::pair<std::string, std::string>>& links);
// Where answers to an unauthenticated sender go: MAIL FROM, else the Return-Path an MTA wrote
// (pipes and Maildirs without an envelope); "" when neither names an address.
std::string envelope_sender(const std::string& mail_from, const std::string& return_path);

}  // namespace ingest_detail

// One message being answered (process_leased and the handlers it calls).
struct MailIngest::Context {
  InboxMessage in;
  ParsedMail mail;
  std::string sender;  // where answers to an authenticated sender go: the From address
  // Where refusals and HELP answers go: the envelope sender (or the Return-Path an MTA wrote);
  // "" when unknown, and then nothing is answered.
  std::string refusal_to;
  std::string source;  // "email:<message-id>"
  std::string secret;  // a secret seen in the message, masked out of anything sent back
  std::optional<ingest_detail::MailCommand> command;
};

}  // namespace adj::mail
