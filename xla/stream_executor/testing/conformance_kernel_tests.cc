// The conformance tests for kernel modules, launches, leftover files and
// descriptors, and concurrency (see conformance_test_suite.h).
#include <dirent.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "xla/stream_executor/launch_dimensions.h"
#include "xla/stream_executor/testing/conformance_test_suite.h"
#include "xla/stream_executor/testing/conformance_test_util.h"
#include "xla/util/status_macros.h"

namespace stream_executor::testing {
namespace {

using ::testing::HasSubstr;

// ---------------------------------------------------------------- kernels

TEST_P(StreamExecutorConformanceTest, SaxpyOverOddGridComputesEveryElement) {
  auto module = LoadModule(GetParam().read_test_kernels, "test_kernels");
  ASSERT_NE(module, nullptr);
  ASSERT_OK_AND_ASSIGN(auto kernel, module->GetKernel("saxpy_f32"));
  std::mt19937 rng = SeededRng();
  const int64_t n = 3999;  // 1000 blocks of 4, the last one partial
  const std::vector<float> ab = {1.5f, -0.25f};
  const std::vector<float> x = RandomFloats(n, rng);
  std::vector<float> y_init = RandomFloats(n + 1, rng);  // +1: a sentinel
  const std::vector<int64_t> n_host = {n};
  OwningDeviceMemory ab_d = Allocate(8), x_d = Allocate(n * 4),
                     y_d = Allocate((n + 1) * 4), n_d = Allocate(8);
  auto stream = NewStream();
  ASSERT_OK(Upload(*stream, ab_d.ptr(), ab));
  ASSERT_OK(Upload(*stream, x_d.ptr(), x));
  ASSERT_OK(Upload(*stream, y_d.ptr(), y_init));
  ASSERT_OK(Upload(*stream, n_d.ptr(), n_host));
  LaunchDimensions dims;
  dims.grid.x = 1000;
  ASSERT_OK(stream->Launch(*kernel, dims,
                           {ab_d.get(), x_d.get(), y_d.get(), n_d.get()}));
  ASSERT_OK_AND_ASSIGN(auto y, ReadBack<float>(*stream, y_d.get()));
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_FLOAT_EQ(y[i], ab[0] * x[i] + ab[1]) << "element " << i;
  }
  EXPECT_EQ(y[n], y_init[n]);  // past n: untouched
}

TEST_P(StreamExecutorConformanceTest, LaunchRunsEveryBlockOfA3dGridOnce) {
  auto module = LoadModule(GetParam().read_test_kernels, "test_kernels");
  ASSERT_NE(module, nullptr);
  ASSERT_OK_AND_ASSIGN(auto kernel, module->GetKernel("count_blocks"));
  for (const BlockDim& grid : {BlockDim{7, 11, 13}, BlockDim{1, 1, 1},
                               BlockDim{1, 257, 1}}) {
    const int64_t total = grid.x * grid.y * grid.z;
    OwningDeviceMemory counts = Allocate(total * 4);
    auto stream = NewStream();
    ASSERT_OK(stream->MemZero(counts.ptr(), total * 4));
    LaunchDimensions dims;
    dims.grid = grid;
    ASSERT_OK(stream->Launch(*kernel, dims, {counts.get()}));
    ASSERT_OK(stream->Launch(*kernel, dims, {counts.get()}));
    ASSERT_OK_AND_ASSIGN(auto back, ReadBack<int32_t>(*stream, counts.get()));
    ASSERT_EQ(back.size(), static_cast<size_t>(total));
    for (int64_t i = 0; i < total; ++i) ASSERT_EQ(back[i], 2) << "block " << i;
  }
}

TEST_P(StreamExecutorConformanceTest, LaunchPastDeviceLimitsIsRejected) {
  auto module = LoadModule(GetParam().read_test_kernels, "test_kernels");
  ASSERT_NE(module, nullptr);
  ASSERT_OK_AND_ASSIGN(auto kernel, module->GetKernel("count_blocks"));
  const DeviceLimits& limits = executor_->limits();
  OwningDeviceMemory counts = Allocate(4);
  struct Case {
    LaunchDimensions dims;
    std::string dimension;
    int64_t limit;
  };
  std::vector<Case> cases;
  cases.push_back({{}, "grid.y", limits.max_grid_dims.y});
  cases.back().dims.grid.y = limits.max_grid_dims.y + 1;
  cases.push_back({{}, "grid.z", limits.max_grid_dims.z});
  cases.back().dims.grid.z = limits.max_grid_dims.z + 1;
  cases.push_back({{}, "block.x", limits.max_block_dims.x});
  cases.back().dims.block.x = limits.max_block_dims.x + 1;
  cases.push_back({{}, "block", limits.max_threads_per_block});
  cases.back().dims.block = {limits.max_block_dims.x, limits.max_block_dims.y, 1};
  cases.push_back({{}, "shared_memory_bytes", limits.shared_memory_per_block});
  cases.back().dims.shared_memory_bytes = limits.shared_memory_per_block + 1;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dims.ToString());
    auto stream = NewStream();
    absl::Status status = stream->Launch(*kernel, c.dims, {counts.get()});
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr(c.dimension));
    EXPECT_THAT(status.message(), HasSubstr(absl::StrCat(c.limit)));
    EXPECT_EQ(stream->BlockHostUntilDone(), status);
  }
}

