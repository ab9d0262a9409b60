// BufferAllocation and BufferSlice: the runtime's view of the artifact's
// allocation table, validated once at load; BufferAllocations binds each
// allocation to device memory for one execution.
//
// Slices are (allocation, offset, size) and never pointers; FromProto checks
// the allocation index and that [offset, offset + size) lies inside the
// allocation without overflowing, so ExecuteOnStream can resolve slices
// without checking again.
//
// Thread-safety: plain values; BufferAllocations is immutable after
// construction and may be read from any thread.
#ifndef XLA_BACKENDS_GPU_RUNTIME_BUFFER_ALLOCATION_H_
#define XLA_BACKENDS_GPU_RUNTIME_BUFFER_ALLOCATION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/stream_executor/device_memory.h"
#include "xla/types/shape.h"

namespace xla::gpu {

// Largest allocation table and largest single allocation this runtime
// accepts; bigger ones are rejected before anything is allocated.
inline constexpr int64_t kMaxAllocations = int64_t{1} << 20;
inline constexpr int64_t kMaxAllocationBytes = int64_t{1} << 48;

// BufferAllocationProto.memory_space values (XLA's numbering).
inline constexpr int64_t kDeviceMemorySpace = 0;
inline constexpr int64_t kHostMemorySpace = 5;

struct BufferAllocation {
  int64_t index = 0;
  int64_t size = 0;
  bool is_parameter = false;
  int64_t parameter_number = 0;
  bool is_constant = false;
  int64_t constant_index = 0;
  bool is_output = false;
  bool is_temp = false;
  // kDeviceMemorySpace or kHostMemorySpace (temporaries only).
  int64_t memory_space = kDeviceMemorySpace;

  bool in_host_memory() const { return memory_space == kHostMemorySpace; }
  // What the allocation holds, for messages: "parameter 2", "output",
  // "parameter 0 (aliased with an output)", "temp", "host temp", "constant 3".
  std::string Role() const;
};

// Validates the table (index == position, size in [0, kMaxAllocationBytes],
// exactly one role, parameter numbers in [0, num_parameters), array
// parameters only, constant indices in [0, num_constants), no parameter
// used twice, memory_space 0 or 5 and 5 only on temporaries).
// InvalidArgument naming `allocations[i].<field>` otherwise.
absl::StatusOr<std::vector<BufferAllocation>> AllocationsFromProto(
    const google::protobuf::RepeatedPtrField<BufferAllocationProto>& protos,
    int64_t num_parameters, int64_t num_constants);
BufferAllocationProto AllocationToProto(const BufferAllocation& allocation);

struct BufferSlice {
  int64_t allocation = 0;
  int64_t offset = 0;
  int64_t size = 0;
  // The value's shape, when the artifact gives one (null otherwise). Held
  // out of line and shared by copies: most slices have none, and an inline
  // Shape would make every slice, and so every runtime thunk, several times
  // larger (docs/reliability.md, "Peak heap during load").
  std::shared_ptr<const Shape> shape;

  // "allocation 2 [64, 192)".
  std::string ToString() const;
};

// Whether two slices share a byte (empty slices share none). Pure.
bool SlicesOverlap(const BufferSlice& a, const BufferSlice& b);

// Validates `proto` against `allocations`; errors start with `path`, e.g.
// "thunks[3].kernel.args[1]: slice offset 64 + size 128 exceeds allocation 2
// of 100 bytes". A shape, when present, must be a valid array shape whose
// byte size equals the slice size.
absl::StatusOr<BufferSlice> SliceFromProto(
    const BufferSliceProto& proto, absl::Span<const BufferAllocation> allocations,
    absl::string_view path);
BufferSliceProto SliceToProto(const BufferSlice& slice);

// Device memory of every allocation for one execution.
class BufferAllocations {
 public:
  // Owns a copy of the table.
  explicit BufferAllocations(std::vector<stream_executor::DeviceMemoryBase> buffers)
      : owned_(std::move(buffers)), buffers_(owned_) {}
  // A view of `buffers`, which must outlive this object; allocates nothing
  // (what Execute uses for its per-run table).
  static BufferAllocations View(absl::Span<const stream_executor::DeviceMemoryBase> buffers) {
    return BufferAllocations(ViewTag(), buffers);
  }
  BufferAllocations(BufferAllocations&& other) noexcept
      : owned_(std::move(other.owned_)), buffers_(other.buffers_) {}
  BufferAllocations(const BufferAllocations&) = delete;
  BufferAllocations& operator=(const BufferAllocations&) = delete;

  // The memory of a slice validated at load against the same table. The
  // allocation's buffer must be at least as large as the table says (the
  // executable guarantees it).
  stream_executor::DeviceMemoryBase GetDeviceAddress(const BufferSlice& slice) const;
  const stream_executor::DeviceMemoryBase& buffer(int64_t index) const {
    return buffers_[index];
  }
  int64_t size() const { return static_cast<int64_t>(buffers_.size()); }

 private:
  struct ViewTag {};
  BufferAllocations(ViewTag, absl::Span<const stream_executor::DeviceMemoryBase> view)
      : buffers_(view) {}

  std::vector<stream_executor::DeviceMemoryBase> owned_;  // empty for a view
  // owned_'s elements, or the viewed table (a moved vector keeps its
  // elements in place, so the move constructor may copy the span).
  absl::Span<const stream_executor::DeviceMemoryBase> buffers_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_BUFFER_ALLOCATION_H_
