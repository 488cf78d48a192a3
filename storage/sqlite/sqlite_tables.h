// TableAccess (storage/table_copy.h) over a SqliteStore's connection.
#pragma once

#include <memory>

#include "storage/sqlite/sqlite_store.h"
#include "storage/table_copy.h"

namespace adj {

// Owns `store`; reads and writes through its connection.
std::unique_ptr<TableAccess> sqlite_table_access(std::unique_ptr<SqliteStore> store);

}  // namespace adj