TEST_P(StreamExecutorConformanceTest, MissingSymbolsAndBadModulesAreErrors) {
  auto module = LoadModule(GetParam().read_test_kernels, "test_kernels");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->name(), "test_kernels");
  for (const char* symbol : {"no_such_kernel", "malloc", "", "fill_i32"}) {
    absl::StatusOr<std::unique_ptr<Kernel>> kernel = module->GetKernel(symbol);
    EXPECT_EQ(kernel.status().code(), absl::StatusCode::kNotFound) << symbol;
    EXPECT_THAT(kernel.status().message(),
                HasSubstr(absl::StrCat("'", symbol, "'")));
    EXPECT_THAT(kernel.status().message(), HasSubstr("test_kernels"));
  }
  absl::StatusOr<std::unique_ptr<KernelModule>> garbage =
      executor_->LoadKernelModule("garbage_module", "this is not a module");
  EXPECT_EQ(garbage.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(garbage.status().message(), HasSubstr("garbage_module"));
  absl::StatusOr<std::unique_ptr<KernelModule>> empty =
      executor_->LoadKernelModule("empty_module", "");
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.status().message(), HasSubstr("empty_module"));
}

// Fills `total` int32 with `value` through the other module's kernel.
void ExpectFill(StreamExecutor* executor, Stream& stream, const Kernel& fill,
                int64_t total, int32_t value) {
  auto out = OwningDeviceMemory::Allocate(executor, total * 4);
  auto value_d = OwningDeviceMemory::Allocate(executor, 4);
  ASSERT_TRUE(out.ok() && value_d.ok());
  ASSERT_OK(Upload(stream, value_d->ptr(), std::vector<int32_t>{value}));
  LaunchDimensions dims;
  dims.grid.x = total;
  ASSERT_OK(stream.Launch(fill, dims, {out->get(), value_d->get()}));
  ASSERT_OK_AND_ASSIGN(auto back, ReadBack<int32_t>(stream, out->get()));
  for (int64_t i = 0; i < total; ++i) ASSERT_EQ(back[i], value) << i;
}

