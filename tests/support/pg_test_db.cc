#include "tests/support/pg_test_db.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <vector>

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

Result<std::string> fresh_pg_database() {
  auto base = cluster().conninfo();
  if (!base.ok()) return base.status();
  static std::atomic<int> counter{0};
  static const unsigned salt = std::random_device{}();
  const std::string name = "adj_t" + std::to_string(::getpid()) + "_" +
                           std::to_string(salt % 100000) + "_" + std::to_string(counter++);
  auto admin = pg::Connection::open(*base + " dbname=postgres");
  if (!admin.ok()) return admin.status();
  if (Status s = admin->exec("CREATE DATABASE " + name); !s.ok()) return s;
  cluster().created(name);
  return *base + " dbname=" + name;
}

Result<std::unique_ptr<Store>> open_test_store(const std::string& backend, const TempDir& dir) {
  if (backend == "sqlite") {
    auto s = SqliteStore::open(dir.file("adjutant.db"));
    if (!s.ok()) return s.status();
    return std::unique_ptr<Store>(std::move(s).value());
  }
  if (backend == "postgresql") {
    auto conninfo = fresh_pg_database();
    if (!conninfo.ok()) return conninfo.status();
    auto s = PgStore::open(*conninfo);
    if (!s.ok()) return s.status();
    return std::unique_ptr<Store>(std::move(s).value());
  }
  return Status::InvalidArgument("open_test_store: unknown backend " + backend);
}

}  // namespace adj::testing
