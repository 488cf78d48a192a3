// Writing outgoing mail: a complete RFC 5322 message (headers and MIME body) as one string with
// CRLF line endings, ready for the outbox. Built with GMime, which RFC 2047-encodes non-ASCII
// header text, quoted-printable-encodes bodies that need it and folds long header lines, so the
// result is 7-bit clean with lines of at most 998 octets.
//
// Thread-safety: may be called from several threads at once. Deterministic: the same input gives
// the same bytes (no clock, no random Message-ID).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rules/core/status.h"
#include "storage/records.h"

namespace adj::mail {

struct Mailbox {
  std::string address;  // addr-spec, e.g. "adjutant@pbm.example.net"
  std::string name;     // display name (UTF-8), may be empty
};

// A file sent with a message, base64-encoded, Content-Disposition attachment.
struct MailAttachment {
  std::string filename;      // printable ASCII without quotes or backslashes, e.g. "map-turn-3.png"
  std::string content_type;  // "type/subtype", e.g. "image/png"
  std::string data;          // the bytes
  // When not empty: the key of a part stored once for many messages (make_stored_part,
  // MailStore::put_mail_part), whose body the outbox puts in at delivery; `data` is then unused
  // and the message holds mail_part_placeholder(stored_part) (storage/mail_store.h) in its place.
  std::string stored_part;
};

// An attachment's encoded body, stored once and shared by every message that names its key.
struct StoredPart {
  std::string key;   // the first 40 hex digits of the SHA-256 of the attachment's bytes
  std::string body;  // what compose() writes for those bytes, byte for byte
};

struct OutgoingMail {
  Mailbox from;
  Mailbox to;
  std::string subject;  // UTF-8
  UnixTime date = 0;    // the Date header (UTC)
  // The Message-ID (without <>); see make_message_id.
  std::string message_id;
  // Threading, when answering a message: its id (without <>) and its References, oldest first.
  // References of the reply = the original's references (the last 10) + the original's id.
  std::string in_reply_to;
  std::vector<std::string> references;
  std::string text;                 // the text/plain body (UTF-8)
  std::optional<std::string> html;  // when set: multipart/alternative(text/plain, text/html)
  // When not empty: multipart/mixed(the body above, each attachment in order).
  std::vector<MailAttachment> attachments;
  // Extra header lines, e.g. {"Auto-Submitted", "auto-replied"}. Values are UTF-8 text.
  std::vector<std::pair<std::string, std::string>> headers;
};

// The message as RFC 5322 text. InvalidArgument when from.address, to.address or message_id is
// empty, a header name is not a valid field name, an attachment's filename or content type is
// not as MailAttachment says, or more than one attachment names a stored part.
Result<std::string> compose(const OutgoingMail& m);

// The stored part of `a`'s bytes (a.data), and `a` changed to name it (its data cleared):
// composing with the changed `a` and putting the part's body in place of its placeholder gives
// the bytes composing with the original gives. A key "" (and `a` unchanged) if that cannot be.
StoredPart make_stored_part(MailAttachment& a);

// The key of the stored part `m`'s attachments name; "" when none does.
std::string stored_part_key(const OutgoingMail& m);

// A Message-ID (without <>) determined by `key` and `domain`: "adj.<32 hex digits of the SHA-256
// of key>@domain". The same key gives the same id, so a message queued twice is recognisably the
// same message. `domain` "" becomes "adjutant.invalid".
std::string make_message_id(const std::string& key, const std::string& domain);

// The domain part of an address ("pbm.example.net" for "orders@pbm.example.net"); "" if none.
std::string domain_of(const std::string& address);

// "Re: <subject>" unless the subject already starts with "Re:" (any case).
std::string reply_subject(const std::string& subject);

}  // namespace adj::mail
