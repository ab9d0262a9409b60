// Concurrency of the runtime on compiled artifacts (issue 10; also run under
// --config=tsan by tools/test.sh):
//   * 16 threads x 200 runs of one executable, each thread with its own
//     inputs: every output is bitwise equal to the single-threaded result
//     for the same inputs;
//   * several executables (different modules) sharing one device, run at
//     once from several threads;
//   * load, run and unload in a loop (leaks show under --config=asan).
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/compiler/host_compiler.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla::aot {
namespace {

// A small MLP: dot + bias + tanh, then a row softmax (GEMM, loop and
// reduction kernels).
const char kMlp[] = R"(
HloModule mlp
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[7,33] parameter(0)
  w = f32[33,17] parameter(1)
  b = f32[17] parameter(2)
  d = f32[7,17] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[7,17] broadcast(b), dimensions={1}
  h = f32[7,17] tanh(f32[7,17] add(d, bb))
  ninf = f32[] constant(-inf)
  m = f32[7] reduce(h, ninf), dimensions={1}, to_apply=max
  mb = f32[7,17] broadcast(m), dimensions={0}
  e = f32[7,17] exponential(f32[7,17] subtract(h, mb))
  zero = f32[] constant(0)
  s = f32[7] reduce(e, zero), dimensions={1}, to_apply=add
  sb = f32[7,17] broadcast(s), dimensions={0}
  ROOT p = f32[7,17] divide(e, sb)
})";

// A while loop: five rounds of x = x * 0.5 + y.
const char kLoop[] = R"(
HloModule loop
cond {
  t = (s32[], f32[65], f32[65]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  five = s32[] constant(5)
  ROOT lt = pred[] compare(i, five), direction=LT
}
body {
  t = (s32[], f32[65], f32[65]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  x = f32[65] get-tuple-element(t), index=1
  y = f32[65] get-tuple-element(t), index=2
  one = s32[] constant(1)
  half = f32[] constant(0.5)
  hb = f32[65] broadcast(half), dimensions={}
  nx = f32[65] add(f32[65] multiply(x, hb), y)
  ROOT r = (s32[], f32[65], f32[65]) tuple(s32[] add(i, one), nx, y)
}
ENTRY e {
  x = f32[65] parameter(0)
  y = f32[65] parameter(1)
  zero = s32[] constant(0)
  t = (s32[], f32[65], f32[65]) tuple(zero, x, y)
  w = (s32[], f32[65], f32[65]) while(t), condition=cond, body=body
  ROOT out = f32[65] get-tuple-element(w), index=1
})";

std::string Compile(const char* hlo) {
  gpu::HostCompilerOptions options;
  options.production_date = "2026-11-29T00:00:00Z";
  absl::StatusOr<std::string> bytes = gpu::CompileHloToHostArtifact(hlo, options);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : std::string();
}

std::vector<Literal> Inputs(const char* hlo, uint64_t seed) {
  std::unique_ptr<HloModule> m = ParseHloModule(hlo).value();
  return MakeRandomInputs(*m, seed).value();
}

bool BitwiseEqual(const std::vector<Literal>& a, const std::vector<Literal>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] == b[i])) return false;
  }
  return true;
}

TEST(ConcurrentExecution, SixteenThreadsTwoHundredRunsMatchSingleThreaded) {
  stream_executor::StreamExecutor* executor = gpu::testing::HostExecutor();
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(Compile(kMlp));
  ASSERT_TRUE(exe.ok()) << exe.status();
  constexpr int kThreads = 16;
  constexpr int kRuns = 200;
  // Per thread: its inputs and the single-threaded result for them.
  std::vector<std::vector<Literal>> inputs(kThreads), expected(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    inputs[t] = Inputs(kMlp, 100 + t);
    absl::StatusOr<std::vector<Literal>> r = ExecuteOnLiterals(**exe, executor, inputs[t]);
    ASSERT_TRUE(r.ok()) << r.status();
    expected[t] = std::move(*r);
  }
  ASSERT_FALSE(BitwiseEqual(expected[0], expected[1]));  // inputs really differ
  std::vector<int> mismatches(kThreads, 0), errors(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&exe, &inputs, &expected, &mismatches, &errors, executor, t] {
      for (int run = 0; run < kRuns; ++run) {
        absl::StatusOr<std::vector<Literal>> r = ExecuteOnLiterals(**exe, executor, inputs[t]);
        if (!r.ok()) {
          ++errors[t];
        } else if (!BitwiseEqual(*r, expected[t])) {
          ++mismatches[t];
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], 0) << "thread " << t;
    EXPECT_EQ(mismatches[t], 0) << "thread " << t;
  }
}

TEST(ConcurrentExecution, SeveralExecutablesShareOneDevice) {
  stream_executor::StreamExecutor* executor = gpu::testing::HostExecutor();
  const char* modules[] = {kMlp, kLoop};
  std::vector<std::unique_ptr<Executable>> exes;
  std::vector<std::vector<Literal>> inputs, expected;
  for (const char* hlo : modules) {
    absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(Compile(hlo));
    ASSERT_TRUE(exe.ok()) << exe.status();
    inputs.push_back(Inputs(hlo, 7));
    absl::StatusOr<std::vector<Literal>> r = ExecuteOnLiterals(**exe, executor, inputs.back());
    ASSERT_TRUE(r.ok()) << r.status();
    expected.push_back(std::move(*r));
    exes.push_back(std::move(*exe));
  }
  std::vector<int> bad(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&exes, &inputs, &expected, &bad, executor, t] {
      const size_t which = t % 2;
      for (int run = 0; run < 50; ++run) {
        absl::StatusOr<std::vector<Literal>> r =
            ExecuteOnLiterals(*exes[which], executor, inputs[which]);
        if (!r.ok() || !BitwiseEqual(*r, expected[which])) ++bad[t];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
}

// Load, run, unload: every cycle frees what it took (asan's leak check
// reports otherwise) and gives the same result.
TEST(ConcurrentExecution, LoadRunUnloadLoop) {
  stream_executor::StreamExecutor* executor = gpu::testing::HostExecutor();
  const std::string bytes = Compile(kLoop);
  const std::vector<Literal> in = Inputs(kLoop, 3);
  std::vector<Literal> first;
  for (int cycle = 0; cycle < 40; ++cycle) {
    absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(bytes);
    ASSERT_TRUE(exe.ok()) << exe.status();
    absl::StatusOr<std::vector<Literal>> r = ExecuteOnLiterals(**exe, executor, in);
    ASSERT_TRUE(r.ok()) << r.status();
    if (cycle == 0) {
      first = std::move(*r);
    } else {
      ASSERT_TRUE(BitwiseEqual(*r, first)) << "cycle " << cycle;
    }
  }
  EXPECT_EQ(executor->allocated_bytes(), 0u);
}

}  // namespace
}  // namespace xla::aot
