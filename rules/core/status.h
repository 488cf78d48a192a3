// Status and Result<T>: errors as values across module boundaries.
// Value types; cheap to copy when ok. Not thread-safe to mutate concurrently (plain values).
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace adj {

enum class StatusCode {
  kOk,
  kInvalidArgument,     // the caller's input is malformed (bad JSON, bad scenario, bad flag)
  kNotFound,            // a named game, player, turn or battle does not exist
  kAlreadyExists,       // creating something whose id is taken
  kFailedPrecondition,  // the request is well formed but not allowed in the current state
  kUnavailable,         // not now, but the same request can succeed later (turn being resolved)
  kPermissionDenied,    // wrong secret or token
  kCorruption,          // stored data does not parse or contradicts itself
  kIOError,             // the file system or database failed
  kInternal,            // a bug surfaced as a value (should not happen)
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  static Status InvalidArgument(std::string m) {
    return {StatusCode::kInvalidArgument, std::move(m)};
  }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status FailedPrecondition(std::string m) {
    return {StatusCode::kFailedPrecondition, std::move(m)};
  }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status PermissionDenied(std::string m) {
    return {StatusCode::kPermissionDenied, std::move(m)};
  }
  static Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status IOError(std::string m) { return {StatusCode::kIOError, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "NotFound: game britain-9"
  std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Holds a T or a non-ok Status. REQUIRES: never constructed from an ok Status.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Status status) : v_(std::move(status)) { assert(!std::get<Status>(v_).ok()); }

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  // REQUIRES: ok()
  T& value() & {
    assert(ok());
    return std::get<T>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<T>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace adj

#define ADJ_RETURN_IF_ERROR(expr)              \
  do {                                         \
    ::adj::Status adj_status_ = (expr);        \
    if (!adj_status_.ok()) return adj_status_; \
  } while (0)

// ADJ_TRY(lhs, expr): evaluates `expr` (a Result<T>); returns its Status from the enclosing
// function when it is an error, else move-assigns the value to `lhs`, which may be a declaration:
//   ADJ_TRY(auto st, db.prepare("SELECT 1"));
// A statement, not an expression; for .cc files (it declares a hidden local per line).
#define ADJ_TRY_CONCAT_INNER_(a, b) a##b
#define ADJ_TRY_CONCAT_(a, b) ADJ_TRY_CONCAT_INNER_(a, b)
#define ADJ_TRY_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                  \
  if (!tmp.ok()) return tmp.status(); \
  lhs = std::move(tmp).value()
#define ADJ_TRY(lhs, expr) ADJ_TRY_IMPL_(ADJ_TRY_CONCAT_(adj_try_, __LINE__), lhs, expr)
