// Status propagation macros. Debian's abseil (20220623) ships absl::Status but
// no RETURN_IF_ERROR / ASSIGN_OR_RETURN, so the project defines them once here.
//
// RETURN_IF_ERROR(expr): evaluates `expr` (an absl::Status); returns it from
//   the enclosing function when it is not OK.
// ASSIGN_OR_RETURN(lhs, expr): evaluates `expr` (an absl::StatusOr<T>);
//   returns its status when not OK, otherwise move-assigns the value to `lhs`
//   (which may be a declaration, e.g. `auto x`).
#ifndef XLA_UTIL_STATUS_MACROS_H_
#define XLA_UTIL_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define XLA_STATUS_CONCAT_INNER_(a, b) a##b
#define XLA_STATUS_CONCAT_(a, b) XLA_STATUS_CONCAT_INNER_(a, b)

#define RETURN_IF_ERROR(expr)                        \
  do {                                               \
    ::absl::Status xla_status_macro_ = (expr);       \
    if (!xla_status_macro_.ok()) return xla_status_macro_; \
  } while (0)

#define ASSIGN_OR_RETURN(lhs, expr) \
  XLA_ASSIGN_OR_RETURN_IMPL_(XLA_STATUS_CONCAT_(xla_statusor_, __LINE__), lhs, expr)

#define XLA_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                               \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#endif  // XLA_UTIL_STATUS_MACROS_H_
