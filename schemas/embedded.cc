#include "schemas/embedded.h"

#include <algorithm>

namespace adj::embedded_detail {
struct Entry {
  const char* path;
  std::string_view data;
};
extern const Entry kEntries[];
}  // namespace adj::embedded_detail

namespace adj {

std::optional<std::string_view> embedded_file(std::string_view path) {
  for (const auto* e = embedded_detail::kEntries; e->path; ++e)
    if (path == e->path) return e->data;
  return std::nullopt;
}

std::vector<std::string> embedded_files(std::string_view prefix) {
  std::vector<std::string> out;
  for (const auto* e = embedded_detail::kEntries; e->path; ++e)
    if (std::string_view(e->path).substr(0, prefix.size()) == prefix) out.emplace_back(e->path);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace adj
