#include "rules/game/json_schema.h"

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
    errors.push_back({pointer(e.context), d});
  }
  return errors;
}

}  // namespace adj
