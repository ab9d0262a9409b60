// Tests of the built-in host fused attention handlers called directly
// (no compiler): they are registered under TE's names, compute the tiny
// hand-worked case (te_fused_attention.hlo in xla/tools/testdata has the
// arithmetic), zero rng_state, leave the workspace alone, and refuse calls
// without shapes, with short buffers or with unsupported attributes before
// enqueuing anything. Numerical agreement with the evaluator at many sizes
// is xla/aot/te_fused_attention_test.cc.
#include "xla/backends/gpu/ffi/te_fused_attention_host.h"

#include <algorithm>
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
// 2 query rows), on a warm stream, with and without padding: one is left,
// the callback's capture (an AnyInvocable holding the call); the parsed
// config, the lengths, the buffer lists, the shape checks and the kernel
// allocate nothing (24 and 31 allocations per call before attn26e). A
// ceiling, so that an allocation added to the decode path shows here.
TEST(TeFusedAttentionHost, AllocationsPerCall) {
  std::unique_ptr<stream_executor::Stream> stream = *testing::HostExecutor()->CreateStream();
  for (int64_t mask : {0, 1}) {
    TinyForward f;
    f.attributes["mask_type"] = mask;
    ASSERT_TRUE(f.RunOn(stream.get()).ok());  // warm: first-use allocations
    const int64_t before = g_allocations.load();
    ASSERT_TRUE(f.RunOn(stream.get()).ok());
    const int64_t count = g_allocations.load() - before;
    EXPECT_LE(count, 1) << "mask_type " << mask;
    std::printf("mask_type %ld: %ld allocations per call\n", static_cast<long>(mask),
                static_cast<long>(count));
    // cu_seqlens {0, 2}: the padded call sees every key, as the unpadded.
    EXPECT_NEAR(f.out[0], 1 + 2 / (std::exp(1.0) + 1), 1e-6);
    EXPECT_NEAR(f.stats[1], std::log(2.0), 1e-6);
  }
}

// One sequence, 8 query heads over 2 kv heads, 1024 keys of which 1000
// visible (padding), f32, d 64: 2 units, fewer than the launch shares out,
// so the decode path splits the keys into chunks on the pool and combines
// them. Against a plain f64 reference written here (scores, softmax,
// weighted sum, log-sum-exp). Also run under ThreadSanitizer: the chunks'
// partial states are written by pool threads on the caller's stack.
TEST(TeFusedAttentionHost, SplitDecodeCallMatchesAPlainReference) {
  constexpr int64_t kKeys = 1024, kVisible = 1000, kHeads = 8, kKvHeads = 2, kDim = 64;
  std::vector<float> q(kHeads * kDim), k(kKeys * kKvHeads * kDim), v(k.size());
  uint32_t state = 12345;
  auto next = [&] {  // deterministic values in [-1, 1)
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / (1 << 23) - 1.0f;
  };
  for (float& x : q) x = 2 * next();  // scores up to ~16 before the scale
  for (float& x : k) x = next();
  for (float& x : v) x = next();
  for (int64_t i = kVisible * kKvHeads * kDim; i < static_cast<int64_t>(k.size()); ++i) {
    k[i] = v[i] = std::nanf("");  // past the sequence: never read
  }
  std::vector<int32_t> q_cu = {0, 1}, kv_cu = {0, static_cast<int32_t>(kVisible)};
  std::vector<uint32_t> seed = {0, 0}, rng(8, 1);
  std::vector<float> out(kHeads * kDim, -1.0f), stats(kHeads, -1.0f);
  std::vector<uint8_t> workspace(16);
  const Shape q_shape = Shape::Array(PrimitiveType::F32, {1, 1, kHeads, kDim});
  const Shape kv_shape = Shape::Array(PrimitiveType::F32, {1, kKeys, kKvHeads, kDim});
  const Shape empty = Shape::Array(PrimitiveType::F32, {0});
  const Shape seed_shape = Shape::Array(PrimitiveType::U32, {2});
  const Shape cu_shape = Shape::Array(PrimitiveType::S32, {2});
  const Shape stats_shape = Shape::Array(PrimitiveType::F32, {1, kHeads, 1, 1});
  const Shape rng_shape = Shape::Array(PrimitiveType::U32, {2, 4});
  const Shape workspace_shape = Shape::Array(PrimitiveType::U8, {16});
  const std::vector<DeviceMemoryBase> operands = {
      DeviceMemoryBase(q.data(), q.size() * 4),   DeviceMemoryBase(k.data(), k.size() * 4),
      DeviceMemoryBase(v.data(), v.size() * 4),   DeviceMemoryBase(nullptr, 0),
      DeviceMemoryBase(seed.data(), 8),           DeviceMemoryBase(q_cu.data(), 8),
      DeviceMemoryBase(kv_cu.data(), 8),          DeviceMemoryBase(nullptr, 0),
      DeviceMemoryBase(nullptr, 0)};
  const std::vector<const Shape*> operand_shapes = {&q_shape, &kv_shape, &kv_shape,
                                                    &empty,   &seed_shape, &cu_shape,
                                                    &cu_shape, &empty,   &empty};
  const std::vector<DeviceMemoryBase> results = {
      DeviceMemoryBase(out.data(), out.size() * 4), DeviceMemoryBase(stats.data(), stats.size() * 4),
      DeviceMemoryBase(rng.data(), 32), DeviceMemoryBase(workspace.data(), 16)};
  const std::vector<const Shape*> result_shapes = {&q_shape, &stats_shape, &rng_shape,
                                                   &workspace_shape};
  Attributes attributes = TinyAttributes();
  attributes["q_max_seqlen"] = int64_t{1};
  attributes["kv_max_seqlen"] = kKeys;
  attributes["attn_heads"] = kHeads;
  attributes["num_gqa_groups"] = kKvHeads;
  attributes["qk_head_dim"] = attributes["v_head_dim"] = kDim;
  attributes["mask_type"] = int64_t{1};
  attributes["scaling_factor"] = 0.125;
  std::unique_ptr<stream_executor::Stream> stream = *testing::HostExecutor()->CreateStream();
  CallFrame frame;
  frame.executor = testing::HostExecutor();
  frame.stream = stream.get();
  frame.operands = operands;
  frame.results = results;
  frame.operand_shapes = operand_shapes;
  frame.result_shapes = result_shapes;
  frame.attributes = &attributes;
  ASSERT_TRUE(TeFusedAttnForwardHost(frame).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  for (int64_t h = 0; h < kHeads; ++h) {
    const int64_t g = h / (kHeads / kKvHeads);
    std::vector<double> s(kVisible);
    double mx = -INFINITY;
    for (int64_t j = 0; j < kVisible; ++j) {
      double dot = 0;
      for (int64_t d = 0; d < kDim; ++d) dot += double{q[h * kDim + d]} * k[(j * kKvHeads + g) * kDim + d];
      s[j] = 0.125 * dot;
      mx = std::max(mx, s[j]);
    }
    double sum = 0;
    std::vector<double> o(kDim, 0.0);
    for (int64_t j = 0; j < kVisible; ++j) {
      const double p = std::exp(s[j] - mx);
      sum += p;
      for (int64_t d = 0; d < kDim; ++d) o[d] += p * v[(j * kKvHeads + g) * kDim + d];
    }
    for (int64_t d = 0; d < kDim; ++d) {
      EXPECT_NEAR(out[h * kDim + d], o[d] / sum, 2e-5) << "head " << h << " dim " << d;
    }
    EXPECT_NEAR(stats[h], mx + std::log(sum), 1e-5) << "head " << h;
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
