#include "server/mail/compose.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "server/mail/detail.h"
#include "storage/mail_store.h"

namespace adj::mail {

using detail::ensure_gmime;
using detail::GPtr;
using detail::sha256_hex;
using detail::take;

namespace {

// RFC 5322 field name: printable ASCII except ':' and space.
bool valid_field_name(const std::string& n) {
  if (n.empty()) return false;
  for (char c : n)
    if (c <= 32 || c >= 127 || c == ':') return false;
  return true;
}

// Line breaks in header text would end the header: they become spaces.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\r' || c == '\n') c = ' ';
  return s;
}

GPtr<GMimeTextPart> text_part(const char* subtype, const std::string& text) {
  GPtr<GMimeTextPart> part(g_mime_text_part_new_with_subtype(subtype));
  g_mime_text_part_set_text(part.get(), text.c_str());  // also sets charset (us-ascii or utf-8)
  // 7-bit transport: quoted-printable (or base64) when the text has 8-bit characters or lines
  // longer than 998 octets.
  g_mime_part_set_content_encoding(GMIME_PART(part.get()),
                                   g_mime_part_get_best_content_encoding(
                                       GMIME_PART(part.get()), GMIME_ENCODING_CONSTRAINT_7BIT));
  return part;
}

bool valid_token(std::string_view t) {
  if (t.empty() || t.size() > 100) return false;
  for (char c : t)
    if (!std::isalnum(static_cast<unsigned char>(c)) &&
        std::string_view("!#$&-^_.+").find(c) == std::string_view::npos)
      return false;
  return true;
}

Status check_attachment(const MailAttachment& a) {
  const std::size_t slash = a.content_type.find('/');
  if (slash == std::string::npos ||
      !valid_token(std::string_view(a.content_type).substr(0, slash)) ||
      !valid_token(std::string_view(a.content_type).substr(slash + 1)))
    return Status::InvalidArgument("compose: \"" + a.content_type + "\" is not a content type");
  bool ok = !a.filename.empty() && a.filename.size() <= 200;
  for (char c : a.filename) ok = ok && c > 32 && c < 127 && c != '"' && c != '\\';
  if (!ok) return Status::InvalidArgument("compose: an attachment's filename is not plain ASCII");
  return Status::Ok();
}

GPtr<GMimePart> attachment_part(const MailAttachment& a) {
  const std::size_t slash = a.content_type.find('/');
  GPtr<GMimePart> part(g_mime_part_new_with_type(a.content_type.substr(0, slash).c_str(),
                                                 a.content_type.substr(slash + 1).c_str()));
  // A stored part's placeholder is written as it is, as base64 already encoded would be.
  const std::string placeholder =
      a.stored_part.empty() ? std::string() : mail_part_placeholder(a.stored_part);
  const std::string& bytes = a.stored_part.empty() ? a.data : placeholder;
  GPtr<GMimeStream> stream(g_mime_stream_mem_new_with_buffer(bytes.data(), bytes.size()));
  GPtr<GMimeDataWrapper> content(g_mime_data_wrapper_new_with_stream(
      stream.get(),
      a.stored_part.empty() ? GMIME_CONTENT_ENCODING_DEFAULT : GMIME_CONTENT_ENCODING_BASE64));
  g_mime_part_set_content(part.get(), content.get());
  g_mime_part_set_content_encoding(part.get(), GMIME_CONTENT_ENCODING_BASE64);
  g_mime_object_set_disposition(GMIME_OBJECT(part.get()), "attachment");
  g_mime_part_set_filename(part.get(), a.filename.c_str());
  return part;
}

// The body of `a`'s part as compose() writes it (after the part's header block), DOS newlines.
std::string part_body(const MailAttachment& a) {
  GPtr<GMimePart> part = attachment_part(a);
  GMimeFormatOptions* opts = g_mime_format_options_new();
  g_mime_format_options_set_newline_format(opts, GMIME_NEWLINE_FORMAT_DOS);
  std::string out = take(g_mime_object_to_string(GMIME_OBJECT(part.get()), opts));
  g_mime_format_options_free(opts);
  const std::size_t end = out.find("\r\n\r\n");
  return end == std::string::npos ? std::string() : out.substr(end + 4);
}

}  // namespace

StoredPart make_stored_part(MailAttachment& a) {
  ensure_gmime();
  a.stored_part.clear();
  StoredPart p{sha256_hex(a.data).substr(0, 40), part_body(a)};
  MailAttachment marked_a{a.filename, a.content_type, std::string(), p.key};
  const std::string marked = part_body(marked_a);
  // The placeholder's part is the placeholder and a tail (its line end), which stays in the
  // message: the body stored is what stands before that same tail.
  const std::string placeholder = mail_part_placeholder(p.key);
  const std::size_t tail = marked.size() - std::min(marked.size(), placeholder.size());
  if (marked.compare(0, placeholder.size(), placeholder) != 0 || tail > p.body.size() ||
      p.body.compare(p.body.size() - tail, tail, marked, placeholder.size(), tail) != 0)
    return StoredPart{};  // not expected of GMime; the attachment keeps its bytes
  p.body.resize(p.body.size() - tail);
  a.stored_part = p.key;
  a.data.clear();
  return p;
}

std::string stored_part_key(const OutgoingMail& m) {
  for (const MailAttachment& a : m.attachments)
    if (!a.stored_part.empty()) return a.stored_part;
  return std::string();
}

