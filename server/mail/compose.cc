#include "server/mail/compose.h"

#include <cctype>

#include "server/mail/detail.h"

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

}  // namespace

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
  if (m.html) {
    GPtr<GMimeMultipart> alt(g_mime_multipart_new_with_subtype("alternative"));
    // A fixed boundary keeps the output deterministic; hex cannot occur in QP-encoded parts.
    const std::string boundary = "=_adj_" + sha256_hex(m.message_id).substr(0, 24);
    g_mime_multipart_set_boundary(alt.get(), boundary.c_str());
    GPtr<GMimeTextPart> html = text_part("html", *m.html);
    g_mime_multipart_add(alt.get(), GMIME_OBJECT(plain.get()));
    g_mime_multipart_add(alt.get(), GMIME_OBJECT(html.get()));
    g_mime_message_set_mime_part(msg.get(), GMIME_OBJECT(alt.get()));
  } else {
    g_mime_message_set_mime_part(msg.get(), GMIME_OBJECT(plain.get()));
  }
  GMimeFormatOptions* opts = g_mime_format_options_new();
  g_mime_format_options_set_newline_format(opts, GMIME_NEWLINE_FORMAT_DOS);
  std::string out = take(g_mime_object_to_string(obj, opts));
  g_mime_format_options_free(opts);
  if (out.empty()) return Status::Internal("compose: GMime wrote an empty message");
  return out;
}

}  // namespace adj::mail
