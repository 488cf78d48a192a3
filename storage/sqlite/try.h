// ADJ_SQL_TRY(lhs, expr): evaluates `expr` (a Result<T>); returns its Status from the enclosing
// function when it is an error, else move-assigns the value to `lhs`, which may be a declaration:
//   ADJ_SQL_TRY(auto st, db.prepare("SELECT 1"));
// Internal to storage/sqlite/*.cc; do not use in headers.
#pragma once

#include <utility>

#define ADJ_SQL_CONCAT_INNER_(a, b) a##b
#define ADJ_SQL_CONCAT_(a, b) ADJ_SQL_CONCAT_INNER_(a, b)
#define ADJ_SQL_TRY_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                      \
  if (!tmp.ok()) return tmp.status();     \
  lhs = std::move(tmp).value()
#define ADJ_SQL_TRY(lhs, expr) ADJ_SQL_TRY_IMPL_(ADJ_SQL_CONCAT_(adj_sql_try_, __LINE__), lhs, expr)
