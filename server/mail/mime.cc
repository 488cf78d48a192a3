#include "server/mail/mime.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <unordered_set>

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

char ascii_lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (ascii_lower(s[i]) != prefix[i]) return false;
  return true;
}

// Whether lower-case `needle` occurs in `s`, compared without regard to ASCII case.
bool contains_ci(std::string_view s, std::string_view needle) {
  if (needle.size() > s.size()) return false;
  for (std::size_t i = 0; i + needle.size() <= s.size(); ++i)
    if (starts_with_ci(s.substr(i), needle)) return true;
  return false;
}

// The boundary parameter values anywhere in `raw` ("boundary=" in any case, then a quoted string
// or a token), as GMime would read them. *rfc2231 is set when a "boundary*" (RFC 2231 encoded)
// form occurs: its value is not decoded here, so the caller counts conservatively.
// FailedPrecondition when more than `max` distinct values occur.
Status declared_boundaries(std::string_view raw, std::size_t max,
                           std::unordered_set<std::string>& out, bool* rfc2231) {
  constexpr std::string_view kName = "boundary";
  for (std::size_t i = 0; i + kName.size() <= raw.size(); ++i) {
    if (ascii_lower(raw[i]) != 'b' || !starts_with_ci(raw.substr(i), kName)) continue;
    std::size_t j = i + kName.size();
    if (j < raw.size() && raw[j] == '*') {
      *rfc2231 = true;
      continue;
    }
    while (j < raw.size() && std::isspace(static_cast<unsigned char>(raw[j]))) ++j;
    if (j >= raw.size() || raw[j] != '=') continue;
    ++j;
    while (j < raw.size() && (raw[j] == ' ' || raw[j] == '\t')) ++j;
    std::string value;
    if (j < raw.size() && raw[j] == '"') {
      for (++j; j < raw.size() && raw[j] != '"' && raw[j] != '\r' && raw[j] != '\n'; ++j) {
        if (raw[j] == '\\' && j + 1 < raw.size()) ++j;
        value.push_back(raw[j]);
        if (value.size() > 256) break;
      }
    } else {
      for (; j < raw.size() && !std::isspace(static_cast<unsigned char>(raw[j])) && raw[j] != ';';
           ++j) {
        value.push_back(raw[j]);
        if (value.size() > 256) break;
      }
    }
    i = j - 1;
    // GMime trims the value and compares delimiter lines without their trailing white space.
    value = trim(value);
    if (value.empty()) continue;
    out.insert(std::move(value));
    if (out.size() > max)
      return Status::FailedPrecondition("the message declares more than " + std::to_string(max) +
                                        " MIME multiparts");
  }
  return Status::Ok();
}

}  // namespace

Status check_mime_bounds(std::string_view raw, const MimeLimits& limits) {
  std::unordered_set<std::string> boundaries;
  bool rfc2231 = false;
  ADJ_RETURN_IF_ERROR(declared_boundaries(raw, limits.max_containers, boundaries, &rfc2231));
  // Encoded boundaries are not decoded here: then every line starting with "--" counts as a
  // delimiter (more than GMime sees, never fewer).
  const bool any_dashes = rfc2231;
  const auto is_boundary = [&](std::string_view b) { return boundaries.count(std::string(b)) > 0; };
  std::size_t parts = 0, header_lines = 0, containers = boundaries.size();
  bool in_header = true;         // the message's header block first
  bool in_content_type = false;  // within a Content-Type field (and its folded lines)
  bool message_next = false;     // that field named message/*: a header block follows the blank
  for (std::size_t start = 0; start < raw.size();) {
    std::size_t end = raw.find('\n', start);
    if (end == std::string_view::npos) end = raw.size();
    std::string_view line = raw.substr(start, end - start);
    start = end + 1;
    std::string_view t = line;
    while (!t.empty() && (t.back() == '\r' || t.back() == ' ' || t.back() == '\t'))
      t.remove_suffix(1);
    if (t.size() > 2 && t.starts_with("--")) {
      const std::string_view b = t.substr(2);
      const bool closing =
          b.size() > 2 && b.ends_with("--") && is_boundary(b.substr(0, b.size() - 2));
      if (closing) {
        in_header = false;
        in_content_type = false;
        continue;
      }
      if (any_dashes || is_boundary(b)) {
        if (++parts > limits.max_parts)
          return Status::FailedPrecondition("the message has more than " +
                                            std::to_string(limits.max_parts) + " MIME parts");
        in_header = true;
        in_content_type = false;
        message_next = false;
        continue;
      }
    }
    if (!in_header) continue;
    if (t.empty()) {  // the blank line after a header block
      in_header = message_next;
      message_next = false;
      in_content_type = false;
      continue;
    }
    if (++header_lines > limits.max_header_lines)
      return Status::FailedPrecondition("the message has more than " +
                                        std::to_string(limits.max_header_lines) + " header lines");
    const bool folded = line[0] == ' ' || line[0] == '\t';
    if (!folded) in_content_type = starts_with_ci(line, "content-type:");
    if (in_content_type && !message_next && contains_ci(line, "message/")) {
      message_next = true;
      if (++containers > limits.max_containers)
        return Status::FailedPrecondition("the message has more than " +
                                          std::to_string(limits.max_containers) +
                                          " nested multiparts and attached messages");
    }
  }
  return Status::Ok();
}