std::string make_message_id(const std::string& key, const std::string& domain) {
  return "adj." + sha256_hex(key).substr(0, 32) + "@" +
         (domain.empty() ? std::string("adjutant.invalid") : domain);
}

std::string domain_of(const std::string& address) {
  const std::size_t at = address.rfind('@');
  return at == std::string::npos ? std::string() : address.substr(at + 1);
}

std::string reply_subject(const std::string& subject) {
  if (subject.size() >= 3 && std::tolower(static_cast<unsigned char>(subject[0])) == 'r' &&
      std::tolower(static_cast<unsigned char>(subject[1])) == 'e' && subject[2] == ':')
    return subject;
  return subject.empty() ? std::string("Re: your message") : "Re: " + subject;
}

Result<std::string> compose(const OutgoingMail& m) {
  if (m.from.address.empty() || m.to.address.empty())
    return Status::InvalidArgument("compose: a message needs a From and a To address");
  if (m.message_id.empty()) return Status::InvalidArgument("compose: a message needs a Message-ID");
  for (const auto& [name, value] : m.headers)
    if (!valid_field_name(name))
      return Status::InvalidArgument("compose: \"" + name + "\" is not a header name");
  int stored = 0;
  for (const MailAttachment& a : m.attachments) {
    ADJ_RETURN_IF_ERROR(check_attachment(a));
    stored += a.stored_part.empty() ? 0 : 1;
  }
  if (stored > 1)
    return Status::InvalidArgument("compose: a message may name one stored part, not more");
  ensure_gmime();

  GPtr<GMimeMessage> msg(g_mime_message_new(TRUE));
  GMimeObject* obj = GMIME_OBJECT(msg.get());
  const auto name_or_null = [](const std::string& n) { return n.empty() ? nullptr : n.c_str(); };
  const std::string from_name = one_line(m.from.name), to_name = one_line(m.to.name);
  g_mime_message_add_mailbox(msg.get(), GMIME_ADDRESS_TYPE_FROM, name_or_null(from_name),
                             m.from.address.c_str());
  g_mime_message_add_mailbox(msg.get(), GMIME_ADDRESS_TYPE_TO, name_or_null(to_name),
                             m.to.address.c_str());
  g_mime_message_set_subject(msg.get(), one_line(m.subject).c_str(), "utf-8");
  GDateTime* date = g_date_time_new_from_unix_utc(m.date);
  g_mime_message_set_date(msg.get(), date);
  g_date_time_unref(date);
  g_mime_message_set_message_id(msg.get(), m.message_id.c_str());
  if (!m.in_reply_to.empty()) {
    g_mime_object_set_header(obj, "In-Reply-To", ("<" + m.in_reply_to + ">").c_str(), nullptr);
    std::string refs;
    const std::size_t keep = 10;
    const std::size_t first = m.references.size() > keep ? m.references.size() - keep : 0;
    for (std::size_t i = first; i < m.references.size(); ++i)
      if (m.references[i] != m.in_reply_to) refs += "<" + m.references[i] + "> ";
    refs += "<" + m.in_reply_to + ">";
    g_mime_object_set_header(obj, "References", refs.c_str(), nullptr);
  }
  for (const auto& [name, value] : m.headers)
    g_mime_object_set_header(obj, name.c_str(), one_line(value).c_str(), "utf-8");

  GPtr<GMimeTextPart> plain = text_part("plain", m.text);
  GPtr<GMimeObject> body;
  if (m.html) {
    GPtr<GMimeMultipart> alt(g_mime_multipart_new_with_subtype("alternative"));
    // A fixed boundary keeps the output deterministic; hex cannot occur in QP-encoded parts.
    const std::string boundary = "=_adj_" + sha256_hex(m.message_id).substr(0, 24);
    g_mime_multipart_set_boundary(alt.get(), boundary.c_str());
    GPtr<GMimeTextPart> html = text_part("html", *m.html);
    g_mime_multipart_add(alt.get(), GMIME_OBJECT(plain.get()));
    g_mime_multipart_add(alt.get(), GMIME_OBJECT(html.get()));
    body.reset(GMIME_OBJECT(alt.release()));
  } else {
    body.reset(GMIME_OBJECT(plain.release()));
  }
  if (!m.attachments.empty()) {
    GPtr<GMimeMultipart> mixed(g_mime_multipart_new_with_subtype("mixed"));
    // Distinct from the alternative's boundary; "=_" cannot occur in base64 or QP lines.
    const std::string boundary = "=_adjm_" + sha256_hex(m.message_id).substr(0, 24);
    g_mime_multipart_set_boundary(mixed.get(), boundary.c_str());
    g_mime_multipart_add(mixed.get(), body.get());
    for (const MailAttachment& a : m.attachments) {
      GPtr<GMimePart> part = attachment_part(a);
      g_mime_multipart_add(mixed.get(), GMIME_OBJECT(part.get()));
    }
    body.reset(GMIME_OBJECT(mixed.release()));
  }
  g_mime_message_set_mime_part(msg.get(), body.get());
  GMimeFormatOptions* opts = g_mime_format_options_new();
  g_mime_format_options_set_newline_format(opts, GMIME_NEWLINE_FORMAT_DOS);
  std::string out = take(g_mime_object_to_string(obj, opts));
  g_mime_format_options_free(opts);
  if (out.empty()) return Status::Internal("compose: GMime wrote an empty message");
  return out;
}

}  // namespace adj::mail
