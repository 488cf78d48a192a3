#include "rules/report/state_text.h"

#include <algorithm>

namespace adj {

namespace {

using Json = nlohmann::json;

std::string words(std::string key) {
  std::replace(key.begin(), key.end(), '_', ' ');
  return key;
}

bool scalar(const Json& j) { return !j.is_object() && !j.is_array(); }

bool state_shown(const Json& j) {
  return !((j.is_array() || j.is_object()) && j.empty()) && !j.is_null();
}

std::string scalar_text(const Json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_boolean()) return j.get<bool>() ? "yes" : "no";
  return j.dump();
}

// The key naming an object in a list: name, else type, else id; "" when none is a string.
std::string head_key(const Json& o) {
  for (const char* k : {"name", "type", "id"})
    if (o.contains(k) && o[k].is_string()) return k;
  return "";
}

std::string object_inline(const Json& o, const std::string& skip_head);

std::string value_inline(const Json& j) {
  if (scalar(j)) return scalar_text(j);
  if (j.is_array()) {
    std::string out;
    for (const auto& x : j) {
      if (!state_shown(x)) continue;
      if (!out.empty()) out += ", ";
      out += value_inline(x);
    }
    return out;
  }
  const std::string head = head_key(j);
  if (head.empty()) return object_inline(j, "");
  const std::string rest = object_inline(j, head);
  const std::string name = j[head].get<std::string>();
  return rest.empty() ? name : name + " (" + rest + ")";
}

// "k v, k v" when every shown value is plain; else "k v; k: v, v" (a colon before a list or an
// object). `skip_head` (and "id" when the head is a name) is left out.
std::string object_inline(const Json& o, const std::string& skip_head) {
  bool all_plain = true;
  for (auto it = o.begin(); it != o.end(); ++it)
    if (state_shown(*it) && !scalar(*it)) all_plain = false;
  std::string out;
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (it.key() == skip_head || (skip_head == "name" && it.key() == "id") || !state_shown(*it))
      continue;
    if (!out.empty()) out += all_plain ? ", " : "; ";
    out += words(it.key()) + (scalar(*it) ? " " : ": ") + value_inline(*it);
  }
  return out;
}

// Whether an object reads best spread over lines: it holds an object that is not a plain phrase.
bool spread(const Json& o) {
  for (const auto& v : o)
    if (v.is_object() && !v.empty()) return true;
  return false;
}

void lines(const Json& o, const std::string& indent, std::string& out) {
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (!state_shown(*it)) continue;
    if (it->is_object() && spread(*it)) {
      out += indent + words(it.key()) + ":\n";
      lines(*it, indent + "  ", out);
    } else {
      out += indent + words(it.key()) + ": " + value_inline(*it) + "\n";
    }
  }
}

}  // namespace

std::string state_inline(const Json& state) {
  if (!state_shown(state)) return "-";
  const std::string out = value_inline(state);
  return out.empty() ? "-" : out;
}

std::string state_lines(const Json& state, const std::string& indent) {
  if (!state_shown(state)) return "";
  if (!state.is_object()) return indent + value_inline(state) + "\n";
  std::string out;
  lines(state, indent, out);
  return out;
}

}  // namespace adj
