// The text helpers of MailIngest (mail_ingest_internal.h).
#include <algorithm>
#include <cctype>

#include "base/escape.h"
#include "rules/orders/parser.h"
#include "server/mail/detail.h"
#include "server/mail/mail_ingest_internal.h"

namespace adj::mail::ingest_detail {

using detail::lower;
using detail::trim;
using detail::upper;
using detail::words;

namespace {

// Replaces every occurrence of `secret` in `s` that is not part of a longer word by asterisks
// (as the validator masks acknowledgements). Nothing when secret is empty.
std::string mask_whole_words(std::string s, const std::string& secret) {
  if (secret.empty()) return s;
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t at = s.find(secret); at != std::string::npos; at = s.find(secret, at)) {
    const std::size_t end = at + secret.size();
    if ((at == 0 || !alnum(s[at - 1])) && (end == s.size() || !alnum(s[end]))) {
      s.replace(at, secret.size(), "********");
      at += 8;
    } else {
      ++at;
    }
  }
  return s;
}

}  // namespace

std::string mask_player_lines(const std::string& text, const std::string& secret) {
  if (secret.empty()) return text;
  std::string out;
  out.reserve(text.size());
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    out += line.find(secret) == std::string::npos ? line : mask_player_secret(line);
    if (end == text.size()) break;
    out.push_back('\n');
    start = end + 1;
  }
  return out;
}

std::string mask_subject(const std::string& s) {
  const std::string up = upper(s);
  for (std::size_t at = up.find("PLAYER "); at != std::string::npos;
       at = up.find("PLAYER ", at + 1))
    if (at == 0 || !std::isalnum(static_cast<unsigned char>(s[at - 1])))
      return s.substr(0, at) + mask_player_secret(s.substr(at));
  return s;
}

std::string wrap(std::string_view text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool last = end == std::string_view::npos;
    if (last) end = text.size();
    std::string_view line = text.substr(start, end - start);
    while (line.size() > width && !line.starts_with(" ")) {
      std::size_t cut = line.rfind(' ', width);
      if (cut == std::string_view::npos || cut == 0) cut = line.find(' ', width);
      if (cut == std::string_view::npos) break;
      out.append(line.substr(0, cut));
      out.push_back('\n');
      line.remove_prefix(cut + 1);
    }
    out.append(line);
    if (!last) out.push_back('\n');
    start = end + 1;
  }
  return out;
}

std::string plus_tag(const std::string& address) {
  const std::size_t at = address.rfind('@');
  const std::string local = address.substr(0, at);
  const std::size_t plus = local.find('+');
  return plus == std::string::npos ? std::string() : local.substr(plus + 1);
}

std::string without_tag(const std::string& address) {
  const std::size_t at = address.rfind('@');
  std::string local = address.substr(0, at);
  const std::size_t plus = local.find('+');
  if (plus != std::string::npos) local.resize(plus);
  return lower(at == std::string::npos ? local : local + address.substr(at));
}

std::string bare_subject(std::string s) {
  for (;;) {
    s = trim(s);
    const std::size_t colon = s.find(':');
    if (colon == std::string::npos || colon > 3) return s;
    const std::string prefix = lower(s.substr(0, colon));
    if (prefix != "re" && prefix != "fwd" && prefix != "fw" && prefix != "aw" && prefix != "wg")
      return s;
    s = s.substr(colon + 1);
  }
}

std::string mask_mail_secrets(const std::string& raw, const std::vector<std::string>& known) {
  std::string out = mask_player_secret(raw);
  for (const std::string& secret : known)
    if (secret.size() >= 3 && secret != "********") out = mask_whole_words(std::move(out), secret);
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::size_t i = start;
    while (i < end && (out[i] == ' ' || out[i] == '\t' || out[i] == '>')) ++i;
    if (end - i > 7 && (out.compare(i, 7, "SECRET ") == 0 || out.compare(i, 7, "secret ") == 0 ||
                        out.compare(i, 7, "Secret ") == 0)) {
      std::size_t w = i + 7;
      while (w < end && out[w] == ' ') ++w;
      std::size_t e = w;
      while (e < end && out[e] != ' ' && out[e] != '\t' && out[e] != '\r') ++e;
      if (e > w) {
        out.replace(w, e - w, "********");
        end = out.find('\n', start);
        if (end == std::string::npos) end = out.size();
      }
    }
    start = end + 1;
  }
  return out;
}

