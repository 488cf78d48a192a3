// TableAccess (storage/table_copy.h) over a PgStore's connection.
#pragma once

#include <memory>

#include "storage/postgres/pg_store.h"
#include "storage/table_copy.h"

namespace adj {

// Owns `store`; reads and writes through its connection, in the connection's current schema.
std::unique_ptr<TableAccess> pg_table_access(std::unique_ptr<PgStore> store);

}  // namespace adj
