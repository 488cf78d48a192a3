// Parsing received mail with GMime (mime.h: parse_mail, parse_address, to_string): the message
// tree walked for its candidate texts (transfer-decoded, charsets converted to UTF-8, HTML parts
// through html_to_text), its addresses and the headers the ingest reads. The raw-byte pre-scan
// that bounds the work is in mime_scan.cc, the text transformations in mime_text.cc.
//
// Thread-safety: every call uses its own GMime objects; GMime is initialised once (ensure_gmime).
#include "server/mail/mime.h"

#include <algorithm>
#include <string>
#include <vector>

#include "server/mail/detail.h"

namespace adj::mail {

using detail::ensure_gmime;
using detail::GPtr;
using detail::lower;
using detail::take;
using detail::trim;

namespace {

bool ends_with_ci(const std::string& s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  return lower(s.substr(s.size() - suffix.size())) == suffix;
}

// CRLF and lone CR to LF.
std::string to_lf(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r') {
      out.push_back('\n');
      if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// Valid UTF-8 from bytes that should be UTF-8 but may not be: invalid input is read as
// ISO-8859-1 (every byte is a character there), which is what unlabelled 8-bit mail usually is.
std::string valid_utf8(std::string s) {
  if (g_utf8_validate(s.data(), static_cast<gssize>(s.size()), nullptr)) return s;
  gsize written = 0;
  char* conv = g_convert(s.data(), static_cast<gssize>(s.size()), "UTF-8", "ISO-8859-1", nullptr,
                         &written, nullptr);
  if (!conv) return take(g_utf8_make_valid(s.data(), static_cast<gssize>(s.size())));
  std::string out(conv, written);
  g_free(conv);
  return out;
}

// The transfer-decoded bytes of a non-text part (e.g. application/octet-stream "orders.txt").
std::string decoded_content(GMimePart* part) {
  GMimeDataWrapper* content = g_mime_part_get_content(part);
  if (!content) return {};
  GPtr<GMimeStream> mem(g_mime_stream_mem_new());
  if (g_mime_data_wrapper_write_to_stream(content, mem.get()) < 0) return {};
  GByteArray* bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(mem.get()));
  if (!bytes) return {};
  return std::string(reinterpret_cast<const char*>(bytes->data), bytes->len);
}

// The UTF-8 text of a text part: transfer-decoded and converted from its charset by GMime.
std::string text_of(GMimeTextPart* part) {
  return to_lf(valid_utf8(take(g_mime_text_part_get_text(part))));
}

struct Walk {
  std::vector<MailText> plain, attachments, html;
  std::size_t decoded = 0;      // bytes of text collected so far
  std::size_t max_decoded = 0;  // MimeLimits::max_decoded_bytes
  bool over = false;            // max_decoded was passed: nothing more is collected

