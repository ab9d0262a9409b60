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

}  // namespace

bool DeviceCommand::SameShape(const DeviceCommand& other) const {
  if (kind != other.kind) return false;
  if (kind != Kind::kLaunch) return true;
  return kernel == other.kernel && SameDims(dims, other.dims) && args.size() == other.args.size();
}

bool DeviceCommand::operator==(const DeviceCommand& other) const {
  if (!SameShape(other)) return false;
  switch (kind) {
    case Kind::kLaunch:
      for (size_t i = 0; i < args.size(); ++i) {
        if (!SameMemory(args[i], other.args[i])) return false;
      }
      return true;
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
  }
  return "unknown command";
}

}  // namespace stream_executor
