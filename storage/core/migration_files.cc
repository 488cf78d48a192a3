#include "storage/core/migration_files.h"

#include <algorithm>
#include <charconv>

#include "schemas/embedded.h"

namespace adj {

std::string dialect_fragment(std::string_view file, Dialect dialect) {
  std::string out;
  bool on = true;
  while (!file.empty()) {
    const auto nl = file.find('\n');
    const std::string_view line =
        file.substr(0, nl == std::string_view::npos ? file.size() : nl + 1);
    file.remove_prefix(line.size());
    std::string_view bare = line;
    while (!bare.empty() && (bare.back() == '\n' || bare.back() == '\r' || bare.back() == ' '))
      bare.remove_suffix(1);
    if (bare == "-- @both")
      on = true;
    else if (bare == "-- @sqlite")
      on = dialect == Dialect::kSqlite;
    else if (bare == "-- @postgres")
      on = dialect == Dialect::kPostgres;
    else if (on)
      out += line;
  }
  return out;
}

Result<Migration> migration_from_file(std::string_view path, std::string_view sql) {
  const auto slash = path.rfind('/');
  std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const auto bad = [&] {
    return Status::InvalidArgument("migration file name must look like 0001_name.sql: " +
                                   std::string(path));
  };
  constexpr std::string_view kExt = ".sql";
  if (file.size() <= kExt.size() || file.substr(file.size() - kExt.size()) != kExt) return bad();
  file.remove_suffix(kExt.size());
  const auto underscore = file.find('_');
  if (underscore == std::string_view::npos || underscore < 4) return bad();
  Migration m;
  const auto digits = file.substr(0, underscore);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), m.version);
  if (ec != std::errc() || end != digits.data() + digits.size() || m.version < 1) return bad();
  m.name = std::string(file.substr(underscore + 1));
  if (m.name.empty() || !std::all_of(m.name.begin(), m.name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      }))
    return bad();
  m.sql = std::string(sql);
  return m;
}

Status check_sequence(const std::vector<Migration>& migrations) {
  for (std::size_t i = 0; i < migrations.size(); ++i) {
    if (migrations[i].version != static_cast<int>(i) + 1)
      return Status::InvalidArgument("migrations must be numbered 1, 2, 3, ...; found " +
                                     std::to_string(migrations[i].version) + " (" +
                                     migrations[i].name + ") at position " + std::to_string(i + 1));
  }
  return Status::Ok();
}

Result<std::vector<Migration>> bundled_migrations(Dialect dialect) {
  std::vector<Migration> out;
  for (const auto& path : embedded_files("schemas/migrations/")) {
    auto m = migration_from_file(path, dialect_fragment(embedded_file(path).value_or(""), dialect));
    if (!m.ok()) return Status::Internal(m.status().message());
    out.push_back(std::move(m).value());
  }
  std::sort(out.begin(), out.end(),
            [](const Migration& a, const Migration& b) { return a.version < b.version; });
  if (auto s = check_sequence(out); !s.ok()) return Status::Internal(s.message());
  return out;
}

}  // namespace adj