bool has_base64_part(const std::string& raw) {
  std::string lower(raw.size(), '\0');
  for (std::size_t i = 0; i < raw.size(); ++i)
    lower[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(raw[i])));
  for (std::size_t at = lower.find("content-transfer-encoding:"); at != std::string::npos;
       at = lower.find("content-transfer-encoding:", at + 1)) {
    std::size_t v = at + 26;
    while (v < lower.size() && (lower[v] == ' ' || lower[v] == '\t')) ++v;
    if (lower.compare(v, 6, "base64") == 0) return true;
  }
  return false;
}

std::string header_only(const std::string& raw) {
  std::size_t end = raw.find("\r\n\r\n");
  std::size_t cut = end == std::string::npos ? std::string::npos : end + 4;
  if (const std::size_t lf = raw.find("\n\n"); lf != std::string::npos && lf + 2 < cut)
    cut = lf + 2;
  std::string out = cut == std::string::npos ? std::string() : raw.substr(0, cut);
  return out +
         "[The body of this message carried a secret in an encoded part and was removed once "
         "the message was processed; its orders are kept with their answer.]\r\n";
}

std::optional<MailCommand> secret_command_in(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::vector<std::string> w = words(text.substr(start, end - start));
    if (w.size() == 2 && upper(w[0]) == "SECRET") return MailCommand{"SECRET", w[1]};
    start = end + 1;
  }
  return std::nullopt;
}

std::optional<int> resend_turn(const MailCommand& c) {
  if (c.name != "RESEND" || c.arg.empty() || c.arg.size() > 6) return std::nullopt;
  for (char ch : c.arg)
    if (ch < '0' || ch > '9') return std::nullopt;
  const int turn = std::stoi(c.arg);
  return turn >= 1 ? std::optional<int>(turn) : std::nullopt;
}

std::optional<MailCommand> command_in(std::string_view line) {
  const std::vector<std::string> w = words(line);
  if (w.empty() || w.size() > 2) return std::nullopt;
  const std::string name = upper(w[0]);
  if (name != "HELP" && name != "RESEND" && name != "STATUS") return std::nullopt;
  return MailCommand{name, w.size() == 2 ? w[1] : ""};
}

std::string first_nonblank_line(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line = trim(text.substr(start, end - start));
    if (!line.empty()) return line;
    start = end + 1;
  }
  return {};
}

bool automatic(const ParsedMail& m, const std::string& envelope_from) {
  if (!m.auto_submitted.empty() && m.auto_submitted != "no") return true;
  if (m.precedence == "bulk" || m.precedence == "junk" || m.precedence == "list") return true;
  if (envelope_from == "<>") return true;
  const std::string local = lower(m.from_address.substr(0, m.from_address.find('@')));
  return local == "mailer-daemon" || local == "postmaster";
}

std::optional<std::size_t> truncated_size(std::string_view raw) {
  if (!raw.starts_with(kTruncated)) return std::nullopt;
  std::size_t n = 0;
  for (std::size_t i = kTruncated.size(); i < raw.size() && raw[i] != '\r' && raw[i] != '\n'; ++i)
    if (std::isdigit(static_cast<unsigned char>(raw[i]))) n = n * 10 + (raw[i] - '0');
  return n;
}

std::string bytes_text(std::size_t n) {
  if (n >= (1u << 20)) return std::to_string(n >> 20) + " MiB (" + std::to_string(n) + " bytes)";
  return std::to_string(n) + " bytes";
}

std::string report_html(const std::string& intro, const std::string& text,
                        const std::vector<std::pair<std::string, std::string>>& links) {
  std::string h =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"></head>\n"
      "<body style=\"font-family:sans-serif\">\n<p>" +
      html_escape(intro) + "</p>\n";
  if (!links.empty()) {
    h += "<ul>\n";
    for (const auto& [label, url] : links)
      h += "<li><a href=\"" + html_escape(url) + "\">" + html_escape(label) + "</a></li>\n";
    h += "</ul>\n";
  }
  h += "<pre style=\"font-family:monospace;font-size:13px;overflow-x:auto\">" + html_escape(text) +
       "</pre>\n</body></html>\n";
  return h;
}

std::string envelope_sender(const std::string& mail_from, const std::string& return_path) {
  for (const std::string* a : {&mail_from, &return_path})
    if (!a->empty() && *a != "<>" && a->find('@') != std::string::npos) return *a;
  return "";
}

}  // namespace adj::mail::ingest_detail
