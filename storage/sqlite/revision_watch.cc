#include "storage/sqlite/revision_watch.h"

#include <sqlite3.h>

namespace adj::sqlite {

Result<std::unique_ptr<RevisionWatch>> RevisionWatch::open(const std::string& path) {
  auto db = Database::open(path);
  if (!db.ok()) return db.status();
  // A reader waits at most this long for a lock; the caller may be an I/O thread.
  sqlite3_busy_timeout(db->handle(), 100);
  return std::unique_ptr<RevisionWatch>(new RevisionWatch(std::move(db).value()));
}

Result<std::shared_ptr<const RevisionMap>> RevisionWatch::current() {
  std::lock_guard lock(mu_);
  auto version = db_.prepare("PRAGMA data_version");
  if (!version.ok()) return version.status();
  auto row = version->step();
  if (!row.ok()) return row.status();
  const std::int64_t now = *row ? version->column_int64(0) : -1;
  if (revisions_ && now == data_version_) return revisions_;
  // Another connection committed: often the outbox or the inbox, whose writes change no
  // revision. Revisions only grow, so their sum changes exactly when one did: the map is built
  // again only then.
  if (revisions_) {
    auto sum = db_.prepare("SELECT coalesce(sum(rev), 0) FROM revisions");
    if (!sum.ok()) return sum.status();
    auto got = sum->step();
    if (!got.ok()) return got.status();
    if (*got && sum->column_int64(0) == revisions_->at("*")) {
      data_version_ = now;
      return revisions_;
    }
  }
  auto st = db_.prepare("SELECT scope, rev FROM revisions");
  if (!st.ok()) return st.status();
  auto map = std::make_shared<RevisionMap>();
  std::int64_t site = 0;  // revisions only grow and rows are never deleted: so does the sum
  for (;;) {
    auto more = st->step();
    if (!more.ok()) return more.status();
    if (!*more) break;
    const std::int64_t rev = st->column_int64(1);
    (*map)[st->column_text(0)] = rev;
    site += rev;
  }
  (*map)["*"] = site;
  data_version_ = now;
  revisions_ = std::move(map);
  return revisions_;
}

}  // namespace adj::sqlite
