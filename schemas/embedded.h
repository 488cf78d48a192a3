// Files from schemas/ compiled into the binary (JSON Schemas, SQL migrations, bundled scenarios,
// tables). Keys are paths relative to the repository root, e.g. "schemas/scenario.schema.json".
// Thread-safe: the data is immutable and lives for the whole program.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace adj {

std::optional<std::string_view> embedded_file(std::string_view path);
// Paths that start with `prefix`, sorted.
std::vector<std::string> embedded_files(std::string_view prefix);

}  // namespace adj
