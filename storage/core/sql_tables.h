// TableAccess (storage/table_copy.h) over a SqlStore's connection, for either dialect.
#pragma once

#include <memory>
#include <string>

#include "storage/core/sql_store.h"
#include "storage/table_copy.h"

namespace adj {

// Owns `store`; reads and writes through its session (PostgreSQL: in the connection's current
// schema). `sqlite_path` is the file a SQLite store opened ("" for PostgreSQL): its canonical
// path is the database's identity().
std::unique_ptr<TableAccess> sql_table_access(std::unique_ptr<SqlStore> store,
                                              std::string sqlite_path);

}  // namespace adj
