// rng-get-and-update-state end to end (issue 28): XLA's per-executable,
// per-device 128-bit RNG state. Thunk emission keeps it in a constant
// allocation that a one-thread kernel reads and advances in place
// (xla/backends/gpu/compiler/rng_state_emitter.h), relying on the runtime
// uploading each constant once per device at Initialize and binding that
// copy to every run. These tests pin that contract: successive runs on one
// device continue the evaluator's sequence (EvaluatorOptions::rng_state
// carried across evaluations), another device starts afresh, and a reloaded
// artifact starts afresh; sm_90 compiles with ptxas accepting the kernel.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/numeric/int128.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/compiler/gpu_compiler.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/stream_executor/host/host_executor.h"

namespace xla {
namespace {

namespace se = ::stream_executor;

// One state read before a loop (delta 131072), five inside it (delta 3),
// each added into the carried value, so the result depends on every value
// and on their order (the loop's input is the first value).
constexpr char kLoop[] = R"(
HloModule rng_state_loop
body {
  p = (s32[], u64[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = u64[2] get-tuple-element(p), index=1
  s = u64[2] rng-get-and-update-state(), delta=3
  k = u64[] constant(1000003)
  kb = u64[2] broadcast(k), dimensions={}
  scaled = u64[2] multiply(acc, kb)
  sum = u64[2] add(scaled, s)
  one = s32[] constant(1)
  n = s32[] add(i, one)
  ROOT t = (s32[], u64[2]) tuple(n, sum)
}
cond {
  p = (s32[], u64[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  c = s32[] constant(5)
  ROOT lt = pred[] compare(i, c), direction=LT
}
ENTRY e {
  a = u64[2] rng-get-and-update-state(), delta=131072
  zero = s32[] constant(0)
  init = (s32[], u64[2]) tuple(zero, a)
  w = (s32[], u64[2]) while(init), condition=cond, body=body
  acc = u64[2] get-tuple-element(w), index=1
  ROOT r = (u64[2], u64[2]) tuple(a, acc)
}
)";

// A delta that takes the state from XLA's initial value to 2^128 - 1 (the
// high word borrows), then to 2^128 - 1 - 117515158.
constexpr char kNegative[] = R"(
HloModule rng_state_negative
ENTRY e {
  ROOT a = u64[2] rng-get-and-update-state(), delta=-117515158
}
)";

// XLA's GetRngSeed (RngSeedExpander): the low word of the same state,
// advanced by one per call, with bit 0 set; used as a value (hashed with a
// parameter-free multiply) as a generator's seed would be.
constexpr char kSeed[] = R"(
HloModule rng_seed
ENTRY e {
  seed = u64[] custom-call(), custom_call_target="GetRngSeed"
  k = u64[] constant(6364136223846793005)
  ROOT h = u64[] multiply(seed, k)
}
)";

void Flatten(const Literal& literal, std::vector<const Literal*>* out) {
  if (!literal.shape().IsTuple()) {
    out->push_back(&literal);
    return;
  }
  for (const Literal& e : literal.tuple_elements()) Flatten(e, out);
}

// The host platform's device, and a second host device of the test's own
// (as ReplicatedExecutor makes one per participant).
se::StreamExecutor* HostDevice(int ordinal) {
  static se::host::HostExecutor* const second = new se::host::HostExecutor();
  return ordinal == 0 ? gpu::testing::HostExecutor() : second;
}

std::unique_ptr<aot::Executable> CompileAndLoad(const std::string& hlo) {
  aot::CompileOptions options;
  options.opt_level = 1;
  options.host_cpu_variants.clear();
  options.production_date = "2026-12-02T00:00:00Z";
  absl::StatusOr<aot::CompiledArtifact> compiled = aot::Compile(hlo, options);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  if (!compiled.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<aot::Executable>> exe =
      aot::Executable::LoadFromBytes(compiled->bytes);
  EXPECT_TRUE(exe.ok()) << exe.status();
  return exe.ok() ? std::move(*exe) : nullptr;
}

// Runs `exe` once on `device` and compares with one evaluation of `module`
// that reads and advances `state`.
void ExpectRunMatches(aot::Executable& exe, se::StreamExecutor* device, const HloModule& module,
                      absl::uint128* state, const std::string& what) {
  EvaluatorOptions options;
  options.rng_state = state;
  absl::StatusOr<Literal> expected = HloEvaluator(options).Evaluate(module, {});
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<std::vector<Literal>> actual = aot::ExecuteOnLiterals(exe, device, {});
  ASSERT_TRUE(actual.ok()) << what << ": " << actual.status();
  std::vector<const Literal*> leaves;
  Flatten(*expected, &leaves);
  ASSERT_EQ(leaves.size(), actual->size()) << what;
  for (size_t i = 0; i < leaves.size(); ++i) {
    EXPECT_TRUE(CompareOutputLeaf(*leaves[i], (*actual)[i]).ok())
        << what << ", leaf " << i << ": expected " << leaves[i]->ToString() << ", got "
        << (*actual)[i].ToString();
  }
}

constexpr uint64_t kInitial = 0x7012395;

TEST(RngState, SuccessiveRunsContinueTheEvaluatorsSequencePerDevice) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kLoop);
  ASSERT_TRUE(module.ok()) << module.status();
  std::unique_ptr<aot::Executable> exe = CompileAndLoad(kLoop);
  ASSERT_NE(exe, nullptr);
  absl::uint128 device0 = kInitial;
  for (int run = 0; run < 3; ++run) {
    ExpectRunMatches(*exe, HostDevice(0), **module, &device0, "device 0 run " + std::to_string(run));
  }
  // Three runs of 131072 + 5 * 3 each.
  EXPECT_EQ(device0, absl::uint128(kInitial + 3 * (131072 + 15)));
  // Another device has its own state, from the initial value.
  absl::uint128 device1 = kInitial;
  ExpectRunMatches(*exe, HostDevice(1), **module, &device1, "device 1 run 0");
  // So does a freshly loaded artifact, on a device the first one advanced.
  std::unique_ptr<aot::Executable> reloaded = CompileAndLoad(kLoop);
  ASSERT_NE(reloaded, nullptr);
  absl::uint128 fresh = kInitial;
  ExpectRunMatches(*reloaded, HostDevice(0), **module, &fresh, "reloaded run 0");
}

TEST(RngState, ANegativeDeltaBorrowsFromTheHighWord) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kNegative);
  ASSERT_TRUE(module.ok()) << module.status();
  std::unique_ptr<aot::Executable> exe = CompileAndLoad(kNegative);
  ASSERT_NE(exe, nullptr);
  absl::uint128 state = kInitial;
  ExpectRunMatches(*exe, HostDevice(0), **module, &state, "run 0");
  EXPECT_EQ(state, ~absl::uint128(0));  // 2^128 - 1: the high word is all ones
  ExpectRunMatches(*exe, HostDevice(0), **module, &state, "run 1");
}

