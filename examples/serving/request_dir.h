// The serving example's directory mode: requests as folders of .npy files,
// results written back as .npy files.
//
//   DIR/<name>/input_0.npy, input_1.npy, ...   one per parameter, in order
//   OUT/<name>/out0.npy, out1.npy, ...          one per result leaf
//
// In a request folder, files named input_<N>.npy are the inputs; other
// files are ignored (a request may keep its expected outputs beside them).
// Inputs travel as `xla_aot run` reads them (xla/types/npy.h: bf16 and f8
// as float32, s4 as int8, ...).
//
// Thread-safety: every function is thread-safe as long as no two calls
// write the same output folder; ServeDirectory serves its requests from
// its own threads.
#ifndef EXAMPLES_SERVING_REQUEST_DIR_H_
#define EXAMPLES_SERVING_REQUEST_DIR_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "examples/serving/model_server.h"
#include "xla/types/literal.h"
#include "xla/types/shape.h"

namespace xla::serving {

// The names of the subdirectories of `dir`, sorted. NotFound when `dir` is
// not a directory; InvalidArgument when it holds no subdirectory.
absl::StatusOr<std::vector<std::string>> ListRequests(const std::string& dir);

// Reads the inputs of the request folder `request_dir` for `shape`: one
// input_<i>.npy per parameter, converted to the parameter's type. Errors
// (InvalidArgument or NotFound) name the file: a missing input_<i>.npy, an
// input_<N>.npy beyond the parameter count, a file named input_*.npy whose
// N is not a number, one that does not parse, or one whose dtype or
// dimensions do not fit its parameter.
absl::StatusOr<std::vector<Literal>> ReadRequestInputs(const std::string& request_dir, const ProgramShape& shape);

// Writes `results` as out0.npy, out1.npy, ... into `dir` (created with its
// parents when missing). Errors name the folder or the file.
absl::Status WriteRequestResults(const std::string& dir, absl::Span<const Literal> results);

// What ServeDirectory did, one entry per request, in ListRequests order.
struct DirectoryReport {
  std::vector<std::string> names;
  std::vector<absl::Status> statuses;  // OK, or why that request failed
  PoolTiming timing;                   // read + run + write per request
  int64_t failed = 0;                  // requests whose status is not OK
};

// Serves every request folder of `requests_dir` on `threads` threads (one
// Session each): reads its inputs, runs them on `server`, writes the
// results to output_dir/<name>/. A request that fails (a bad input, a
// failed run or write) gets its status in the report, naming the request
// folder's file where one is at fault; the others still complete. Fails as
// a whole (and serves nothing) when the folder cannot be listed or a
// session cannot be created.
absl::StatusOr<DirectoryReport> ServeDirectory(const ModelServer& server, const std::string& requests_dir,
                                               const std::string& output_dir, int threads);

}  // namespace xla::serving

#endif  // EXAMPLES_SERVING_REQUEST_DIR_H_