TEST_P(StreamExecutorConformanceTest, ModulesLoadedTogetherAreIndependent) {
  auto stream = NewStream();
  // Loaded while `main` stays loaded: on the host both go through the same
  // /proc/self/fd/N path, and `other` must not resolve to `main`.
  auto main = LoadModule(GetParam().read_test_kernels, "main_kernels");
  ASSERT_NE(main, nullptr);
  auto other = LoadModule(GetParam().read_other_test_kernels, "other_kernels");
  ASSERT_NE(other, nullptr);
  ASSERT_OK_AND_ASSIGN(auto fill, other->GetKernel("fill_i32"));
  EXPECT_EQ(other->GetKernel("saxpy_f32").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(main->GetKernel("fill_i32").status().code(),
            absl::StatusCode::kNotFound);
  ExpectFill(executor_, *stream, *fill, 33, -12345);

  // The same bytes loaded again while loaded; then unload and load again.
  auto again = LoadModule(GetParam().read_test_kernels, "main_again");
  ASSERT_NE(again, nullptr);
  main.reset();
  ASSERT_OK(again->GetKernel("saxpy_f32"));
  other.reset();
  auto reloaded = LoadModule(GetParam().read_other_test_kernels, "reloaded");
  ASSERT_NE(reloaded, nullptr);
  ASSERT_OK_AND_ASSIGN(auto fill_again, reloaded->GetKernel("fill_i32"));
  ExpectFill(executor_, *stream, *fill_again, 257, 31);
}

TEST_P(StreamExecutorConformanceTest, KernelOutlivesItsModule) {
  auto module = LoadModule(GetParam().read_other_test_kernels, "other_kernels");
  ASSERT_NE(module, nullptr);
  ASSERT_OK_AND_ASSIGN(auto fill, module->GetKernel("fill_i32"));
  module.reset();
  auto stream = NewStream();
  ExpectFill(executor_, *stream, *fill, 257, 77);
}

// ------------------------------------------------------ no files, no fds

// Names in `dir`; empty when it cannot be read.
std::set<std::string> ListDir(const std::string& dir) {
  std::set<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* entry = readdir(d)) names.insert(entry->d_name);
  closedir(d);
  return names;
}

// Targets of this process's descriptors that are memory files.
std::vector<std::string> MemfdDescriptors() {
  std::vector<std::string> memfds;
  for (const std::string& name : ListDir("/proc/self/fd")) {
    char target[512] = {};
    const std::string link = "/proc/self/fd/" + name;
    if (readlink(link.c_str(), target, sizeof(target) - 1) <= 0) continue;
    if (absl::StartsWith(target, "/memfd:")) memfds.push_back(target);
  }
  return memfds;
}

bool FileEquals(const std::string& path, const std::string& bytes) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream contents;
  contents << file.rdbuf();
  return file && contents.str() == bytes;
}

std::vector<std::string> TempDirs() {
  std::vector<std::string> dirs = {"/tmp", "/dev/shm"};
  for (const char* var : {"TMPDIR", "TEST_TMPDIR"}) {
    if (const char* dir = std::getenv(var)) dirs.push_back(dir);
  }
  return dirs;
}

TEST_P(StreamExecutorConformanceTest, LoadingLeavesNoFilesOrDescriptors) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, GetParam().read_test_kernels());
  std::vector<std::set<std::string>> before;
  for (const std::string& dir : TempDirs()) before.push_back(ListDir(dir));
  ASSERT_THAT(MemfdDescriptors(), ::testing::IsEmpty());
  {
    ASSERT_OK_AND_ASSIGN(auto module,
                         executor_->LoadKernelModule("no_files", bytes));
    EXPECT_THAT(MemfdDescriptors(), ::testing::IsEmpty());
    ASSERT_OK_AND_ASSIGN(auto kernel, module->GetKernel("count_blocks"));
    OwningDeviceMemory counts = Allocate(4);
    auto stream = NewStream();
    ASSERT_OK(stream->Launch(*kernel, LaunchDimensions(), {counts.get()}));
    ASSERT_OK(stream->BlockHostUntilDone());
  }
  EXPECT_THAT(MemfdDescriptors(), ::testing::IsEmpty());
  // Other processes may create files in /tmp meanwhile; none may hold the
  // module's bytes.
  const std::vector<std::string> dirs = TempDirs();
  for (size_t i = 0; i < dirs.size(); ++i) {
    for (const std::string& name : ListDir(dirs[i])) {
      if (before[i].count(name) > 0) continue;
      EXPECT_FALSE(FileEquals(dirs[i] + "/" + name, bytes))
          << "module bytes left in " << dirs[i] << "/" << name;
    }
  }
}

