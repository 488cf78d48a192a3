#include "server/web/outbox_view.h"

#include <cctype>

#include "base/ascii.h"
#include "rules/orders/parser.h"

namespace adj::web {

namespace {

constexpr std::size_t kMaxBody = 256 * 1024;

// Splits a message (or MIME part) into unfolded header lines and the body.
void split(const std::string& raw, std::vector<std::pair<std::string, std::string>>& headers,
           std::string& body) {
  std::size_t pos = 0;
  while (pos < raw.size()) {
    std::size_t end = raw.find('\n', pos);
    if (end == std::string::npos) end = raw.size();
    std::string line = raw.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    pos = end + 1;
    if (line.empty()) break;
    if ((line[0] == ' ' || line[0] == '\t') && !headers.empty()) {
      headers.back().second += " " + line.substr(line.find_first_not_of(" \t"));
      continue;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, std::min(value.find_first_not_of(' '), value.size()));
    headers.emplace_back(line.substr(0, colon), value);
  }
  body = pos < raw.size() ? raw.substr(pos) : std::string();
}

std::string header(const std::vector<std::pair<std::string, std::string>>& h,
                   const std::string& name) {
  for (const auto& [k, v] : h)
    if (ascii::lower(k) == name) return v;
  return "";
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::string quoted_printable(const std::string& in) {
  std::string out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '=') {
      out += in[i];
      continue;
    }
    if (i + 1 < in.size() && (in[i + 1] == '\r' || in[i + 1] == '\n')) {  // soft line break
      i += in[i + 1] == '\r' && i + 2 < in.size() && in[i + 2] == '\n' ? 2 : 1;
      continue;
    }
    if (i + 2 < in.size() && hex(in[i + 1]) >= 0 && hex(in[i + 2]) >= 0) {
      out += static_cast<char>(hex(in[i + 1]) * 16 + hex(in[i + 2]));
      i += 2;
      continue;
    }
    out += '=';
  }
  return out;
}

std::string base64(const std::string& in) {
  std::string out;
  int val = 0, bits = -8;
  for (char ch : in) {
    const unsigned char c = static_cast<unsigned char>(ch);
    int d;
    if (c >= 'A' && c <= 'Z')
      d = c - 'A';
    else if (c >= 'a' && c <= 'z')
      d = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      d = c - '0' + 52;
    else if (c == '+')
      d = 62;
    else if (c == '/')
      d = 63;
    else
      continue;
    val = (val << 6) | d;
    bits += 6;
    if (bits >= 0) {
      out += static_cast<char>((val >> bits) & 0xFF);
      bits -= 8;
    }
  }
  return out;
}

std::string decode(const std::vector<std::pair<std::string, std::string>>& h,
                   const std::string& body) {
  const std::string cte = ascii::lower(header(h, "content-transfer-encoding"));
  std::string text = cte == "quoted-printable" ? quoted_printable(body)
                     : cte == "base64"         ? base64(body)
                                               : body;
  std::string out;
  for (char c : text)
    if (c != '\r') out += c;
  return out;
}

std::string boundary_of(const std::string& content_type) {
  const std::string lc = ascii::lower(content_type);
  std::size_t at = lc.find("boundary=");
  if (at == std::string::npos) return "";
  std::string b = content_type.substr(at + 9);
  if (!b.empty() && b[0] == '"') {
    const std::size_t end = b.find('"', 1);
    return end == std::string::npos ? "" : b.substr(1, end - 1);
  }
  return b.substr(0, b.find_first_of("; \t"));
}

// The text/plain part's decoded text, searching multipart bodies up to `depth` levels.
std::string plain_text(const std::vector<std::pair<std::string, std::string>>& h,
                       const std::string& body, int depth) {
  const std::string type = ascii::lower(header(h, "content-type"));
  if (type.rfind("multipart/", 0) != 0 || depth > 3) return decode(h, body);
  const std::string b = boundary_of(header(h, "content-type"));
  if (b.empty()) return decode(h, body);
  const std::string delim = "--" + b;
  std::size_t pos = body.find(delim);
  while (pos != std::string::npos) {
    std::size_t start = body.find('\n', pos);
    if (start == std::string::npos) break;
    const std::size_t next = body.find(delim, start);
    std::string part =
        body.substr(start + 1, next == std::string::npos ? std::string::npos : next - start - 1);
    std::vector<std::pair<std::string, std::string>> ph;
    std::string pb;
    split(part, ph, pb);
    const std::string pt = ascii::lower(header(ph, "content-type"));
    if (pt.empty() || pt.rfind("text/plain", 0) == 0 || pt.rfind("multipart/", 0) == 0)
      return plain_text(ph, pb, depth + 1);
    pos = next;
  }
  return "(no plain-text part)";
}

}  // namespace

bool outbox_body_withheld(const std::string& kind) {
  const std::string k = ascii::lower(kind);
  for (const char* word : {"secret", "join", "invite", "takeover", "credential", "welcome",
                           "approve", "signup", "replace", "start"})
    if (k.find(word) != std::string::npos) return true;
  return false;
}

MessageView message_view(const std::string& raw, const std::string& kind) {
  MessageView v;
  std::vector<std::pair<std::string, std::string>> h;
  std::string body;
  split(raw.size() > kMaxBody ? raw.substr(0, kMaxBody) : raw, h, body);
  for (const char* name :
       {"from", "to", "reply-to", "subject", "date", "message-id", "in-reply-to", "references"}) {
    const std::string value = header(h, name);
    if (value.empty()) continue;
    std::string label = name;
    label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
    if (label == "Message-id") label = "Message-ID";
    if (label == "In-reply-to") label = "In-Reply-To";
    if (label == "Reply-to") label = "Reply-To";
    v.headers.emplace_back(label, value);
  }
  if (outbox_body_withheld(kind)) {
    v.withheld = true;
    v.body =
        "(secret withheld: this kind of message may carry a secret, a sign-in link or a code, so "
        "its text is not shown here. Once delivered, a secret's text is removed from the "
        "database.)";
    return v;
  }
  v.body = mask_player_secret(plain_text(h, body, 0));
  return v;
}

}  // namespace adj::web
