#include "base/escape.h"

namespace adj {

namespace {

void escape_into(std::string& out, char c) {
  switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out.push_back(c);
  }
}

}  // namespace

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) escape_into(out, c);
  return out;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') continue;
    escape_into(out, c);
  }
  return out;
}

}  // namespace adj
