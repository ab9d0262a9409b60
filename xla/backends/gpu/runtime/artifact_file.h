// ArtifactFile: how an artifact file's bytes reach memory, before anything
// reads them as a GpuExecutableProto (artifact_wire.h) or checks them
// (program.h).
//
// A regular file under kReadWholeBytes is read into one heap buffer with
// pread (cheaper than mapping, populating and unmapping a few pages); a
// larger one is memory-mapped read-only (MAP_POPULATE). A file that cannot
// be mapped (some file systems), is not a regular file or reports size 0
// stays open instead, for the caller to stream. Either way the bytes are
// owned by one shared handle (storage()), which a parse result may keep
// when it points into them.
//
// Thread-safety: an ArtifactFile is a value; distinct objects may be used
// from distinct threads, and the bytes it holds are never written.
#ifndef XLA_BACKENDS_GPU_RUNTIME_ARTIFACT_FILE_H_
#define XLA_BACKENDS_GPU_RUNTIME_ARTIFACT_FILE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla::gpu {

// Files smaller than this are read whole into the heap; larger ones are
// memory-mapped.
inline constexpr size_t kReadWholeBytes = size_t{1} << 20;

class ArtifactFile {
 public:
  // Where the file's bytes are.
  enum class Storage {
    kHeap,     // read whole into a heap buffer (a file under kReadWholeBytes)
    kMapping,  // a read-only private mapping of the file
    kStream,   // not in memory: the file is open, read it with descriptor()
  };

  // Opens `path` and brings its bytes into memory as the file comment says.
  // NotFound when the file cannot be opened; InvalidArgument naming the path,
  // the size and the bound when the file is larger than `max_bytes`;
  // DataLoss when a read comes back short.
  static absl::StatusOr<ArtifactFile> Open(const std::string& path, int64_t max_bytes);

  // Moving passes the bytes and the descriptor on; `other` keeps neither.
  ArtifactFile(ArtifactFile&& other) noexcept;
  ArtifactFile& operator=(ArtifactFile&& other) noexcept;
  ArtifactFile(const ArtifactFile&) = delete;
  ArtifactFile& operator=(const ArtifactFile&) = delete;
  // Closes the descriptor if it is still held (kStream); the bytes live on
  // while someone holds storage().
  ~ArtifactFile();

  // Where the bytes are (see Storage).
  Storage storage_kind() const { return kind_; }
  // The whole file (kHeap, kMapping); empty for kStream.
  absl::string_view bytes() const { return bytes_; }
  // The owner of bytes(): the heap buffer or the mapping, freed or unmapped
  // when the last copy goes; null for kStream.
  const std::shared_ptr<const void>& storage() const { return storage_; }
  // For kStream: the open, read-only descriptor, whose ownership passes to
  // the caller (who closes it); -1 afterwards and for the other kinds.
  int ReleaseDescriptor();

 private:
  ArtifactFile(Storage kind, absl::string_view bytes, std::shared_ptr<const void> storage, int fd);

  Storage kind_;
  absl::string_view bytes_;
  std::shared_ptr<const void> storage_;
  int fd_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_ARTIFACT_FILE_H_
