// Tests of the built-in host fused attention handlers called directly
// (no compiler): they are registered under TE's names, compute the tiny
// hand-worked case (te_fused_attention.hlo in xla/tools/testdata has the
// arithmetic), zero rng_state, leave the workspace alone, and refuse calls
// without shapes, with short buffers or with unsupported attributes before
// enqueuing anything. Numerical agreement with the evaluator at many sizes
// is xla/aot/te_fused_attention_test.cc.
#include "xla/backends/gpu/ffi/te_fused_attention_host.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/ffi/te_fused_attention.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

// Every allocation of this test binary, counted (AllocationsPerCall).
std::atomic<int64_t> g_allocations{0};

void* operator new(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace xla::gpu::ffi {
namespace {

using stream_executor::DeviceMemoryBase;

TEST(TeFusedAttentionHost, RegisteredUnderTransformerEnginesNames) {
  for (const char* name : {kTeFusedAttnForwardTarget, kTeFusedAttnBackwardTarget}) {
    absl::StatusOr<const HandlerEntry*> entry = FfiRegistry::Global().Lookup(name, "host");
    ASSERT_TRUE(entry.ok()) << entry.status();
    EXPECT_EQ((*entry)->signature.num_operands, -1);
  }
  EXPECT_EQ(
      (*FfiRegistry::Global().Lookup(kTeFusedAttnForwardTarget, "host"))->signature.num_results, 4);
  EXPECT_EQ(
      (*FfiRegistry::Global().Lookup(kTeFusedAttnBackwardTarget, "host"))->signature.num_results,
      5);
  EXPECT_FALSE(FfiRegistry::Global().Lookup(kTeFusedAttnForwardTarget, "cuda").ok());
}

Attributes TinyAttributes() {
  Attributes a;
  a["input_batch"] = int64_t{1};
  a["q_max_seqlen"] = a["kv_max_seqlen"] = int64_t{2};
  a["attn_heads"] = a["num_gqa_groups"] = int64_t{1};
  a["qk_head_dim"] = a["v_head_dim"] = int64_t{2};
  a["qkv_layout"] = int64_t{9};
  a["mask_type"] = int64_t{0};
  a["scaling_factor"] = 1.0;
  return a;
}

// The forward call's buffers and shapes for the tiny f32 case.
struct TinyForward {
  std::vector<float> q = {1, 0, 0, 1}, k = {1, 0, 0, 0}, v = {1, 2, 3, 4};
  std::vector<int32_t> cu = {0, 2};
  std::vector<uint32_t> seed = {0, 0};
  std::vector<float> out = std::vector<float>(4, -1.0f), stats = {-1, -1};
  std::vector<uint32_t> rng = std::vector<uint32_t>(8, 0xDEADBEEF);
  std::vector<uint8_t> workspace = std::vector<uint8_t>(16, 0xAB);
  Shape qkv = Shape::Array(PrimitiveType::F32, {1, 2, 1, 2});
  Shape empty = Shape::Array(PrimitiveType::F32, {0});
  Shape seed_shape = Shape::Array(PrimitiveType::U32, {2});
  Shape cu_shape = Shape::Array(PrimitiveType::S32, {2});
  Shape stats_shape = Shape::Array(PrimitiveType::F32, {1, 1, 2, 1});
  Shape rng_shape = Shape::Array(PrimitiveType::U32, {2, 4});
  Shape workspace_shape = Shape::Array(PrimitiveType::U8, {16});
  std::vector<DeviceMemoryBase> operands, results;
  std::vector<const Shape*> operand_shapes, result_shapes;
  Attributes attributes = TinyAttributes();

  TinyForward() {
    auto add = [&](void* p, uint64_t bytes, const Shape* s) {
      operands.emplace_back(p, bytes);
      operand_shapes.push_back(s);
    };
    add(q.data(), 16, &qkv);
    add(k.data(), 16, &qkv);
    add(v.data(), 16, &qkv);
    add(nullptr, 0, &empty);
    add(seed.data(), 8, &seed_shape);
    add(cu.data(), 8, &cu_shape);
    add(cu.data(), 8, &cu_shape);
    add(nullptr, 0, &empty);
    add(nullptr, 0, &empty);
    results = {DeviceMemoryBase(out.data(), 16), DeviceMemoryBase(stats.data(), 8),
               DeviceMemoryBase(rng.data(), 32), DeviceMemoryBase(workspace.data(), 16)};
    result_shapes = {&qkv, &stats_shape, &rng_shape, &workspace_shape};
  }

  absl::Status Run() {
    std::unique_ptr<stream_executor::Stream> stream = *testing::HostExecutor()->CreateStream();
    return RunOn(stream.get());
  }

  absl::Status RunOn(stream_executor::Stream* stream) {
    CallFrame frame;
    frame.executor = testing::HostExecutor();
    frame.stream = stream;
    frame.operands = operands;
    frame.results = results;
    frame.operand_shapes = operand_shapes;
    frame.result_shapes = result_shapes;
    frame.attributes = &attributes;
    absl::Status s = TeFusedAttnForwardHost(frame);
    absl::Status done = stream->BlockHostUntilDone();
    return s.ok() ? done : s;
  }
};

TEST(TeFusedAttentionHost, TinyForwardByHand) {
  TinyForward f;
  ASSERT_TRUE(f.Run().ok());
  const double e = std::exp(1.0), p1 = 1 / (e + 1);
  const std::vector<double> want = {1 + 2 * p1, 2 + 2 * p1, 2, 3};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(f.out[i], want[i], 1e-6) << i;
  EXPECT_NEAR(f.stats[0], std::log(e + 1), 1e-6);
  EXPECT_NEAR(f.stats[1], std::log(2.0), 1e-6);
  for (uint32_t r : f.rng) EXPECT_EQ(r, 0u);
  for (uint8_t w : f.workspace) EXPECT_EQ(w, 0xAB);  // scratch: untouched
}

// The decode path's allocations per call (the tiny case is a decode step:
// 2 query rows), on a warm stream, with and without padding: what is left
// is the call's parsed config (its dims lists, and the shape check's), the
// callback's capture and the stream's queue (7 measured); the lengths,
// the buffer lists, the shape checks and the kernel allocate nothing
// (24 and 31 allocations per call before attn26e). A ceiling, so that an
// allocation added to the decode path shows here.
TEST(TeFusedAttentionHost, AllocationsPerCall) {
  std::unique_ptr<stream_executor::Stream> stream = *testing::HostExecutor()->CreateStream();
  for (int64_t mask : {0, 1}) {
    TinyForward f;
    f.attributes["mask_type"] = mask;
    ASSERT_TRUE(f.RunOn(stream.get()).ok());  // warm: first-use allocations
    const int64_t before = g_allocations.load();
    ASSERT_TRUE(f.RunOn(stream.get()).ok());
    const int64_t count = g_allocations.load() - before;
    EXPECT_LE(count, 8) << "mask_type " << mask;
    std::printf("mask_type %ld: %ld allocations per call\n", static_cast<long>(mask),
                static_cast<long>(count));
    // cu_seqlens {0, 2}: the padded call sees every key, as the unpadded.
    EXPECT_NEAR(f.out[0], 1 + 2 / (std::exp(1.0) + 1), 1e-6);
    EXPECT_NEAR(f.stats[1], std::log(2.0), 1e-6);
  }
}

TEST(TeFusedAttentionHost, RefusedBeforeAnythingIsEnqueued) {
  {
    TinyForward f;
    f.operand_shapes[0] = nullptr;  // an artifact from before shapes were recorded
    absl::Status s = f.Run();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_TRUE(absl::StrContains(s.message(), "records no operand/result shapes")) << s;
    EXPECT_EQ(f.out[0], -1.0f);
  }
  {
    TinyForward f;
    f.results[1].size = 4;  // stats buffer shorter than its shape
    absl::Status s = f.Run();
    EXPECT_TRUE(absl::StrContains(
        s.message(), "te_fused_attn_forward_ffi: result 1 (f32[1,1,2,1]{3,2,1,0}) has a buffer of 4 bytes"))
        << s;
    EXPECT_EQ(f.out[0], -1.0f);
  }
  {
    TinyForward f;
    f.attributes["bias_type"] = int64_t{1};
    absl::Status s = f.Run();
    EXPECT_TRUE(absl::StrContains(s.message(),
                                  "attribute 'bias_type' = 1 (pre_scale_bias) is not supported"))
        << s;
  }
  {
    TinyForward f;
    f.attributes["mask_type"] = int64_t{1};
    f.cu = {0, 3};  // a length past q_max_seqlen: seen on the stream
    absl::Status s = f.Run();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_TRUE(absl::StrContains(
        s.message(), "operand 5 (q_cu_seqlens): sequence 0 has length 3 (3 - 0), outside [0, 2]"))
        << s;
  }
}

}  // namespace
}  // namespace xla::gpu::ffi
