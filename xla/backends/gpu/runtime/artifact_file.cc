#include "xla/backends/gpu/runtime/artifact_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace xla::gpu {
namespace {

// Reads `size` bytes from the start of `fd` into a new heap buffer (not
// zero-filled). DataLoss naming `path` when the file reads short.
absl::StatusOr<std::shared_ptr<char[]>> ReadWhole(int fd, size_t size, const std::string& path) {
  std::shared_ptr<char[]> buffer(new char[size]);
  size_t done = 0;
  while (done < size) {
    const ssize_t got = pread(fd, buffer.get() + done, size - done, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  if (done != size) {
    return absl::DataLossError(
        absl::StrCat("cannot read artifact ", path, ": got ", done, " of its ", size, " bytes"));
  }
  return buffer;
}

// The whole of `fd` mapped read-only, or null when it cannot be mapped.
std::shared_ptr<const void> MapWhole(int fd, size_t size) {
  void* mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (mapped == MAP_FAILED) return nullptr;
  return std::shared_ptr<const void>(mapped, [size](const void* m) { munmap(const_cast<void*>(m), size); });
}

// The size of a regular, non-empty file, else 0 (the caller streams it).
size_t RegularFileSize(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return 0;
  return static_cast<size_t>(st.st_size);
}

}  // namespace

ArtifactFile::ArtifactFile(Storage kind, absl::string_view bytes, std::shared_ptr<const void> storage, int fd)
    : kind_(kind), bytes_(bytes), storage_(std::move(storage)), fd_(fd) {}

ArtifactFile::ArtifactFile(ArtifactFile&& other) noexcept
    : kind_(other.kind_),
      bytes_(std::exchange(other.bytes_, {})),
      storage_(std::move(other.storage_)),
      fd_(std::exchange(other.fd_, -1)) {}

ArtifactFile& ArtifactFile::operator=(ArtifactFile&& other) noexcept {
  if (this == &other) return *this;
  if (fd_ >= 0) close(fd_);
  kind_ = other.kind_;
  bytes_ = std::exchange(other.bytes_, {});
  storage_ = std::move(other.storage_);
  fd_ = std::exchange(other.fd_, -1);
  return *this;
}

ArtifactFile::~ArtifactFile() {
  if (fd_ >= 0) close(fd_);
}

int ArtifactFile::ReleaseDescriptor() { return std::exchange(fd_, -1); }

absl::StatusOr<ArtifactFile> ArtifactFile::Open(const std::string& path, int64_t max_bytes) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat("cannot open artifact ", path));
  // Owns `fd` from here on, whatever happens below.
  ArtifactFile file(Storage::kStream, {}, nullptr, fd);
  const size_t size = RegularFileSize(fd);
  if (size == 0) return absl::StatusOr<ArtifactFile>(std::move(file));
  if (size > static_cast<size_t>(max_bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("artifact ", path, " of ", size, " bytes exceeds the limit ", max_bytes));
  }
  if (size < kReadWholeBytes) {
    absl::StatusOr<std::shared_ptr<char[]>> buffer = ReadWhole(fd, size, path);
    if (!buffer.ok()) return buffer.status();
    const absl::string_view bytes((*buffer).get(), size);
    return ArtifactFile(Storage::kHeap, bytes, *std::move(buffer), -1);
  }
  std::shared_ptr<const void> mapping = MapWhole(fd, size);
  if (mapping == nullptr) return absl::StatusOr<ArtifactFile>(std::move(file));  // not mappable: stream it
  const absl::string_view bytes(static_cast<const char*>(mapping.get()), size);
  return ArtifactFile(Storage::kMapping, bytes, std::move(mapping), -1);
}

}  // namespace xla::gpu
