#include "xla/backends/gpu/runtime/buffer_allocation.h"

#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

absl::Status Invalid(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

int CountRoles(const BufferAllocationProto& p) {
  return int{p.is_parameter()} + int{p.is_constant()} + int{p.is_temp()} +
         int{p.is_output() && !p.is_parameter()};
}

absl::Status ValidateAllocation(const BufferAllocationProto& p, int64_t position,
                                int64_t num_parameters, int64_t num_constants,
                                std::set<int64_t>* parameters_seen) {
  const std::string path = absl::StrCat("allocations[", position, "]");
  if (p.index() != position) {
    return Invalid(path + ".index", absl::StrCat("is ", p.index(), " but must equal its position ", position));
  }
  if (p.size() < 0 || p.size() > kMaxAllocationBytes) {
    return Invalid(path + ".size", absl::StrCat(p.size(), " is outside [0, ", kMaxAllocationBytes, "]"));
  }
  if (CountRoles(p) != 1) {
    return Invalid(path, "must be exactly one of parameter, constant, temp or output "
                         "(an output may also be a parameter when aliased)");
  }
  if (p.is_parameter()) {
    if (p.parameter_number() < 0 || p.parameter_number() >= num_parameters) {
      return Invalid(path + ".parameter_number",
                     absl::StrCat(p.parameter_number(), " is outside [0, ", num_parameters,
                                  ") (the program's parameter count)"));
    }
    if (p.parameter_shape_index_size() != 0) {
      return Invalid(path + ".parameter_shape_index",
                     "tuple parameters are not supported by this runtime (format 1 "
                     "passes array parameters only)");
    }
    if (!parameters_seen->insert(p.parameter_number()).second) {
      return Invalid(path + ".parameter_number",
                     absl::StrCat("parameter ", p.parameter_number(), " has two allocations"));
    }
  }
  if (p.is_constant() && (p.constant_index() < 0 || p.constant_index() >= num_constants)) {
    return Invalid(path + ".constant_index",
                   absl::StrCat(p.constant_index(), " is outside [0, ", num_constants, ")"));
  }
  if (p.memory_space() != kDeviceMemorySpace && p.memory_space() != kHostMemorySpace) {
    return Invalid(path + ".memory_space",
                   absl::StrCat(p.memory_space(), " is not a memory space this runtime knows (0: "
                                "device, 5: host); the artifact is newer than this runtime"));
  }
  if (p.memory_space() == kHostMemorySpace && !p.is_temp()) {
    return Invalid(path + ".memory_space",
                   "5 (host) is allowed only on temporaries (is_temp)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<BufferAllocation>> AllocationsFromProto(
    const google::protobuf::RepeatedPtrField<BufferAllocationProto>& protos,
    int64_t num_parameters, int64_t num_constants) {
  if (protos.size() > kMaxAllocations) {
    return Invalid("allocations", absl::StrCat(protos.size(), " entries exceed the limit ", kMaxAllocations));
  }
  std::vector<BufferAllocation> out;
  out.reserve(protos.size());
  std::set<int64_t> parameters_seen;
  for (int i = 0; i < protos.size(); ++i) {
    const BufferAllocationProto& p = protos[i];
    RETURN_IF_ERROR(ValidateAllocation(p, i, num_parameters, num_constants, &parameters_seen));
    out.push_back({p.index(), p.size(), p.is_parameter(), p.parameter_number(), p.is_constant(),
                   p.constant_index(), p.is_output(), p.is_temp(), p.memory_space()});
  }
  if (static_cast<int64_t>(parameters_seen.size()) != num_parameters) {
    return Invalid("allocations", absl::StrCat("the program has ", num_parameters,
                                               " parameters but ", parameters_seen.size(),
                                               " parameter allocations"));
  }
  return out;
}

BufferAllocationProto AllocationToProto(const BufferAllocation& a) {
  BufferAllocationProto p;
  p.set_index(a.index);
  p.set_size(a.size);
  p.set_is_parameter(a.is_parameter);
  p.set_parameter_number(a.parameter_number);
  p.set_is_constant(a.is_constant);
  p.set_constant_index(a.constant_index);
  p.set_is_output(a.is_output);
  p.set_is_temp(a.is_temp);
  p.set_memory_space(a.memory_space);
  return p;
}

std::string BufferAllocation::Role() const {
  if (is_parameter) {
    return absl::StrCat("parameter ", parameter_number, is_output ? " (aliased with an output)" : "");
  }
  if (is_constant) return absl::StrCat("constant ", constant_index);
  if (is_output) return "output";
  return in_host_memory() ? "host temp" : "temp";
}

bool SlicesOverlap(const BufferSlice& a, const BufferSlice& b) {
  return a.allocation == b.allocation && a.size > 0 && b.size > 0 &&
         a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

std::string BufferSlice::ToString() const {
  return absl::StrCat("allocation ", allocation, " [", offset, ", ", offset + size, ")");
}

absl::StatusOr<BufferSlice> SliceFromProto(const BufferSliceProto& proto,
                                           absl::Span<const BufferAllocation> allocations,
                                           absl::string_view path) {
  const int64_t count = static_cast<int64_t>(allocations.size());
  if (proto.allocation() < 0 || proto.allocation() >= count) {
    return Invalid(path, absl::StrCat("slice allocation index ", proto.allocation(),
                                      " is outside [0, ", count, ")"));
  }
  if (proto.offset() < 0 || proto.size() < 0) {
    return Invalid(path, absl::StrCat("slice offset ", proto.offset(), " and size ", proto.size(),
                                      " must be >= 0"));
  }
  const BufferAllocation& a = allocations[proto.allocation()];
  // Both are in [0, 2^63), so the comparison below cannot overflow.
  if (proto.offset() > a.size || proto.size() > a.size - proto.offset()) {
    return Invalid(path, absl::StrCat("slice offset ", proto.offset(), " + size ", proto.size(),
                                      " exceeds allocation ", a.index, " of ", a.size, " bytes"));
  }
  BufferSlice slice{proto.allocation(), proto.offset(), proto.size(), nullptr};
  if (proto.has_shape()) {
    ASSIGN_OR_RETURN(Shape shape, ShapeFromProto(proto.shape(), absl::StrCat(path, ".shape")));
    std::optional<int64_t> bytes = shape.IsArray() ? shape.ByteSize() : std::nullopt;
    if (!bytes.has_value() || *bytes != proto.size()) {
      return Invalid(path, absl::StrCat("slice shape ", shape.ToString(), " does not fill its ",
                                        proto.size(), " bytes"));
    }
    slice.shape = std::make_shared<const Shape>(std::move(shape));
  }
  return slice;
}

BufferSliceProto SliceToProto(const BufferSlice& slice) {
  BufferSliceProto p;
  p.set_allocation(slice.allocation);
  p.set_offset(slice.offset);
  p.set_size(slice.size);
  if (slice.shape != nullptr) *p.mutable_shape() = ShapeToProto(*slice.shape);
  return p;
}

stream_executor::DeviceMemoryBase BufferAllocations::GetDeviceAddress(
    const BufferSlice& slice) const {
  const stream_executor::DeviceMemoryBase& base = buffers_[slice.allocation];
  if (base.is_null()) return stream_executor::DeviceMemoryBase(nullptr, slice.size);
  return stream_executor::DeviceMemoryBase(static_cast<char*>(base.opaque) + slice.offset,
                                           static_cast<uint64_t>(slice.size));
}

}  // namespace xla::gpu
