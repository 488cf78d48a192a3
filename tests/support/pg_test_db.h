// PostgreSQL for tests: a throw-away cluster from Debian's package, one per test run, and a
// fresh database per test on it.
//
// The cluster: ctest starts it once (the `pg_cluster` fixture, scripts/pg-test-cluster.sh) and
// passes its socket directory and port in ADJUTANT_TEST_PG ("host=DIR port=PORT user=adj");
// a test binary run by hand without it starts its own cluster in a temporary directory on first
// use and stops it at exit. Unavailable, naming why, when no server can be started (package
// missing): callers skip with that message (GTEST_SKIP), never pass silently.
#pragma once

#include <memory>
#include <string>

#include "rules/core/status.h"
#include "storage/store.h"
#include "tests/support/temp_dir.h"

namespace adj::testing {

// The conninfo of a new, empty database (a unique name) on the run's cluster.
Result<std::string> fresh_pg_database();

// The conninfo of a new database holding every migration: a copy (CREATE DATABASE ... TEMPLATE) of
// a migrated template made once per cluster, instead of migrating each test's database.
Result<std::string> migrated_pg_database();

// A migrated Store of `backend` ("sqlite": a file in `dir`; "postgresql": migrated_pg_database()).
Result<std::unique_ptr<Store>> open_test_store(const std::string& backend, const TempDir& dir);

}  // namespace adj::testing
