// Round trip and golden of KernelThunk, what its FromProto rejects, and
// launches through an argument table on the fake CUDA platform (the fake
// records the launch parameters; a host function stands in for the kernel
// and reads its buffers through the table, as the PTX does).
#include "xla/backends/gpu/runtime/kernel_thunk.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/buffer_allocation.h"
#include "xla/backends/gpu/runtime/kernel_table.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/owning_device_memory.h"

namespace xla::gpu {
namespace {

using ::xla::gpu::testing::DeserializeError;

TEST(KernelThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("kernel_thunk.textproto");
}

TEST(KernelThunk, RejectsSlicePastAllocation) {
  const std::string error = DeserializeError(R"pb(kernel { args { allocation: 0 } args { allocation: 1 offset: 32 size: 64 } launch_dimensions { grid_x: 1 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.kernel.args[1]: slice offset 32 + size 64 exceeds allocation 1 of 64 bytes")) << error;
}

TEST(KernelThunk, RejectsUnknownKernel) {
  const std::string error = DeserializeError(R"pb(kernel { kernel_index: 9 launch_dimensions { grid_x: 1 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.kernel.kernel_index: kernel index 9 is outside [0, 3)")) << error;
}

TEST(KernelThunk, RejectsZeroGrid) {
  const std::string error = DeserializeError(R"pb(kernel { launch_dimensions { grid_x: 0 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.kernel.launch_dimensions: ")) << error;
}

TEST(KernelThunk, RejectsWrongArgCountForRegisteredKernel) {
  const std::string error = DeserializeError(R"pb(kernel { kernel_index: 1 launch_dimensions { grid_x: 1 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "registered kernel 'xla.runtime.iota_s32' takes 1 arguments, got 0")) << error;
}

TEST(KernelThunk, ArgumentTableRoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("kernel_thunk_argument_table.textproto");
}

// A kernel thunk over kernel 2 (PTX) with three 64-byte args and the given
// argument_table text.
std::string WideKernel(absl::string_view table, int kernel_index = 2) {
  return absl::StrCat("kernel { kernel_index: ", kernel_index,
                      " args { allocation: 0 size: 64 } args { allocation: 1 size: 64 } "
                      "args { allocation: 4 offset: 512 size: 64 } launch_dimensions { grid_x: 1 "
                      "grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } argument_table { ",
                      table, " } }");
}

TEST(KernelThunk, AcceptsAWellFormedArgumentTable) {
  EXPECT_EQ(DeserializeError(WideKernel("allocation: 4 offset: 8 size: 24")), "");
}

TEST(KernelThunk, RejectsAnArgumentTableTooSmall) {
  const std::string error = DeserializeError(WideKernel("allocation: 4 offset: 8 size: 16"));
  EXPECT_TRUE(absl::StrContains(error, "thunk.kernel.argument_table: the table has 16 bytes; 3 "
                                       "arguments need 24")) << error;
}

TEST(KernelThunk, RejectsAnArgumentTableOverlappingAnArgument) {
  const std::string error = DeserializeError(WideKernel("allocation: 4 offset: 560 size: 24"));
  EXPECT_TRUE(absl::StrContains(error, "thunk.kernel.argument_table: the table allocation 4 "
                                       "[560, 584) overlaps args[2] allocation 4 [512, 576)"))
      << error;
}

TEST(KernelThunk, RejectsAnArgumentTableOutsideTempMemory) {
  // Allocation 2 is an output, allocation 0 a parameter: not per execution.
  for (const char* table : {"allocation: 2 size: 24", "allocation: 0 size: 24"}) {
    const std::string error = DeserializeError(
        absl::StrCat("kernel { kernel_index: 2 args { allocation: 1 size: 64 } args { allocation: 1 "
                     "size: 64 } args { allocation: 1 size: 64 } launch_dimensions { grid_x: 1 "
                     "grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } argument_table { ",
                     table, " } }"));
    EXPECT_TRUE(absl::StrContains(error, "is not in a temp allocation")) << error;
  }
}

TEST(KernelThunk, RejectsAnArgumentTablePastItsAllocationOrMisaligned) {
  std::string error = DeserializeError(WideKernel("allocation: 4 offset: 1008 size: 24"));
  EXPECT_TRUE(absl::StrContains(error, "thunk.kernel.argument_table: slice offset 1008 + size 24 "
                                       "exceeds allocation 4 of 1024 bytes")) << error;
  error = DeserializeError(WideKernel("allocation: 4 offset: 4 size: 24"));
  EXPECT_TRUE(absl::StrContains(error, "the table's offset 4 is not a multiple of 8")) << error;
  error = DeserializeError(WideKernel("allocation: 9 size: 24"));
  EXPECT_TRUE(absl::StrContains(error, "thunk.kernel.argument_table")) << error;
}

TEST(KernelThunk, RejectsAnArgumentTableForHostKernels) {
  const std::string error = DeserializeError(WideKernel("allocation: 4 offset: 8 size: 24", 0));
  EXPECT_TRUE(absl::StrContains(error, "kernel 'add' is a host_symbol kernel; only PTX and cubin "
                                       "kernels take an argument table")) << error;
}

namespace se = ::stream_executor;

// The PTX the fake driver loads: one declared parameter, the table.
constexpr char kWidePtx[] =
    ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry wide_dot(\n.param .u64 wide_dot_param_0\n)\n{\nret;\n}\n";

// Launches through an argument table on the fake CUDA driver.
class KernelThunkOnFakeCudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<se::StreamExecutor*> device = platform_.GetDevice(0);
    ASSERT_TRUE(device.ok()) << device.status();
    executor_ = *device;
    absl::StatusOr<std::unique_ptr<se::Stream>> stream = executor_->CreateStream();
    ASSERT_TRUE(stream.ok()) << stream.status();
    stream_ = *std::move(stream);
    spec_.name = "wide_dot";
    spec_.kind = KernelSpec::Kind::kPtx;
    spec_.code = kWidePtx;
    spec_.entry = "wide_dot";
    specs_ = {spec_};
    kernels_ = std::make_unique<DeviceKernels>(executor_, specs_, "", "wide_module");
  }

  se::OwningDeviceMemory Allocate(uint64_t bytes) {
    absl::StatusOr<se::OwningDeviceMemory> memory = se::OwningDeviceMemory::Allocate(executor_, bytes);
    EXPECT_TRUE(memory.ok()) << memory.status();
    return std::move(memory).value();
  }

  se::cuda::FakeCudaDriver driver_;
  se::cuda::CudaPlatform platform_{&driver_.api()};
  se::StreamExecutor* executor_ = nullptr;
  std::unique_ptr<se::Stream> stream_;
  KernelSpec spec_;
  std::vector<KernelSpec> specs_;
  std::unique_ptr<DeviceKernels> kernels_;
};

