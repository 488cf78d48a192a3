#include "tests/support/pg_test_db.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <mutex>
#include <random>
#include <vector>

#include "schemas/embedded.h"
#include "storage/postgres/pg_database.h"
#include "storage/postgres/pg_store.h"
#include "storage/sqlite/sqlite_store.h"
#include "tests/support/process.h"

namespace adj::testing {

namespace {

const char* kScript = ADJ_SOURCE_DIR "/scripts/pg-test-cluster.sh";

// The run's cluster: from ADJUTANT_TEST_PG, or started here on first use and stopped at exit.
// Databases this process created on an outside cluster are dropped at exit.
class Cluster {
 public:
  ~Cluster() {
    std::lock_guard lock(mu_);
    if (!own_dir_.empty()) {
      run_shell(shell_quote(kScript) + " stop " + shell_quote(own_dir_) + " " +
                std::to_string(own_port_) + " >/dev/null 2>&1");
      return;
    }
    if (created_.empty() || !status_.ok()) return;
    auto admin = pg::Connection::open(conninfo_ + " dbname=postgres");
    if (!admin.ok()) return;
    for (const auto& db : created_) (void)admin->exec("DROP DATABASE IF EXISTS " + db);
  }

  Result<std::string> conninfo() {
    std::lock_guard lock(mu_);
    if (!started_) {
      started_ = true;
      status_ = start();
    }
    if (!status_.ok()) return status_;
    return conninfo_;
  }

  void created(const std::string& db) {
    std::lock_guard lock(mu_);
    created_.push_back(db);
  }

 private:
  Status start() {
    if (const char* env = std::getenv("ADJUTANT_TEST_PG"); env && *env) {
      conninfo_ = env;
      // The ctest fixture found no server: it left the reason in DIR/unavailable.
      const std::string key = "host=";
      if (auto at = conninfo_.find(key); at != std::string::npos) {
        const std::string host =
            conninfo_.substr(at + key.size(), conninfo_.find(' ', at) - at - key.size());
        const std::string why =
            run_shell("cat " + shell_quote(host + "/unavailable") + " 2>/dev/null");
        if (!why.empty()) return Status::Unavailable(why);
      }
      return Status::Ok();
    }
    char templ[] = "/tmp/adj-pgtest-XXXXXX";
    if (!::mkdtemp(templ)) return Status::IOError("cannot create a directory for PostgreSQL");
    const std::string dir = templ;
    // The port only names the Unix socket (no TCP listener), so it need not be free on TCP.
    const int port = 40000 + static_cast<int>(::getpid() % 20000);
    const std::string cmd = shell_quote(kScript) + " start " + shell_quote(dir) + " " +
                            std::to_string(port) + " 2>" + shell_quote(dir + ".err");
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return Status::IOError("cannot run " + std::string(kScript));
    std::string out;
    char buf[512];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int rc = ::pclose(p);
    const std::string err = run_shell("cat " + shell_quote(dir + ".err"));
    std::remove((dir + ".err").c_str());
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    if (WIFEXITED(rc) && WEXITSTATUS(rc) == 2) {
      ::rmdir(dir.c_str());
      return Status::Unavailable(err.empty() ? "PostgreSQL server binaries not found" : err);
    }
    if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 0 || out.empty()) {
      run_shell(shell_quote(kScript) + " stop " + shell_quote(dir) + " " + std::to_string(port) +
                " >/dev/null 2>&1");
      return Status::IOError("could not start a PostgreSQL test cluster: " + err);
    }
    own_dir_ = dir;
    own_port_ = port;
    conninfo_ = out;
    return Status::Ok();
  }

  std::mutex mu_;
  bool started_ = false;
  Status status_;
  std::string conninfo_;
  std::string own_dir_;
  int own_port_ = 0;
  std::vector<std::string> created_;
};

Cluster& cluster() {
  static Cluster c;
  return c;
}

}  // namespace

namespace {

// A new database with a unique name on `base`'s cluster, made with `create_suffix` after
// "CREATE DATABASE <name>" (e.g. " TEMPLATE t"); dropped at exit.
Result<std::string> new_pg_database(const std::string& base, const std::string& create_suffix) {
  static std::atomic<int> counter{0};
  static const unsigned salt = std::random_device{}();
  const std::string name = "adj_t" + std::to_string(::getpid()) + "_" +
                           std::to_string(salt % 100000) + "_" + std::to_string(counter++);
  auto admin = pg::Connection::open(base + " dbname=postgres");
  if (!admin.ok()) return admin.status();
  if (Status s = admin->exec("CREATE DATABASE " + name + create_suffix); !s.ok()) return s;
  cluster().created(name);
  return base + " dbname=" + name;
}

}  // namespace

