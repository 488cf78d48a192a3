// Plain scans of raw message bytes, no GMime (mime.h: check_mime_bounds, header_block,
// header_message_id): the linear pre-scan that bounds parts, containers and header lines before
// GMime builds anything, and the header block and Message-ID the SMTP listener reads from every
// message. Pure functions; thread-safe.
#include <cctype>
#include <string>
#include <unordered_set>

#include "server/mail/detail.h"
#include "server/mail/mime.h"

namespace adj::mail {

using detail::trim;

namespace {

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

}  // namespace adj::mail
