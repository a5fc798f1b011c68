// Status propagation and invariant checks.
//
// Abseil 20220623 (Debian 12's) ships absl::Status but neither absl/log nor
// the status macros, so dpfuzz keeps the few it needs here, in the spirit of
// FuzzTest's common/status_macros.h:
//
//   absl::StatusOr<Case> LoadCase(const std::string& path) {
//     DPFUZZ_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
//     DPFUZZ_RETURN_IF_ERROR(Validate(text));
//     ...
//   }
//
// DPFUZZ_CHECK is for invariants of dpfuzz itself (a bug in dpfuzz, never a
// property of the op under test or of user input): it prints the condition
// and location to stderr and aborts.

#ifndef DPFUZZ_COMMON_STATUS_MACROS_H_
#define DPFUZZ_COMMON_STATUS_MACROS_H_

#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define DPFUZZ_INTERNAL_CONCAT_IMPL(a, b) a##b
#define DPFUZZ_INTERNAL_CONCAT(a, b) DPFUZZ_INTERNAL_CONCAT_IMPL(a, b)

// Returns the status from the enclosing function when `expr` is not OK.
#define DPFUZZ_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    const absl::Status dpfuzz_status_ = (expr);      \
    if (!dpfuzz_status_.ok()) return dpfuzz_status_; \
  } while (false)

// `lhs = *expr` when `expr` (an absl::StatusOr) holds a value; otherwise
// returns its status from the enclosing function.
#define DPFUZZ_ASSIGN_OR_RETURN(lhs, expr) \
  DPFUZZ_INTERNAL_ASSIGN_OR_RETURN(        \
      DPFUZZ_INTERNAL_CONCAT(dpfuzz_statusor_, __LINE__), lhs, expr)

#define DPFUZZ_INTERNAL_ASSIGN_OR_RETURN(statusor, lhs, expr) \
  auto statusor = (expr);                                     \
  if (!statusor.ok()) return std::move(statusor).status();    \
  lhs = *std::move(statusor)

// Aborts with a message when an internal invariant does not hold.
#define DPFUZZ_CHECK(cond)                                                 \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::fprintf(stderr, "dpfuzz: internal check failed at %s:%d: %s\n", \
                   __FILE__, __LINE__, #cond);                             \
      std::abort();                                                        \
    }                                                                      \
  } while (false)

#endif  // DPFUZZ_COMMON_STATUS_MACROS_H_