namespace {}  // namespace

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

std::string_view header_block(std::string_view raw) {
  // The first empty line: "\n\n", "\r\n\r\n", or an empty line at the very start.
  if (raw.starts_with("\n")) return raw.substr(0, 0);
  if (raw.starts_with("\r\n")) return raw.substr(0, 0);
  for (std::size_t i = raw.find('\n'); i != std::string_view::npos; i = raw.find('\n', i + 1)) {
    std::size_t next = i + 1;
    if (next < raw.size() && raw[next] == '\r') ++next;
    if (next < raw.size() && raw[next] == '\n') return raw.substr(0, i + 1);
  }
  return raw;
}

std::string header_message_id(std::string_view head) {
  constexpr std::string_view kName = "message-id:";
  std::size_t pos = 0;
  while (pos < head.size()) {
    std::size_t end = head.find('\n', pos);
    if (end == std::string_view::npos) end = head.size();
    const std::string_view line = head.substr(pos, end - pos);
    pos = end + 1;
    if (line.size() < kName.size()) continue;
    bool match = true;
    for (std::size_t i = 0; i < kName.size() && match; ++i)
      match = std::tolower(static_cast<unsigned char>(line[i])) == kName[i];
    if (!match) continue;
    std::string value(line.substr(kName.size()));
    while (pos < head.size() && (head[pos] == ' ' || head[pos] == '\t')) {  // folded
      end = head.find('\n', pos);
      if (end == std::string_view::npos) end = head.size();
      value += head.substr(pos, end - pos);
      pos = end + 1;
    }
    std::string_view v = value;
    if (const std::size_t open = v.find('<'); open != std::string_view::npos) {
      const std::size_t close = v.find('>', open + 1);
      if (close != std::string_view::npos) v = v.substr(open + 1, close - open - 1);
    }
    return std::string(trim(v));
  }
  return "";
}

std::string without_quotes_and_signature(std::string_view text, int* removed) {
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (text.empty() || text.back() == '\n') lines.pop_back();  // no line after the last LF
  const auto quoted = [](std::string_view l) {
    const std::size_t i = l.find_first_not_of(" \t");
    return i != std::string_view::npos && l[i] == '>';
  };
  const auto ends_with_wrote = [](std::string_view line) {
    const std::string l = trim(line);
    for (std::string_view w : {"wrote:", "writes:", "schrieb:",
                               "a \xc3\xa9"
                               "crit :",
                               "escribi\xc3\xb3:"})
      if (l.size() >= w.size() && std::string_view(l).substr(l.size() - w.size()) == w) return true;
    return false;
  };
  std::string out;
  int dropped = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    const std::string t = trim(l);
    if (l == "-- " || l == "--" || t == "-----Original Message-----") {
      dropped += static_cast<int>(lines.size() - i);
      break;
    }
    if (quoted(l)) {
      ++dropped;
      continue;
    }
    if (ends_with_wrote(l)) {
      std::size_t k = i + 1;  // the attribution: the next non-blank line is quoted
      while (k < lines.size() && trim(lines[k]).empty()) ++k;
      if (k < lines.size() && quoted(lines[k])) {
        ++dropped;
        continue;
      }
    }
    out.append(l);
    out.push_back('\n');
  }
  if (removed) *removed = dropped;
  return out;
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

// ---- HTML to text ----------------------------------------------------------------------------

namespace {

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  char buf[6];
  const int n = g_unichar_to_utf8(static_cast<gunichar>(cp), buf);
  out.append(buf, static_cast<std::size_t>(n));
}

// Decodes one character reference starting at s[i] == '&'; returns the length consumed (0 when
// it is not a reference, and then '&' is literal).
std::size_t decode_entity(std::string_view s, std::size_t i, std::string& out) {
  // Only the next 13 characters are looked at: a run of '&' without ';' stays linear.
  const std::size_t semi = s.substr(0, std::min(s.size(), i + 13)).find(';', i);
  if (semi == std::string_view::npos) return 0;
  const std::string name(s.substr(i + 1, semi - i - 1));
  if (name.empty()) return 0;
  if (name[0] == '#') {
    std::uint32_t cp = 0;
    const bool hex = name.size() > 1 && (name[1] == 'x' || name[1] == 'X');
    const std::string digits = name.substr(hex ? 2 : 1);
    if (digits.empty()) return 0;
    for (char c : digits) {
      const int d = hex ? g_ascii_xdigit_value(c) : g_ascii_digit_value(c);
      if (d < 0) return 0;
      cp = cp * (hex ? 16 : 10) + static_cast<std::uint32_t>(d);
      if (cp > 0x10FFFF) cp = 0x110000;
    }
    append_utf8(out, cp);
    return semi - i + 1;
  }
  static const std::pair<const char*, std::uint32_t> kNamed[] = {
      {"amp", '&'},       {"lt", '<'},    {"gt", '>'},       {"quot", '"'},
      {"apos", '\''},     {"nbsp", 0xA0}, {"ndash", 0x2013}, {"mdash", 0x2014},
      {"hellip", 0x2026}, {"copy", 0xA9}, {"eacute", 0xE9},  {"egrave", 0xE8}};
  for (const auto& [n, cp] : kNamed)
    if (name == n) {
      append_utf8(out, cp);
      return semi - i + 1;
    }
  return 0;
}

