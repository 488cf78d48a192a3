// Reading received mail: one RFC 5322 message (CRLF or LF line endings) parsed with GMime 3 into
// the few things the ingest needs. Pure apart from GMime's process-wide initialisation, which is
// done once on first use (std::call_once; g_mime_shutdown is never called). Implemented in
// mime.cc (GMime parsing), mime_scan.cc (raw-byte scans) and mime_text.cc (HTML and replies).
//
// Thread-safety: the functions may be called from several threads at once (each call uses its
// own GMime objects). Nothing here throws.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/core/status.h"
#include "storage/records.h"

namespace adj::mail {

// Where a candidate text of a message came from.
enum class TextSource {
  kNone,        // no text at all
  kPlain,       // an inline text/plain part (or a message with no Content-Type: RFC 2045 default)
  kAttachment,  // a text attachment (*.txt, or text/plain marked as an attachment)
  kHtml,        // text converted from a text/html part (tags stripped, entities decoded)
};
const char* to_string(TextSource s);

// One text found in a message, already transfer-decoded (QP, base64) and converted to UTF-8.
struct MailText {
  TextSource source = TextSource::kNone;
  std::string filename;  // attachments: the file name (RFC 2231 decoded); else ""
  std::string text;      // UTF-8, LF line endings
};

struct ParsedMail {
  std::string message_id;  // without <>; "" when the message has none
  std::string from_address;
  std::string from_name;        // decoded display name; "" when none
  std::string subject;          // decoded (RFC 2047), UTF-8, unfolded
  std::vector<std::string> to;  // addr-specs of To and Cc, in order
  std::optional<UnixTime> date;
  std::string in_reply_to;              // message id without <>; "" when none
  std::vector<std::string> references;  // message ids without <>, oldest first
  std::string auto_submitted;           // the Auto-Submitted header value, lower-case; "" if none
  std::string precedence;               // the Precedence header value, lower-case; "" if none
  std::string return_path;  // the addr-spec of Return-Path (the envelope sender an MTA wrote)

  // The orders text by the simple rule: the first inline text/plain part; else the first text
  // attachment; else the first HTML part converted to text. `text_source` says which (kNone and
  // "" when the message has no text at all). from_html is text_source == kHtml.
  std::string text;
  TextSource text_source = TextSource::kNone;
  bool from_html = false;
  // Every candidate in that order of preference (inline plain parts in document order, then
  // text attachments, then HTML parts), for callers that look past the first.
  std::vector<MailText> texts;
  bool has_html = false;  // some part is text/html
};

// Bounds on the work and memory one received message may cost. parse_mail checks the first
// three with a linear scan of the raw bytes before GMime builds anything, so a message of many
// tiny parts or header lines never becomes millions of GMime objects; it checks depth on the
// (then small) tree GMime built, and decoded bytes while it collects texts.
struct MimeLimits {
  // Body parts: lines that delimit a part of a multipart (the "--" + boundary lines of the
  // boundaries the message declares), closing delimiters not counted.
  std::size_t max_parts = 200;
  // Declared boundaries and embedded messages (Content-Type multipart/* or message/*): each
  // opens a level of nesting, so this bounds GMime's recursion too.
  std::size_t max_containers = 100;
  // Header lines (fields and their folded continuations) of the message and all its parts.
  std::size_t max_header_lines = 5000;
  // Nesting: 1 for a single-part message, +1 per multipart or attached message level.
  int max_depth = 10;
  // The sum of the candidate texts (ParsedMail::texts) after transfer decoding and conversion
  // to UTF-8; base64 and quoted-printable shrink, charsets may grow by up to three times.
  std::size_t max_decoded_bytes = 16u << 20;
};

// Parses `raw`. A leading mbox "From " envelope line is skipped.
// InvalidArgument ("the message is empty") for empty or blank input, and
// InvalidArgument when GMime finds no message in it (no header block). A message with broken
// MIME structure is read as far as GMime can; it may then have no texts.
// FailedPrecondition when a bound of `limits` is hit: the message is well formed mail but too
// complex to read; the message names the bound in words a sender can act on ("the message has
// more than 200 MIME parts"). Time and memory are linear in raw.size() for any input.
// Pure function of (raw, limits) apart from GMime's one-time initialisation.
Result<ParsedMail> parse_mail(std::string_view raw, const MimeLimits& limits = {});

// The pre-scan of parse_mail on its own (for tests and the fuzzer): OK, or FailedPrecondition
// naming the first bound of max_parts, max_containers, max_header_lines that `raw` exceeds.
Status check_mime_bounds(std::string_view raw, const MimeLimits& limits);

// The header block of a raw message (everything before the first empty line, or all of it),
// without the separating blank line.
std::string_view header_block(std::string_view raw);

// The Message-ID of a header block without <> (the first Message-ID header, unfolded; the text
// between its first '<' and the next '>', else the whole trimmed value); "" when there is none.
// A plain scan, no GMime: the SMTP listener calls it for every message before storing it.
std::string header_message_id(std::string_view head);

// The new text of a reply, as a player writes orders in it: without the lines it quotes (those
// starting with '>', after optional spaces), the "On ... wrote:" line that introduces them, and
// everything from a signature separator ("-- " or "--" alone on a line) or an
// "-----Original Message-----" line on. `*removed` (optional) is set to the number of lines
// dropped. Line endings are LF (as MailText). Pure.
std::string without_quotes_and_signature(std::string_view text, int* removed = nullptr);

// Plain text from HTML: drops <head>, <script> and <style> content and comments, turns <br>,
// block ends (p, div, tr, li, h1-h6, pre, blockquote, table) into line breaks, removes the other
// tags, decodes character references (named: amp lt gt quot apos nbsp, plus numeric) to UTF-8,
// trims trailing spaces on each line and collapses runs of blank lines to one.
// Time and memory are linear in html.size() for any input (no rescans from each '<' or '&').
std::string html_to_text(std::string_view html);

// The addr-spec of an address list such as `"Ann" <ann@example.org>`; "" when none parses.
std::string parse_address(std::string_view header_value);

}  // namespace adj::mail
