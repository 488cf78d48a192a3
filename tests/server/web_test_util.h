// Helpers shared by the web tests: a small XML well-formedness check for generated SVG and HTML
// fragments, and substring counting.
#pragma once

#include <string>
#include <vector>

namespace adj::testing {

// "" when `xml` is a sequence of balanced, properly nested elements (self-closing tags allowed,
// quoted attribute values, comments, <?...?> and <!doctype> skipped, HTML void elements allowed
// unclosed when `html` is set); else a description of the first problem.
inline std::string check_balanced(const std::string& xml, bool html = false) {
  static const std::vector<std::string> kVoid = {"meta", "link", "br", "input", "img", "hr"};
  std::vector<std::string> stack;
  std::size_t i = 0;
  while ((i = xml.find('<', i)) != std::string::npos) {
    if (xml.compare(i, 4, "<!--") == 0) {
      const std::size_t e = xml.find("-->", i);
      if (e == std::string::npos) return "unterminated comment";
      i = e + 3;
      continue;
    }
    if (xml.compare(i, 2, "<?") == 0 || xml.compare(i, 2, "<!") == 0) {
      const std::size_t e = xml.find('>', i);
      if (e == std::string::npos) return "unterminated declaration";
      i = e + 1;
      continue;
    }
    // Find the tag's end outside quoted attribute values.
    std::size_t j = i + 1;
    char quote = 0;
    for (; j < xml.size(); ++j) {
      if (quote) {
        if (xml[j] == quote) quote = 0;
      } else if (xml[j] == '"' || xml[j] == '\'') {
        quote = xml[j];
      } else if (xml[j] == '<') {
        return "'<' inside a tag at " + std::to_string(j);
      } else if (xml[j] == '>') {
        break;
      }
    }
    if (j >= xml.size()) return "unterminated tag at " + std::to_string(i);
    std::string tag = xml.substr(i + 1, j - i - 1);
    const bool closing = !tag.empty() && tag[0] == '/';
    const bool self_closing = !tag.empty() && tag.back() == '/';
    std::string name;
    for (std::size_t k = closing ? 1 : 0;
         k < tag.size() && tag[k] != ' ' && tag[k] != '/' && tag[k] != '\n'; ++k)
      name += tag[k];
    if (name.empty()) return "empty tag name at " + std::to_string(i);
    if (closing) {
      if (stack.empty() || stack.back() != name)
        return "</" + name + "> does not close <" + (stack.empty() ? "" : stack.back()) + ">";
      stack.pop_back();
    } else if (!self_closing) {
      bool is_void = false;
      if (html)
        for (const auto& v : kVoid) is_void = is_void || v == name;
      if (!is_void) stack.push_back(name);
    }
    i = j + 1;
  }
  if (!stack.empty()) return "<" + stack.back() + "> is never closed";
  return "";
}

inline int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (std::size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + what.size())) ++n;
  return n;
}

}  // namespace adj::testing