  // Counts `text` against the budget; false (and over) when it does not fit.
  bool fits(const std::string& text) {
    decoded += text.size();
    if (decoded > max_decoded) over = true;
    return !over;
  }
};

void visit(GMimeObject* /*parent*/, GMimeObject* obj, gpointer user) {
  auto& w = *static_cast<Walk*>(user);
  if (w.over) return;
  if (!GMIME_IS_PART(obj)) return;  // multiparts are descended by GMime; message/rfc822 is not
  GMimePart* part = GMIME_PART(obj);
  GMimeContentType* ct = g_mime_object_get_content_type(obj);
  const bool is_plain = ct && g_mime_content_type_is_type(ct, "text", "plain");
  const bool is_html = ct && g_mime_content_type_is_type(ct, "text", "html");
  const char* fname = g_mime_part_get_filename(part);
  const std::string filename = fname ? fname : "";
  const bool attachment = g_mime_part_is_attachment(part) || !filename.empty();

  if (is_plain && !attachment) {
    std::string text = text_of(GMIME_TEXT_PART(obj));
    if (w.fits(text)) w.plain.push_back({TextSource::kPlain, "", std::move(text)});
  } else if (attachment && (is_plain || ends_with_ci(filename, ".txt"))) {
    std::string text = GMIME_IS_TEXT_PART(obj) ? text_of(GMIME_TEXT_PART(obj))
                                               : to_lf(valid_utf8(decoded_content(part)));
    if (w.fits(text)) w.attachments.push_back({TextSource::kAttachment, filename, std::move(text)});
  } else if (is_html && !attachment && GMIME_IS_TEXT_PART(obj)) {
    const std::string html = text_of(GMIME_TEXT_PART(obj));
    if (w.fits(html)) w.html.push_back({TextSource::kHtml, "", html_to_text(html)});
  }
}

std::string header(GMimeObject* obj, const char* name) {
  const char* v = g_mime_object_get_header(obj, name);
  return v ? v : "";
}

std::vector<std::string> message_ids(const std::string& value) {
  std::vector<std::string> out;
  if (value.empty()) return out;
  GMimeReferences* refs = g_mime_references_parse(nullptr, value.c_str());
  if (!refs) return out;
  for (int i = 0; i < g_mime_references_length(refs); ++i)
    if (const char* id = g_mime_references_get_message_id(refs, i)) out.emplace_back(id);
  g_mime_references_free(refs);
  return out;
}

// The first mailbox of a list (descending into groups); null when none.
InternetAddressMailbox* first_mailbox(InternetAddressList* list) {
  if (!list) return nullptr;
  for (int i = 0; i < internet_address_list_length(list); ++i) {
    InternetAddress* a = internet_address_list_get_address(list, i);
    if (INTERNET_ADDRESS_IS_MAILBOX(a)) return INTERNET_ADDRESS_MAILBOX(a);
    if (INTERNET_ADDRESS_IS_GROUP(a))
      if (auto* m = first_mailbox(internet_address_group_get_members(INTERNET_ADDRESS_GROUP(a))))
        return m;
  }
  return nullptr;
}

void add_mailboxes(InternetAddressList* list, std::vector<std::string>& out) {
  if (!list) return;
  for (int i = 0; i < internet_address_list_length(list); ++i) {
    InternetAddress* a = internet_address_list_get_address(list, i);
    if (INTERNET_ADDRESS_IS_MAILBOX(a)) {
      if (const char* addr = internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(a)))
        out.emplace_back(addr);
    } else if (INTERNET_ADDRESS_IS_GROUP(a)) {
      add_mailboxes(internet_address_group_get_members(INTERNET_ADDRESS_GROUP(a)), out);
    }
  }
}

// Nesting depth of a parsed MIME tree: 1 for a leaf, +1 per multipart or attached message.
int depth_of(GMimeObject* obj) {
  if (!obj) return 0;
  if (GMIME_IS_MULTIPART(obj)) {
    GMimeMultipart* mp = GMIME_MULTIPART(obj);
    int deepest = 0;
    for (int i = 0; i < g_mime_multipart_get_count(mp); ++i)
      deepest = std::max(deepest, depth_of(g_mime_multipart_get_part(mp, i)));
    return 1 + deepest;
  }
  if (GMIME_IS_MESSAGE_PART(obj)) {
    GMimeMessage* inner = g_mime_message_part_get_message(GMIME_MESSAGE_PART(obj));
    return 1 + (inner ? depth_of(g_mime_message_get_mime_part(inner)) : 0);
  }
  return 1;
}

}  // namespace

const char* to_string(TextSource s) {
  switch (s) {
    case TextSource::kNone:
      return "none";
    case TextSource::kPlain:
      return "plain";
    case TextSource::kAttachment:
      return "attachment";
    case TextSource::kHtml:
      return "html";
  }
  return "none";
}

