// The serving pattern of the runtime API (xla/aot/executable.h), as a small
// library a serving team can copy:
//
//   * ModelServer: one artifact, loaded once, initialized once on its
//     device, shared by every serving thread;
//   * ModelServer::Session: what one serving thread owns (a stream for
//     copying inputs in and results out); one per thread;
//   * RunOnThreads: a fixed pool of N threads taking request indices in
//     order and timing each request.
//
//   ASSIGN_OR_RETURN(auto server, ModelServer::LoadFromFile("m.xaot"));
//   // on each serving thread:
//   ASSIGN_OR_RETURN(auto session, server->NewSession());
//   ASSIGN_OR_RETURN(std::vector<Literal> results, session->Run(inputs));
//
// A request's path (Session::Run): its inputs are copied from host
// Literals into fresh device buffers on the session's stream, donated to
// Executable::Execute (so an output aliased with an input reuses its
// buffer), and the result leaves are copied back into Literals. This is
// ExecuteOnLiterals (xla/aot/literal_execution.h) without the stream it
// creates per call, which on the host platform is a thread started and
// joined per request; README.md has the measured difference.
#ifndef EXAMPLES_SERVING_MODEL_SERVER_H_
#define EXAMPLES_SERVING_MODEL_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla/aot/executable.h"
#include "xla/stream_executor/stream.h"
#include "xla/stream_executor/stream_executor.h"
#include "xla/types/literal.h"
#include "xla/types/shape.h"

namespace xla::serving {

// One loaded artifact, initialized on one device.
//
// Thread-safety: after LoadFromFile / Create returns, every const method
// and NewSession may be called from any number of threads at once (the
// executable is shared; Executable::Execute is thread-safe). Sessions are
// not shared: see Session.
class ModelServer {
 public:
  // Loads the artifact at `path` under `options` (the trust policy), then
  // as Create. Errors: Executable::LoadFromFile's (NotFound for a file that
  // cannot be opened, InvalidArgument naming the bad field,
  // PermissionDenied for a refused signature), then Create's.
  static absl::StatusOr<std::unique_ptr<ModelServer>> LoadFromFile(const std::string& path,
                                                                   const aot::LoadOptions& options = {},
                                                                   int device_ordinal = 0);

  // Takes over a loaded executable, finds its device (ordinal
  // `device_ordinal` of the platform the artifact targets,
  // program().target.platform, which must be linked into the binary) and
  // initializes the executable there, once. Errors: NotFound when the
  // platform is not linked into the binary; the platform's (InvalidArgument)
  // for an ordinal it does not have; Initialize's
  // (FailedPrecondition for a device that does not match the target,
  // NotFound for a missing custom-call handler).
  static absl::StatusOr<std::unique_ptr<ModelServer>> Create(std::unique_ptr<aot::Executable> executable,
                                                             int device_ordinal = 0);

  ModelServer(const ModelServer&) = delete;
  ModelServer& operator=(const ModelServer&) = delete;

  // The entry signature: one input per parameter, in order. Never fails.
  const ProgramShape& program_shape() const { return executable_->program_shape(); }
  // The shared executable (already initialized on device()).
  aot::Executable& executable() const { return *executable_; }
  // The device the executable runs on. Never null.
  stream_executor::StreamExecutor* device() const { return device_; }

  // OK when `inputs` has one array per parameter with the parameter's
  // element type and dimensions (layouts aside); otherwise InvalidArgument
  // "input I has shape S but parameter I ('name') is T" or "the model takes
  // N inputs, got M".
  absl::Status CheckInputs(absl::Span<const Literal> inputs) const;

  // What one serving thread owns: a stream for copying inputs in and
  // results out. Thread-compatible: one thread at a time per session (give
  // each serving thread its own); many sessions run at once.
  class Session {
   public:
    // Serves one request: checks `inputs` (CheckInputs), copies them to
    // fresh device buffers, runs the shared executable with them donated,
    // and returns the result leaves as row-major Literals in depth-first
    // order (the order of their shape indices; one Literal for an array
    // result). Errors: CheckInputs'; the device's allocation or copy
    // errors; Execute's (the failing thunk named). A failed request frees
    // what it allocated and leaves the session usable.
    absl::StatusOr<std::vector<Literal>> Run(absl::Span<const Literal> inputs);

   private:
    friend class ModelServer;
    Session(const ModelServer* server, std::unique_ptr<stream_executor::Stream> stream);
    const ModelServer* server_;
    std::unique_ptr<stream_executor::Stream> stream_;
  };

  // A new session on device(). Errors: the device's (ResourceExhausted when
  // the stream's worker thread cannot start). Thread-safe.
  absl::StatusOr<std::unique_ptr<Session>> NewSession() const;

 private:
  ModelServer(std::unique_ptr<aot::Executable> executable, stream_executor::StreamExecutor* device);

  std::unique_ptr<aot::Executable> executable_;  // never null
  stream_executor::StreamExecutor* device_;      // not owned; never null
};

// What RunOnThreads measured.
struct PoolTiming {
  // Seconds from a worker taking request i to `job` returning for it (the
  // time a request spends being served; no queueing), indexed by request.
  std::vector<double> latency_seconds;
  // Seconds from releasing the workers (already started) to the last
  // request finishing.
  double wall_seconds = 0;
};

// Serves requests 0 .. requests-1 on `threads` worker threads (at least 1;
// fewer when there are fewer requests): each worker repeatedly takes the
// next request index from a shared counter and calls job(worker, request),
// so every request is served exactly once, by one worker, and requests
// start in index order. Worker numbers are 0 .. threads-1, stable for a
// worker's lifetime (index a per-worker Session with it). Returns when all
// are done. `job` must be safe to call from `threads` threads at once and
// must not throw; it reports failures itself (e.g. into a per-request
// slot). Never fails.
PoolTiming RunOnThreads(int threads, int64_t requests,
                        const std::function<void(int worker, int64_t request)>& job);

}  // namespace xla::serving

#endif  // EXAMPLES_SERVING_MODEL_SERVER_H_
