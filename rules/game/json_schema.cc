#include "rules/game/json_schema.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <memory>
#include <mutex>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "schemas/embedded.h"

namespace adj {

namespace {

struct LoadedSchema {
  Json doc;  // must outlive the parsed schema, which refers into it
  valijson::Schema schema;
};

const LoadedSchema& load(const std::string& path) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<LoadedSchema>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[path];
  if (!slot) {
    auto text = embedded_file(path);
    assert(text && "schema not embedded");
    slot = std::make_unique<LoadedSchema>();
    slot->doc = Json::parse(*text);
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter adapter(slot->doc);
    parser.populateSchema(adapter, slot->schema);
  }
  return *slot;
}

// valijson context ["<root>", "[areas]", "[3]", "[owner]"] -> "/areas/3/owner".
std::string pointer(const std::vector<std::string>& context) {
  std::string out;
  for (const auto& c : context) {
    if (c == "<root>") continue;
    std::string part = c;
    if (part.size() >= 2 && part.front() == '[' && part.back() == ']')
      part = part.substr(1, part.size() - 2);
    if (part.size() >= 2 && part.front() == '"' && part.back() == '"')
      part = part.substr(1, part.size() - 2);
    out += "/" + part;
  }
  return out.empty() ? "/" : out;
}

// The pointer's segments ("/areas/3/owner" -> areas, 3, owner).
std::vector<std::string> segments(const std::string& ptr) {
  std::vector<std::string> out;
  std::size_t at = 1;
  while (at <= ptr.size() && ptr.size() > 1) {
    const std::size_t end = std::min(ptr.find('/', at), ptr.size());
    out.push_back(ptr.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// Follows a local "$ref" ("#/definitions/code"); depth-bounded against cycles.
const Json* deref(const Json& root, const Json* node) {
  for (int depth = 0; node && node->is_object() && node->contains("$ref") && depth < 8; ++depth) {
    const Json& ref = (*node)["$ref"];
    if (!ref.is_string() || ref.get<std::string>().rfind("#/", 0) != 0) return node;
    const Json* at = &root;
    for (const std::string& seg : segments(ref.get<std::string>().substr(1))) {
      if (!at->is_object() || !at->contains(seg)) return node;
      at = &(*at)[seg];
    }
    node = at;
  }
  return node;
}

// The schema node that describes the value at `segs` (properties, additionalProperties, items);
// null when it cannot be followed (anyOf and the like).
const Json* schema_at(const Json& root, const std::vector<std::string>& segs) {
  const Json* node = deref(root, &root);
  for (const std::string& seg : segs) {
    if (!node || !node->is_object()) return nullptr;
    const Json* next = nullptr;
    if (auto p = node->find("properties"); p != node->end() && p->contains(seg))
      next = &(*p)[seg];
    else if (auto it = node->find("items"); it != node->end() && it->is_object())
      next = &*it;
    else if (auto ap = node->find("additionalProperties"); ap != node->end() && ap->is_object())
      next = &*ap;
    node = deref(root, next);
  }
  return node;
}

// The value at `segs` in `doc`; null when absent.
const Json* value_at(const Json& doc, const std::vector<std::string>& segs) {
  const Json* at = &doc;
  for (const std::string& seg : segs) {
    if (at->is_object()) {
      auto it = at->find(seg);
      if (it == at->end()) return nullptr;
      at = &*it;
    } else if (at->is_array()) {
      if (seg.empty() || seg.find_first_not_of("0123456789") != std::string::npos) return nullptr;
      const std::size_t i = std::stoul(seg);
      if (i >= at->size()) return nullptr;
      at = &(*at)[i];
    } else {
      return nullptr;
    }
  }
  return at;
}

std::string type_name(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "true or false";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "a whole number";
    case Json::value_t::number_float:
      return "a number with a fraction";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::array:
      return "a list";
    case Json::value_t::object:
      return "an object";
    default:
      return "something else";
  }
}

std::string schema_type_words(const Json& t) {
  const auto one = [](const std::string& n) -> std::string {
    if (n == "integer") return "a whole number";
    if (n == "number") return "a number";
    if (n == "string") return "a string";
    if (n == "boolean") return "true or false";
    if (n == "array") return "a list";
    if (n == "object") return "an object";
    if (n == "null") return "null";
    return n;
  };
  if (t.is_string()) return one(t.get<std::string>());
  std::string out;
  if (t.is_array())
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t[i].is_string())
        out += (i == 0 ? "" : i + 1 == t.size() ? " or " : ", ") + one(t[i].get<std::string>());
  return out;
}

// A short rendering of a value for a message (strings quoted, long ones cut).
std::string shown(const Json& v) {
  std::string s = v.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

std::string number_text(const Json& n) {
  if (n.is_number_integer() || n.is_number_unsigned()) return n.dump();
  if (n.is_number_float()) {
    const double d = n.get<double>();
    if (d == static_cast<double>(static_cast<long long>(d)))
      return std::to_string(static_cast<long long>(d));
  }
  return n.dump();
}

// valijson's description made to say what is allowed: the allowed values of an enum, the
// expected type, the bounds of a range, the pattern, the allowed fields. Unchanged when the
// schema node cannot be found.
std::string explain(const Json& schema_root, const Json& doc, const std::string& ptr,
                    const std::string& d) {
  const std::vector<std::string> segs = segments(ptr);
  const Json* node = schema_at(schema_root, segs);
  const Json* value = value_at(doc, segs);
  const std::string got = value ? " (got " + shown(*value) + ")" : std::string();
  if (d.rfind("Missing required property '", 0) == 0) {
    const std::string field = d.substr(27, d.size() - 27 - 2);
    return "the required field \"" + field + "\" is missing";
  }
  if (!node || !node->is_object()) return d;
  if (d.rfind("Failed to match against any enum values", 0) == 0 && node->contains("enum")) {
    std::string allowed;
    for (const Json& e : (*node)["enum"]) allowed += (allowed.empty() ? "" : ", ") + shown(e);
    return "must be one of " + allowed + got;
  }
  if (d.rfind("Value type not permitted", 0) == 0 && node->contains("type"))
    return "must be " + schema_type_words((*node)["type"]) +
           (value ? " (got " + type_name(*value) + ")" : std::string());
  if (d.rfind("Expected number", 0) == 0) {
    const bool has_min = node->contains("minimum") || node->contains("exclusiveMinimum");
    const bool has_max = node->contains("maximum") || node->contains("exclusiveMaximum");
    std::string range;
    if (node->contains("minimum")) range += "at least " + number_text((*node)["minimum"]);
    if (node->contains("exclusiveMinimum"))
      range += "more than " + number_text((*node)["exclusiveMinimum"]);
    if (has_min && has_max) range += " and ";
    if (node->contains("maximum")) range += "at most " + number_text((*node)["maximum"]);
    if (node->contains("exclusiveMaximum"))
      range += "less than " + number_text((*node)["exclusiveMaximum"]);
    if (!range.empty()) return "must be " + range + got;
  }
  if (d.rfind("Failed to match regex", 0) == 0 && node->contains("pattern"))
    return "must match the pattern " + (*node)["pattern"].get<std::string>() + got;
  if (d.rfind("Object contains a property that could not be validated", 0) == 0 &&
      node->contains("properties")) {
    // "... constraints: 'colour'.": the name is between the last two quotes.
    const std::size_t last = d.rfind('\'');
    const std::size_t first =
        last == std::string::npos || last == 0 ? std::string::npos : d.rfind('\'', last - 1);
    const std::string field =
        first == std::string::npos ? std::string() : d.substr(first + 1, last - first - 1);
    std::string allowed;
    for (const auto& [k, v] : (*node)["properties"].items())
      allowed += (allowed.empty() ? "" : ", ") + k;
    return "unknown field \"" + field + "\" (allowed: " + allowed + ")";
  }
  return d;
}

}  // namespace

std::vector<ScenarioError> validate_against_schema(const Json& doc, const std::string& path) {
  const LoadedSchema& s = load(path);
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(doc);
  std::vector<ScenarioError> errors;
  if (validator.validate(s.schema, target, &results)) return errors;
  valijson::ValidationResults::Error e;
  // valijson reports a failure at the leaf and again at every container above it ("Failed to
  // validate against schema associated with property ...", "Failed to validate item #3 in
  // array."); only the leaf says what is wrong, so the container echoes are dropped.
  while (results.popError(e)) {
    const std::string& d = e.description;
    if (d.rfind("Failed to validate against schema associated with property", 0) == 0 ||
        d.rfind("Failed to validate item #", 0) == 0)
      continue;
    const std::string ptr = pointer(e.context);
    errors.push_back({ptr, explain(s.doc, doc, ptr, d)});
  }
  return errors;
}

}  // namespace adj
