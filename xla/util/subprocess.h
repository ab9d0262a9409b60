// Running an external tool (a linker, ptxas) from the compiler: finding it,
// giving it a private scratch directory, and capturing its output.
//
// Compiler-side only: the runtime never starts processes.
// Thread-safety: every function is thread-safe; a ScopedTempDir belongs to
// one owner.
#ifndef XLA_UTIL_SUBPROCESS_H_
#define XLA_UTIL_SUBPROCESS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it
// when the object is destroyed.
class ScopedTempDir {
 public:
  // Errors: the directory cannot be created (the message names the path and
  // says to set TMPDIR).
  static absl::StatusOr<std::unique_ptr<ScopedTempDir>> Create(absl::string_view prefix);
  ~ScopedTempDir();
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  explicit ScopedTempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// True when `path` is a regular file this process may execute.
bool IsExecutableFile(const std::string& path);

// The first of `names` found as an executable in one of `extra_dirs` or on
// PATH (in that order); a name containing '/' is taken as a path. Errors:
// NotFound listing what was looked for.
absl::StatusOr<std::string> FindTool(const std::vector<std::string>& names,
                                     const std::vector<std::string>& extra_dirs);

struct ProcessResult {
  int exit_code = 0;   // 128 + signal number when killed by a signal
  std::string output;  // stdout and stderr, interleaved
};

// Runs args[0] (a path) with `args`, waits for it, and returns its exit code
// and output. Errors: the process cannot be started or its output cannot be
// captured (not a non-zero exit code, which is in the result).
absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& args);

// Whole-file helpers for scratch files. Errors name the path.
absl::Status WriteFileBytes(const std::string& path, absl::string_view bytes);
absl::StatusOr<std::string> ReadFileBytes(const std::string& path);

}  // namespace xla

#endif  // XLA_UTIL_SUBPROCESS_H_