BufferSlice Slice(int64_t allocation, int64_t offset, int64_t size) {
  BufferSlice slice;
  slice.allocation = allocation;
  slice.offset = offset;
  slice.size = size;
  return slice;
}

// 601 arguments, past any kernel-parameter space: 600 inputs of 3 floats,
// each at its own offset of allocation 0, and the output (allocation 1).
// The stand-in kernel reads every pointer from the table and computes
// out[j] = sum_i (i + 1) * in_i[j], so a table with a wrong, missing or
// permuted entry gives a different result.
TEST_F(KernelThunkOnFakeCudaTest, FillsTheTableBeforeTheLaunchAndTheKernelReadsThroughIt) {
  constexpr int kInputs = 600;
  constexpr int kElems = 3;
  constexpr int64_t kStride = 16;  // bytes between inputs (3 floats + padding)
  driver_.RegisterKernel("wide_dot", [](const se::cuda::FakeLaunch& launch) {
    const uint64_t* table = launch.arg<const uint64_t>(0);
    float* out = reinterpret_cast<float*>(static_cast<uintptr_t>(table[kInputs]));
    for (int j = 0; j < kElems; ++j) {
      float sum = 0;
      for (int i = 0; i < kInputs; ++i) {
        sum += static_cast<float>(i + 1) *
               reinterpret_cast<const float*>(static_cast<uintptr_t>(table[i]))[j];
      }
      out[j] = sum;
    }
  });
  std::mt19937 rng(25);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> inputs(kInputs * kStride / sizeof(float));
  for (float& v : inputs) v = dist(rng);
  std::vector<double> expected(kElems, 0.0);
  for (int i = 0; i < kInputs; ++i) {
    for (int j = 0; j < kElems; ++j) {
      expected[j] += (i + 1) * static_cast<double>(inputs[i * kStride / sizeof(float) + j]);
    }
  }

  se::OwningDeviceMemory in_d = Allocate(inputs.size() * sizeof(float));
  se::OwningDeviceMemory out_d = Allocate(kElems * sizeof(float));
  se::OwningDeviceMemory temp_d = Allocate(8 * 1024);
  ASSERT_TRUE(stream_->Memcpy(in_d.ptr(), inputs.data(), inputs.size() * sizeof(float)).ok());
  std::vector<BufferSlice> args;
  for (int i = 0; i < kInputs; ++i) args.push_back(Slice(0, i * kStride, kElems * sizeof(float)));
  args.push_back(Slice(1, 0, kElems * sizeof(float)));
  const int64_t table_offset = 2048;
  se::LaunchDimensions dims;
  dims.grid = {1, 1, 1};
  dims.block = {1, 1, 1};
  KernelThunk thunk(ThunkInfo{0, "fusion.wide"}, 0, &specs_[0], args, dims,
                    Slice(2, table_offset, 8 * (kInputs + 1)));
  InitializeParams init;
  init.executor = executor_;
  init.kernels = kernels_.get();
  absl::Status initialized = thunk.Initialize(init);
  ASSERT_TRUE(initialized.ok()) << initialized;

  const BufferAllocations buffers({in_d.get(), out_d.get(), temp_d.get()});
  se::Stream* const streams[] = {stream_.get()};
  ExecuteParams params;
  params.executor = executor_;
  params.buffers = &buffers;
  params.streams = streams;
  params.kernels = kernels_.get();
  absl::Status launched = thunk.ExecuteOnStream(params);
  ASSERT_TRUE(launched.ok()) << launched;
  std::vector<float> out(kElems);
  std::vector<uint64_t> table(kInputs + 1);
  se::DeviceMemoryBase table_d(static_cast<char*>(temp_d.get().opaque) + table_offset,
                               table.size() * 8);
  ASSERT_TRUE(stream_->Memcpy(out.data(), out_d.get(), out.size() * sizeof(float)).ok());
  ASSERT_TRUE(stream_->Memcpy(table.data(), table_d, table.size() * 8).ok());
  ASSERT_TRUE(stream_->BlockHostUntilDone().ok());

  // The launch had one parameter, the table's address.
  const std::vector<se::cuda::FakeLaunch> launches = driver_.launches();
  ASSERT_EQ(launches.size(), 1u);
  ASSERT_EQ(launches[0].args.size(), 1u);
  EXPECT_EQ(launches[0].args[0], reinterpret_cast<uintptr_t>(table_d.opaque));
  // The table holds every argument's address, in order.
  for (int i = 0; i < kInputs; ++i) {
    ASSERT_EQ(table[i], reinterpret_cast<uintptr_t>(in_d.get().opaque) + i * kStride) << i;
  }
  EXPECT_EQ(table[kInputs], reinterpret_cast<uintptr_t>(out_d.get().opaque));
  // The copy ran before the launch on the same stream.
  const std::vector<std::string> executed = driver_.executed();
  const std::string copy = absl::StrCat("htod ", 8 * (kInputs + 1));
  size_t copy_at = executed.size(), launch_at = executed.size();
  for (size_t i = 0; i < executed.size(); ++i) {
    if (executed[i] == copy && copy_at == executed.size()) copy_at = i;
    if (executed[i] == "launch wide_dot") launch_at = i;
  }
  ASSERT_LT(copy_at, executed.size());
  ASSERT_LT(launch_at, executed.size());
  EXPECT_LT(copy_at, launch_at);
  for (int j = 0; j < kElems; ++j) {
    EXPECT_NEAR(out[j], expected[j], 1e-3 * (1 + std::abs(expected[j]))) << "element " << j;
  }
}

