// How an artifact file's bytes reach memory: read whole, mapped, or left
// open to stream; the size bound and the missing file.
#include "xla/backends/gpu/runtime/artifact_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const std::string path = (std::filesystem::path(::testing::TempDir()) / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  EXPECT_TRUE(out.good());
  return path;
}

// Bytes that differ from one position to the next (odd length on purpose).
std::string Pattern(size_t size) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 131 + 7) % 251);
  return bytes;
}

TEST(ArtifactFile, SmallFileIsReadWholeAndLargeFileIsMapped) {
  for (const size_t size : {size_t{1}, size_t{4097}, kReadWholeBytes - 1, kReadWholeBytes, kReadWholeBytes + 33}) {
    SCOPED_TRACE(size);
    const std::string bytes = Pattern(size);
    absl::StatusOr<ArtifactFile> file = ArtifactFile::Open(WriteTemp("f.xaot", bytes), int64_t{1} << 30);
    ASSERT_TRUE(file.ok()) << file.status();
    const ArtifactFile::Storage expected =
        size < kReadWholeBytes ? ArtifactFile::Storage::kHeap : ArtifactFile::Storage::kMapping;
    EXPECT_EQ(file->storage_kind(), expected);
    EXPECT_EQ(file->bytes(), bytes);
    EXPECT_NE(file->storage(), nullptr);
    EXPECT_EQ(file->ReleaseDescriptor(), -1);
  }
}

// The storage handle keeps the bytes alive after the ArtifactFile is gone.
TEST(ArtifactFile, StorageOutlivesTheFileObject) {
  for (const size_t size : {size_t{1000}, kReadWholeBytes + 1}) {
    const std::string bytes = Pattern(size);
    std::shared_ptr<const void> storage;
    absl::string_view view;
    {
      absl::StatusOr<ArtifactFile> file = ArtifactFile::Open(WriteTemp("keep.xaot", bytes), int64_t{1} << 30);
      ASSERT_TRUE(file.ok()) << file.status();
      storage = file->storage();
      view = file->bytes();
    }
    EXPECT_EQ(view, bytes);
  }
}

TEST(ArtifactFile, EmptyFileIsLeftOpenToStream) {
  const std::string path = WriteTemp("empty.xaot", "");
  absl::StatusOr<ArtifactFile> file = ArtifactFile::Open(path, 100);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->storage_kind(), ArtifactFile::Storage::kStream);
  EXPECT_TRUE(file->bytes().empty());
  EXPECT_EQ(file->storage(), nullptr);
  const int fd = file->ReleaseDescriptor();
  ASSERT_GE(fd, 0);
  char c = 0;
  EXPECT_EQ(read(fd, &c, 1), 0);  // at end: the file is empty
  EXPECT_EQ(close(fd), 0);
  EXPECT_EQ(file->ReleaseDescriptor(), -1);  // passed on once
}

TEST(ArtifactFile, FileOverTheBoundNamesPathSizeAndBound) {
  const std::string path = WriteTemp("big.xaot", Pattern(101));
  absl::StatusOr<ArtifactFile> file = ArtifactFile::Open(path, 100);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(file.status().message(), "artifact " + path + " of 101 bytes exceeds the limit 100");
  EXPECT_TRUE(ArtifactFile::Open(path, 101).ok());
}

TEST(ArtifactFile, MissingFileIsNotFound) {
  absl::StatusOr<ArtifactFile> file = ArtifactFile::Open("/nonexistent/a.xaot", 100);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(file.status().message(), "cannot open artifact /nonexistent/a.xaot");
}

// Moving hands the descriptor over; only the last owner closes it.
TEST(ArtifactFile, MoveTransfersTheDescriptor) {
  absl::StatusOr<ArtifactFile> file = ArtifactFile::Open(WriteTemp("moved.xaot", ""), 100);
  ASSERT_TRUE(file.ok()) << file.status();
  ArtifactFile moved = *std::move(file);
  ArtifactFile target = std::move(moved);
  EXPECT_EQ(moved.ReleaseDescriptor(), -1);
  const int fd = target.ReleaseDescriptor();
  ASSERT_GE(fd, 0);
  EXPECT_EQ(close(fd), 0);
}

}  // namespace
}  // namespace xla::gpu
