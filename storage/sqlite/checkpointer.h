// Background WAL checkpoints for one SQLite file.
//
// By default the connection whose commit leaves the write-ahead log at 1,000 pages or more copies
// the log into the database there and then, and with synchronous=NORMAL syncs both files: the
// thread that committed (a turn, a report batch, a delivered mail) waits for two fsyncs and the
// copying. With a Checkpointer, such a commit only wakes a thread of the Checkpointer's own,
// which runs a PASSIVE checkpoint (it never waits for readers or writers) on a connection of its
// own, while the committer goes on. The log is copied as often, and kept under about
// kRestartPages pages.
//
// Thread-safe. One per file and process (for_file); the connections of that file opened while
// background checkpoints are on each hold it, and the last to close stops its thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

struct sqlite3;

namespace adj::sqlite {

// Whether connections opened from now on leave their checkpoints to a Checkpointer (process-wide;
// default off; thread-safe). The daemon turns it on; a command-line run keeps SQLite's own.
void set_background_checkpoints(bool on);
bool background_checkpoints();

class Checkpointer {
 public:
  // The log's size in pages from which a commit asks for a checkpoint (SQLite's
  // wal_autocheckpoint default).
  static constexpr int kPages = 1000;
  // The log's length in pages from which a checkpoint also starts it over (64 MB at 16 KB
  // pages; see checkpointer.cc).
  static constexpr int kRestartPages = 4 * kPages;

  // The Checkpointer of the file at `path` (a file name, not ":memory:" or a URI): the one a
  // connection of this process already holds, else a new one whose thread starts now.
  static std::shared_ptr<Checkpointer> for_file(const std::string& path);

  // Makes `db` (a connection to this Checkpointer's file) wake the thread after each commit that
  // leaves the log at kPages or more, instead of checkpointing itself. REQUIRES: this
  // Checkpointer outlives `db`'s last commit.
  void attach(sqlite3* db);

  // Stops the thread once its checkpoint under way, if any, is done.
  ~Checkpointer();
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  // Checkpoints run so far (PASSIVE ones that copied what they could), and those of them after
  // which the log was kRestartPages long or more and was emptied.
  std::int64_t checkpoints() const;
  std::int64_t truncations() const;

 private:
  struct State;
  explicit Checkpointer(const std::string& path);
  std::unique_ptr<State> state_;
};

}  // namespace adj::sqlite