Result<ParsedMail> parse_mail(std::string_view raw, const MimeLimits& limits) {
  if (trim(raw).empty()) return Status::InvalidArgument("the message is empty");
  ensure_gmime();
  // An mbox "From " envelope line (MTA pipes with Postfix's F flag, some Maildirs) is not a
  // header: skip it.
  if (raw.starts_with("From ")) {
    const std::size_t nl = raw.find('\n');
    raw.remove_prefix(nl == std::string_view::npos ? raw.size() : nl + 1);
  }
  ADJ_RETURN_IF_ERROR(check_mime_bounds(raw, limits));
  GPtr<GMimeStream> stream(g_mime_stream_mem_new_with_buffer(raw.data(), raw.size()));  // a copy
  GPtr<GMimeParser> parser(g_mime_parser_new_with_stream(stream.get()));
  GPtr<GMimeMessage> msg(g_mime_parser_construct_message(parser.get(), nullptr));
  if (!msg) return Status::InvalidArgument("this is not a mail message: it has no header block");
  GMimeObject* obj = GMIME_OBJECT(msg.get());
  const bool has_header = g_mime_header_list_get_count(g_mime_object_get_header_list(obj)) > 0;
  if (!has_header)
    return Status::InvalidArgument("this is not a mail message: it has no header lines");

  ParsedMail m;
  if (const char* id = g_mime_message_get_message_id(msg.get())) m.message_id = id;
  if (InternetAddressMailbox* from = first_mailbox(g_mime_message_get_from(msg.get()))) {
    if (const char* addr = internet_address_mailbox_get_addr(from)) m.from_address = addr;
    if (const char* name = internet_address_get_name(INTERNET_ADDRESS(from)))
      m.from_name = valid_utf8(name);
  }
  for (GMimeAddressType type : {GMIME_ADDRESS_TYPE_TO, GMIME_ADDRESS_TYPE_CC})
    add_mailboxes(g_mime_message_get_addresses(msg.get(), type), m.to);
  if (const char* subject = g_mime_message_get_subject(msg.get()))
    m.subject = trim(valid_utf8(subject));
  if (GDateTime* date = g_mime_message_get_date(msg.get())) m.date = g_date_time_to_unix(date);
  if (auto ids = message_ids(header(obj, "In-Reply-To")); !ids.empty()) m.in_reply_to = ids[0];
  m.references = message_ids(header(obj, "References"));
  m.auto_submitted = lower(trim(header(obj, "Auto-Submitted")));
  m.precedence = lower(trim(header(obj, "Precedence")));
  if (const std::string rp = header(obj, "Return-Path"); !rp.empty()) {
    const std::string t = trim(rp);
    m.return_path = t == "<>" ? t : parse_address(t);
  }

  if (const int depth = depth_of(g_mime_message_get_mime_part(msg.get())); depth > limits.max_depth)
    return Status::FailedPrecondition("the message nests MIME parts " + std::to_string(depth) +
                                      " levels deep; at most " + std::to_string(limits.max_depth) +
                                      " are read");
  Walk walk;
  walk.max_decoded = limits.max_decoded_bytes;
  g_mime_message_foreach(msg.get(), visit, &walk);
  if (walk.over)
    return Status::FailedPrecondition("the texts of the message decode to more than " +
                                      std::to_string(limits.max_decoded_bytes >> 20) + " MiB");
  m.has_html = !walk.html.empty();
  for (auto* list : {&walk.plain, &walk.attachments, &walk.html})
    for (MailText& t : *list) m.texts.push_back(std::move(t));
  if (!m.texts.empty()) {
    m.text = m.texts.front().text;
    m.text_source = m.texts.front().source;
    m.from_html = m.text_source == TextSource::kHtml;
  }
  return m;
}

std::string parse_address(std::string_view value) {
  ensure_gmime();
  const std::string v(value);
  GPtr<InternetAddressList> list(internet_address_list_parse(nullptr, v.c_str()));
  InternetAddressMailbox* mb = first_mailbox(list.get());
  const char* addr = mb ? internet_address_mailbox_get_addr(mb) : nullptr;
  return addr ? addr : "";
}

}  // namespace adj::mail