TEST(RngState, GetRngSeedIsTheStatesLowWordOddAndAdvancesPerRun) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kSeed);
  ASSERT_TRUE(module.ok()) << module.status();
  std::unique_ptr<aot::Executable> exe = CompileAndLoad(kSeed);
  ASSERT_NE(exe, nullptr);
  // By hand, the first run on a device: XLA's initial state, odd already.
  absl::StatusOr<std::vector<Literal>> first = aot::ExecuteOnLiterals(*exe, HostDevice(1), {});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ((*first)[0].GetBits(0), uint64_t{0x7012395} * 6364136223846793005ull);
  absl::uint128 state = kInitial;
  for (int run = 0; run < 3; ++run) {
    ExpectRunMatches(*exe, HostDevice(0), **module, &state, "run " + std::to_string(run));
  }
  EXPECT_EQ(state, absl::uint128(kInitial + 3));  // one step per call
}

TEST(RngState, Sm90CompilesWithCubins) {
  for (const char* hlo : {kLoop, kNegative, kSeed}) {
    gpu::GpuCompilerOptions options;
    options.require_cubin = true;
    options.production_date = "2026-12-02T00:00:00Z";
    options.include_optimized_hlo = false;
    absl::StatusOr<gpu::GpuExecutableProto> artifact =
        gpu::CompileHloToGpuArtifactProto(hlo, "sm_90", options, nullptr);
    ASSERT_TRUE(artifact.ok()) << artifact.status();
    // One 16-byte constant allocation holds the state, shared by every
    // rng-get-and-update-state of the program.
    int states = 0;
    for (const auto& a : artifact->payload().allocations()) {
      if (a.is_constant() && a.size() == 16 &&
          artifact->payload().constants(a.constant_index()).content().substr(0, 4) ==
              std::string("\x95\x23\x01\x07", 4)) {
        ++states;
      }
    }
    EXPECT_EQ(states, 1);
  }
}

}  // namespace
}  // namespace xla
