#include "xla/stream_executor/command_buffer.h"

#include "absl/strings/str_cat.h"

namespace stream_executor {

namespace {

bool SameDims(const LaunchDimensions& a, const LaunchDimensions& b) {
  return a.grid.x == b.grid.x && a.grid.y == b.grid.y && a.grid.z == b.grid.z &&
         a.block.x == b.block.x && a.block.y == b.block.y && a.block.z == b.block.z &&
         a.shared_memory_bytes == b.shared_memory_bytes;
}

bool SameMemory(const DeviceMemoryBase& a, const DeviceMemoryBase& b) {
  return a.opaque == b.opaque && a.size == b.size;
}

bool SameGemm(const BlasGemmConfig& a, const BlasGemmConfig& b) {
  return a.element_type == b.element_type && a.lhs_type == b.lhs_type &&
         a.rhs_type == b.rhs_type && a.m == b.m && a.n == b.n && a.k == b.k &&
         a.transpose_lhs == b.transpose_lhs && a.transpose_rhs == b.transpose_rhs &&
         a.batch_size == b.batch_size && a.lhs_batch_stride == b.lhs_batch_stride &&
         a.rhs_batch_stride == b.rhs_batch_stride &&
         a.output_batch_stride == b.output_batch_stride && a.alpha == b.alpha &&
         a.beta == b.beta && a.allow_tf32 == b.allow_tf32;
}

bool SameArgs(const DeviceCommand& a, const DeviceCommand& b) {
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (!SameMemory(a.args[i], b.args[i])) return false;
  }
  return true;
}

}  // namespace

bool DeviceCommand::SameShape(const DeviceCommand& other) const {
  if (kind != other.kind) return false;
  if (kind == Kind::kGemm) return SameGemm(gemm, other.gemm) && args.size() == other.args.size();
  if (kind == Kind::kConvolution) {
    return convolution == other.convolution && args.size() == other.args.size();
  }
  if (kind != Kind::kLaunch) return true;
  return kernel == other.kernel && SameDims(dims, other.dims) && args.size() == other.args.size();
}

bool DeviceCommand::operator==(const DeviceCommand& other) const {
  if (!SameShape(other)) return false;
  switch (kind) {
    case Kind::kLaunch:
    case Kind::kConvolution:
      return SameArgs(*this, other);
    case Kind::kGemm:
      return SameArgs(*this, other) && SameMemory(gemm.lhs_scale, other.gemm.lhs_scale) &&
             SameMemory(gemm.rhs_scale, other.gemm.rhs_scale);
    case Kind::kMemset32:
      return SameMemory(dst, other.dst) && size == other.size && pattern == other.pattern;
    case Kind::kMemZero:
      return SameMemory(dst, other.dst) && size == other.size;
    case Kind::kCopy:
      return SameMemory(dst, other.dst) && SameMemory(src, other.src) && size == other.size;
  }
  return false;
}

std::string DescribeCommand(const DeviceCommand& command) {
  switch (command.kind) {
    case DeviceCommand::Kind::kLaunch:
      return absl::StrCat("launch '", command.kernel != nullptr ? command.kernel->name() : "?", "'");
    case DeviceCommand::Kind::kMemset32:
      return absl::StrCat("memset32 ", command.size, " bytes");
    case DeviceCommand::Kind::kMemZero:
      return absl::StrCat("memzero ", command.size, " bytes");
    case DeviceCommand::Kind::kCopy:
      return absl::StrCat("copy ", command.size, " bytes");
    case DeviceCommand::Kind::kGemm:
      return absl::StrCat("gemm ", command.gemm.m, "x", command.gemm.n, "x", command.gemm.k,
                          " batch ", command.gemm.batch_size);
    case DeviceCommand::Kind::kConvolution:
      return "convolution";
  }
  return "unknown command";
}

}  // namespace stream_executor
