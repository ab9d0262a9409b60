#include "xla/stream_executor/stream_checks.h"

#include "absl/strings/str_cat.h"

namespace stream_executor {

absl::Status AnnotateStreamError(absl::string_view operation,
                                 const absl::Status& error) {
  return absl::Status(error.code(),
                      absl::StrCat(operation, " failed: ", error.message()));
}

absl::Status CheckBuffer(absl::string_view what, const void* pointer,
                         uint64_t capacity, uint64_t size) {
  if (size > capacity) {
    return absl::InvalidArgumentError(absl::StrCat(
        size, " bytes do not fit in the ", what, " buffer of ", capacity,
        " bytes"));
  }
  if (size > 0 && pointer == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", what, " pointer is null"));
  }
  return absl::OkStatus();
}

absl::Status CheckHostBuffer(absl::string_view what, const void* pointer,
                             uint64_t size) {
  return CheckBuffer(what, pointer, size, size);
}

absl::Status CheckDeviceBuffer(absl::string_view what,
                               const DeviceMemoryBase* memory, uint64_t size) {
  if (memory == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", what, " buffer is null"));
  }
  return CheckBuffer(what, memory->opaque, memory->size, size);
}

absl::Status CheckMemcpyHostToDevice(const DeviceMemoryBase* device_dst,
                                     const void* host_src, uint64_t size) {
  absl::Status valid = CheckDeviceBuffer("destination", device_dst, size);
  if (!valid.ok()) return valid;
  return CheckHostBuffer("host source", host_src, size);
}

absl::Status CheckMemcpyDeviceToHost(const void* host_dst,
                                     const DeviceMemoryBase& device_src,
                                     uint64_t size) {
  absl::Status valid = CheckDeviceBuffer("source", &device_src, size);
  if (!valid.ok()) return valid;
  return CheckHostBuffer("host destination", host_dst, size);
}

absl::Status CheckMemcpyDeviceToDevice(const DeviceMemoryBase* device_dst,
                                       const DeviceMemoryBase& device_src,
                                       uint64_t size) {
  absl::Status valid = CheckDeviceBuffer("destination", device_dst, size);
  if (!valid.ok()) return valid;
  return CheckDeviceBuffer("source", &device_src, size);
}

absl::Status CheckMemset32(const DeviceMemoryBase* location, uint64_t size) {
  absl::Status valid = CheckDeviceBuffer("destination", location, size);
  if (!valid.ok()) return valid;
  if (size % 4 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("size ", size, " is not a multiple of 4"));
  }
  return absl::OkStatus();
}

}  // namespace stream_executor