// ------------------------------------------------------------ concurrency

// One thread's share of ConcurrentStreamsLaunchAndCopy: its own stream and
// buffers, `iterations` rounds of upload, saxpy, download and check.
absl::Status RunSaxpyRounds(StreamExecutor* executor, const KernelModule& module,
                            int64_t n, int iterations, std::mt19937 rng) {
  ASSIGN_OR_RETURN(std::unique_ptr<Kernel> kernel, module.GetKernel("saxpy_f32"));
  ASSIGN_OR_RETURN(std::unique_ptr<Stream> stream, executor->CreateStream());
  ASSIGN_OR_RETURN(auto ab, OwningDeviceMemory::Allocate(executor, 8));
  ASSIGN_OR_RETURN(auto x, OwningDeviceMemory::Allocate(executor, n * 4));
  ASSIGN_OR_RETURN(auto y, OwningDeviceMemory::Allocate(executor, n * 4));
  ASSIGN_OR_RETURN(auto nd, OwningDeviceMemory::Allocate(executor, 8));
  LaunchDimensions dims;
  dims.grid.x = (n + 3) / 4;
  for (int it = 0; it < iterations; ++it) {
    const std::vector<float> ab_host = {static_cast<float>(it) - 2.5f, 0.5f};
    const std::vector<float> x_host = RandomFloats(n, rng);
    const std::vector<int64_t> n_host = {n};
    std::vector<float> y_host(n);
    RETURN_IF_ERROR(stream->Memcpy(ab.ptr(), ab_host.data(), 8));
    RETURN_IF_ERROR(stream->Memcpy(x.ptr(), x_host.data(), n * 4));
    RETURN_IF_ERROR(stream->Memcpy(nd.ptr(), n_host.data(), 8));
    RETURN_IF_ERROR(stream->Launch(*kernel, dims,
                                   {ab.get(), x.get(), y.get(), nd.get()}));
    RETURN_IF_ERROR(stream->Memcpy(y_host.data(), y.get(), n * 4));
    RETURN_IF_ERROR(stream->BlockHostUntilDone());
    for (int64_t i = 0; i < n; ++i) {
      const float expected = ab_host[0] * x_host[i] + ab_host[1];
      if (y_host[i] != expected) {
        return absl::InternalError(absl::StrCat("round ", it, " element ", i, ": ",
                                                y_host[i], " != ", expected));
      }
    }
  }
  return absl::OkStatus();
}

TEST_P(StreamExecutorConformanceTest, ConcurrentStreamsLaunchAndCopy) {
  auto module = LoadModule(GetParam().read_test_kernels, "test_kernels");
  ASSERT_NE(module, nullptr);
  constexpr int kThreads = 8;
  const unsigned seed = std::random_device()();
  std::vector<absl::Status> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      results[t] = RunSaxpyRounds(executor_, *module, 257 + 4 * t,
                                  /*iterations=*/10, std::mt19937(seed + t));
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_OK(results[t]) << "thread " << t << ", seed " << seed;
  }
}

TEST_P(StreamExecutorConformanceTest, ConcurrentEnqueuersOnOneStreamAreSerialized) {
  auto stream = NewStream();
  constexpr int kThreads = 8;
  constexpr int kCallbacks = 200;
  int64_t counter = 0;  // unsynchronized: the stream runs callbacks in turn
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCallbacks; ++i) {
        EXPECT_OK(stream->DoHostCallback([&counter] {
          ++counter;
          return absl::OkStatus();
        }));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_OK(stream->BlockHostUntilDone());
  EXPECT_EQ(counter, kThreads * kCallbacks);
}

}  // namespace
}  // namespace stream_executor::testing
