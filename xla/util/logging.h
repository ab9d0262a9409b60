// CHECK for programmer errors. Debian's abseil (20220623) has no absl/log.
//
// XLA_CHECK(cond) << "context";  aborts with file:line and the message when
// `cond` is false. Use only for invariants the program itself guarantees, never
// for data that came from a file or a user (return an absl::Status instead).
// Thread-safe: each failure writes one message to stderr and aborts.
#ifndef XLA_UTIL_LOGGING_H_
#define XLA_UTIL_LOGGING_H_

#include <sstream>

namespace xla::internal {

// Collects a failure message; its destructor prints it and aborts.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition);
  [[noreturn]] ~CheckFailure();
  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

// Lets `cond ? (void)0 : Voidify() & stream` type-check.
struct Voidify {
  void operator&(std::ostream&) {}
};

}  // namespace xla::internal

#define XLA_CHECK(cond)                 \
  (cond) ? (void)0                      \
         : ::xla::internal::Voidify() & \
               ::xla::internal::CheckFailure(__FILE__, __LINE__, #cond).stream()

#endif  // XLA_UTIL_LOGGING_H_