// The lower-case name of the tag starting at s[i] == '<' ("/p" for an end tag), and the index
// just after its '>'.
std::pair<std::string, std::size_t> read_tag(std::string_view s, std::size_t i) {
  std::size_t j = i + 1;
  std::string name;
  if (j < s.size() && s[j] == '/') name.push_back('/'), ++j;
  while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '!'))
    name.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(s[j++]))));
  // Not a tag (a lone '<' or "</" is text): no scan for '>', so a run of '<' stays linear.
  if (name.empty() || name == "/") return {name, i + 1};
  // Skip to the closing '>', honouring quoted attribute values.
  char quote = 0;
  for (; j < s.size(); ++j) {
    if (quote) {
      if (s[j] == quote) quote = 0;
    } else if (s[j] == '"' || s[j] == '\'') {
      quote = s[j];
    } else if (s[j] == '>') {
      return {name, j + 1};
    }
  }
  return {name, s.size()};
}

bool is_block(const std::string& tag) {
  static const char* kBlocks[] = {"p",  "div", "tr", "li",  "h1",         "h2",     "h3",
                                  "h4", "h5",  "h6", "pre", "blockquote", "table",  "ul",
                                  "ol", "hr",  "dd", "dt",  "section",    "article"};
  const std::string bare = tag.starts_with("/") ? tag.substr(1) : tag;
  return std::any_of(std::begin(kBlocks), std::end(kBlocks),
                     [&](const char* b) { return bare == b; });
}

}  // namespace

std::string html_to_text(std::string_view html) {
  std::string out;
  out.reserve(html.size());
  bool in_pre = false;
  for (std::size_t i = 0; i < html.size();) {
    const char c = html[i];
    if (c == '<') {
      if (html.substr(i, 4) == "<!--") {
        const std::size_t end = html.find("-->", i + 4);
        i = end == std::string_view::npos ? html.size() : end + 3;
        continue;
      }
      auto [tag, next] = read_tag(html, i);
      if (tag.empty() || tag == "/") {  // a lone '<' is text
        out.push_back('<');
        ++i;
        continue;
      }
      i = next;
      if (tag == "script" || tag == "style" || tag == "head" || tag == "title") {
        const std::string close = "</" + tag;
        std::size_t at = i;
        for (;;) {
          at = html.find("</", at);
          if (at == std::string_view::npos) {
            i = html.size();
            break;
          }
          std::string cand(html.substr(at, close.size()));
          for (char& ch : cand)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          if (cand == close) {
            i = read_tag(html, at).second;
            break;
          }
          at += 2;
        }
        continue;
      }
      if (tag == "pre") in_pre = true;
      if (tag == "/pre") in_pre = false;
      if (tag == "br" || is_block(tag)) out.push_back('\n');
      if (tag == "td" || tag == "th") out.push_back(' ');
      continue;
    }
    if (c == '&') {
      if (const std::size_t n = decode_entity(html, i, out)) {
        i += n;
        continue;
      }
    }
    if (c == '\r') {
      ++i;
      continue;
    }
    if (!in_pre && (c == '\n' || c == '\t' || c == ' ')) {
      // Outside <pre>, a run of white space (line breaks included) is one space.
      if (!out.empty() && out.back() != ' ' && out.back() != '\n') out.push_back(' ');
      ++i;
      continue;
    }
    out.push_back(c);
    ++i;
  }

  // Tidy: non-breaking spaces to spaces, trim each line, at most one blank line in a row.
  std::string tidy;
  tidy.reserve(out.size());
  std::size_t start = 0;
  int blank_run = 0;
  while (start <= out.size()) {
    std::size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::string line;  // non-breaking spaces to spaces, in one pass
    line.reserve(end - start);
    for (std::size_t p = start; p < end; ++p) {
      if (out[p] == '\xC2' && p + 1 < end && out[p + 1] == '\xA0') {
        line.push_back(' ');
        ++p;
      } else {
        line.push_back(out[p]);
      }
    }
    line = trim(line);
    if (line.empty()) {
      if (!tidy.empty() && blank_run == 0) tidy.push_back('\n');
      ++blank_run;
    } else {
      tidy += line;
      tidy.push_back('\n');
      blank_run = 0;
    }
    start = end + 1;
  }
  while (tidy.size() >= 2 && tidy.ends_with("\n\n")) tidy.pop_back();
  return tidy;
}

}  // namespace adj::mail
