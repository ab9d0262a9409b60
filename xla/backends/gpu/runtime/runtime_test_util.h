// Test helpers for the runtime (test-only): hand-written artifacts from text
// protos, the host device, golden files, and a ThunkContext over a small
// fixed table for thunk unit tests.
#ifndef XLA_BACKENDS_GPU_RUNTIME_RUNTIME_TEST_UTIL_H_
#define XLA_BACKENDS_GPU_RUNTIME_RUNTIME_TEST_UTIL_H_

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/backends/gpu/runtime/thunk.h"
#include "xla/stream_executor/stream_executor.h"

namespace xla::gpu::testing {

// The bytes of libruntime_test_kernels.so (testdata/test_kernels.cc).
std::string TestKernels();
// The same with only `symbols` exported (the others hidden): an artifact's
// objects may export only its kernels (CheckHostObjects).
std::string TestKernelsExporting(const std::set<std::string>& symbols);

// Parses `text` (a GpuExecutableProto text proto); fills an unset header
// with format 1, target host and a compiler version; embeds the test
// kernels, exporting the host symbols of its kernels, when the payload has
// host_symbol kernels and no shared object; seals the checksum. Fails the
// test on a parse error.
GpuExecutableProto MakeArtifact(absl::string_view text);
std::string SerializeArtifact(const GpuExecutableProto& artifact);

// The host device.
stream_executor::StreamExecutor* HostExecutor();

// Contents of a runtime testdata file ("kernel_thunk.textproto").
std::string ReadTestdata(absl::string_view name);

// A context over: allocations 0 and 1 (parameters, 64 bytes), 2 (output,
// 64 bytes), 3 (temp, 4 bytes), 4 (temp, 1024 bytes), 5 (temp in host
// memory, 256 bytes); kernels 0 (host symbol add_f32), 1 (registered
// xla.runtime.iota_s32) and 2 (PTX entry `wide`, one parameter: a kernel
// launched through an argument table); 2 streams; the
// global FFI registry; target host.
class ThunkTestContext {
 public:
  ThunkTestContext();
  ThunkContext context() const { return ThunkContext(&tables_, "thunk", 0); }
  absl::StatusOr<std::unique_ptr<Thunk>> Deserialize(const ThunkProto& proto) const;

 private:
  Target target_;
  std::vector<BufferAllocation> allocations_;
  std::vector<KernelSpec> kernels_;
  mutable std::set<int64_t> async_ids_;
  ThunkContext::Tables tables_;
};

// Reads testdata/<golden> (a ThunkProto text proto), deserializes it with a
// ThunkTestContext, and checks ToProto gives back the same message (equal
// deterministic bytes) and prints exactly as the golden text.
void ExpectRoundTripMatchesGolden(absl::string_view golden);

// Deserializes `text` (a ThunkProto) and returns the error message ("" on
// success).
std::string DeserializeError(absl::string_view text);

}  // namespace xla::gpu::testing

#endif  // XLA_BACKENDS_GPU_RUNTIME_RUNTIME_TEST_UTIL_H_