// A second execution with other buffers rewrites the table: its contents
// come from this execution's addresses, not the first one's.
TEST_F(KernelThunkOnFakeCudaTest, EachExecutionWritesItsOwnAddresses) {
  se::OwningDeviceMemory a = Allocate(256), b = Allocate(256), temp = Allocate(256);
  std::vector<BufferSlice> args = {Slice(0, 0, 4), Slice(1, 0, 4), Slice(0, 32, 4)};
  se::LaunchDimensions dims;
  dims.grid = {1, 1, 1};
  dims.block = {1, 1, 1};
  KernelThunk thunk(ThunkInfo{0, "fusion.wide"}, 0, &specs_[0], args, dims, Slice(2, 8, 24));
  InitializeParams init;
  init.executor = executor_;
  init.kernels = kernels_.get();
  absl::Status initialized = thunk.Initialize(init);
  ASSERT_TRUE(initialized.ok()) << initialized;
  se::Stream* const streams[] = {stream_.get()};
  for (bool swapped : {false, true}) {
    const BufferAllocations buffers(swapped ? std::vector<se::DeviceMemoryBase>{b.get(), a.get(), temp.get()}
                                            : std::vector<se::DeviceMemoryBase>{a.get(), b.get(), temp.get()});
    ExecuteParams params;
    params.executor = executor_;
    params.buffers = &buffers;
    params.streams = streams;
    params.kernels = kernels_.get();
    ASSERT_TRUE(thunk.ExecuteOnStream(params).ok());
    uint64_t table[3] = {0, 0, 0};
    se::DeviceMemoryBase table_d(static_cast<char*>(temp.get().opaque) + 8, 24);
    ASSERT_TRUE(stream_->Memcpy(table, table_d, 24).ok());
    ASSERT_TRUE(stream_->BlockHostUntilDone().ok());
    const uintptr_t first = reinterpret_cast<uintptr_t>((swapped ? b : a).get().opaque);
    const uintptr_t second = reinterpret_cast<uintptr_t>((swapped ? a : b).get().opaque);
    EXPECT_EQ(table[0], first);
    EXPECT_EQ(table[1], second);
    EXPECT_EQ(table[2], first + 32);
  }
}

}  // namespace
}  // namespace xla::gpu
