// `adjutant copy --from DB --to DB` (storage/table_copy.h): moves a host's games between SQLite
// and PostgreSQL and checks the result table by table. Databases are printed only through
// describe_database(), which hides passwords.
#include <cstdio>
#include <filesystem>

#include "server/cli/commands.h"
#include "storage/open_database.h"
#include "storage/table_copy.h"

namespace adj::cli {

namespace {

int copy_fail(const std::string& what, const Status& s) {
  std::fprintf(stderr, "error: %s: %s\n", what.c_str(), s.message().c_str());
  return s.code() == StatusCode::kFailedPrecondition ? kExitRefused : kExitError;
}

}  // namespace

int copy_database(const std::string& from, const std::string& to) {
  const std::string from_name = describe_database(from), to_name = describe_database(to);
  auto src = open_table_access(from, /*must_exist=*/true);
  if (!src.ok()) return copy_fail("source", src.status());
  // A SQLite destination file this command creates is removed again when nothing is copied.
  const std::string to_file = database_file(to);
  std::error_code ec;
  const bool new_file = !to_file.empty() && !std::filesystem::exists(to_file, ec);
  auto dst = open_table_access(to, /*must_exist=*/false);
  if (!dst.ok()) return copy_fail("destination", dst.status());
  auto undo = [&](int code) {
    if (new_file) {
      dst->reset();
      for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        std::filesystem::remove(to_file + suffix, ec);
    }
    return code;
  };
  auto src_id = (*src)->identity();
  if (!src_id.ok()) return undo(copy_fail("source", src_id.status()));
  auto dst_id = (*dst)->identity();
  if (!dst_id.ok()) return undo(copy_fail("destination", dst_id.status()));
  if (*src_id == *dst_id) {
    std::fprintf(stderr, "error: %s and %s are the same database; nothing copied\n",
                 from_name.c_str(), to_name.c_str());
    return undo(kExitRefused);
  }

  std::printf("Copying %s (%s) to %s (%s)\n", from_name.c_str(), (*src)->backend().c_str(),
              to_name.c_str(), (*dst)->backend().c_str());
  if (Status copied = copy_tables(**src, **dst); !copied.ok())
    return undo(copy_fail("copy", copied));

  auto counts = compare_tables(**src, **dst);
  if (!counts.ok()) {
    std::fprintf(stderr, "error: the copy differs from its source: %s\n",
                 counts.status().message().c_str());
    return kExitError;
  }
  std::int64_t total = 0;
  std::printf("  %-22s %10s\n", "table", "rows");
  for (const auto& c : *counts) {
    std::printf("  %-22s %10lld\n", c.table.c_str(), static_cast<long long>(c.rows));
    total += c.rows;
  }
  std::printf("Copied and checked: %zu tables, %lld rows, every row equal in both databases.\n",
              counts->size(), static_cast<long long>(total));
  return kExitOk;
}

}  // namespace adj::cli
