// The text transformations of mail bodies (mime.h: html_to_text, without_quotes_and_signature):
// plain text from HTML (tags dropped, character references decoded to UTF-8, lines tidied) and
// the new text of a reply without its quotes and signature. Pure functions, linear in their input;
// thread-safe.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "server/mail/detail.h"
#include "server/mail/mime.h"

namespace adj::mail {

using detail::trim;

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