Result<std::string> fresh_pg_database() {
  auto base = cluster().conninfo();
  if (!base.ok()) return base.status();
  return new_pg_database(*base, "");
}

namespace {

// The template's name: it names the migrations' text, so a cluster left running by an earlier
// run with other migrations never serves a stale copy.
std::string template_name() {
  std::string all;
  for (const auto& path : embedded_files("schemas/migrations/"))
    if (auto text = embedded_file(path)) all.append(path).append(*text);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016zx", std::hash<std::string>()(all));
  return std::string("adj_template_") + hex;
}

// Makes the migrated template once per cluster: the first process to get here (under an advisory
// lock, held across processes) creates it with every migration and marks it a template.
Status ensure_template(const std::string& base, const std::string& name) {
  auto admin = pg::Connection::open(base + " dbname=postgres");
  if (!admin.ok()) return admin.status();
  constexpr std::int64_t kLockKey = 0x41444a54504c;  // "ADJTPL"
  auto locked = admin->query("SELECT pg_advisory_lock($1)", {pg::Param(kLockKey)});
  if (!locked.ok()) return locked.status();
  Status result = Status::Ok();
  auto exists = admin->query("SELECT 1 FROM pg_database WHERE datname = $1", {pg::Param(name)});
  if (!exists.ok()) {
    result = exists.status();
  } else if (exists->empty()) {
    const std::string building = name + "_building";
    (void)admin->exec("DROP DATABASE IF EXISTS " + building);
    result = admin->exec("CREATE DATABASE " + building);
    if (result.ok()) {
      auto store = PgStore::open(base + " dbname=" + building);  // runs every migration
      if (!store.ok()) result = store.status();
    }
    if (result.ok()) result = admin->exec("ALTER DATABASE " + building + " RENAME TO " + name);
    if (result.ok()) result = admin->exec("ALTER DATABASE " + name + " WITH IS_TEMPLATE true");
  }
  (void)admin->query("SELECT pg_advisory_unlock($1)", {pg::Param(kLockKey)});
  return result;
}

}  // namespace

Result<std::string> migrated_pg_database() {
  auto base = cluster().conninfo();
  if (!base.ok()) return base.status();
  static const std::string tmpl = template_name();
  static const Status made = ensure_template(*base, tmpl);  // once per process, thread-safe
  if (!made.ok()) return made;
  return new_pg_database(*base, " TEMPLATE " + tmpl);
}

namespace {

// A migrated SQLite database made once per process, so each store is a copy of its file instead
// of a run of every migration. Removed at exit by the process that made it (not by a forked child
// that exits).
class SqliteTemplate {
 public:
  SqliteTemplate() : owner_(::getpid()) {
    char templ[] = "/tmp/adj-sqlite-template-XXXXXX";
    if (!::mkdtemp(templ)) {
      status_ = Status::IOError("cannot create a directory for the SQLite template");
      return;
    }
    dir_ = templ;
    auto s = SqliteStore::open(file());
    status_ = s.ok() ? Status::Ok() : s.status();  // closed here: the file is complete
  }
  ~SqliteTemplate() {
    std::error_code ec;
    if (!dir_.empty() && ::getpid() == owner_) std::filesystem::remove_all(dir_, ec);
  }
  const Status& status() const { return status_; }
  std::string file() const { return dir_ + "/template.db"; }

 private:
  pid_t owner_;
  std::string dir_;
  Status status_;
};

Result<std::string> sqlite_template() {
  static SqliteTemplate t;  // thread-safe initialisation
  if (!t.status().ok()) return t.status();
  return t.file();
}

}  // namespace

Result<std::unique_ptr<Store>> open_test_store(const std::string& backend, const TempDir& dir) {
  if (backend == "sqlite") {
    auto tmpl = sqlite_template();
    if (!tmpl.ok()) return tmpl.status();
    std::error_code ec;
    std::filesystem::copy_file(*tmpl, dir.file("adjutant.db"), ec);
    if (ec) return Status::IOError("cannot copy the migrated template: " + ec.message());
    auto s = SqliteStore::open(dir.file("adjutant.db"));
    if (!s.ok()) return s.status();
    return std::unique_ptr<Store>(std::move(s).value());
  }
  if (backend == "postgresql") {
    auto conninfo = migrated_pg_database();
    if (!conninfo.ok()) return conninfo.status();
    auto s = PgStore::open(*conninfo);
    if (!s.ok()) return s.status();
    return std::unique_ptr<Store>(std::move(s).value());
  }
  return Status::InvalidArgument("open_test_store: unknown backend " + backend);
}

}  // namespace adj::testing
