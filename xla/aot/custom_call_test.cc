// Custom calls resolved at load (docs/custom_calls.md), end to end through
// the public API: HLO with a typed-FFI custom call is compiled with
// CompileOptions::allowed_custom_calls, its handler is registered in this
// test process (it is no built-in), and the artifact is loaded,
// initialized and run on the host; the results are checked against values
// computed here by hand. Also: the default compile refuses the target, and
// the same artifact in a process without the handler fails at Initialize
// and runs nothing.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/ffi/ffi_registry.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/types/literal.h"

namespace xla::aot {
namespace {

namespace ffi = ::xla::gpu::ffi;

constexpr char kTarget[] = "test.e2e.axpb";

// y = x * a + b + offsets[i % |offsets|] * w[i % |w|] + k[i % 3] over the
// 7x5 elements of x, then the module adds x again (a host kernel after the
// call), so z = y + x.
constexpr char kHlo[] = R"(
HloModule custom_call_e2e
ENTRY main {
  x = f32[7,5]{1,0} parameter(0)
  k = s32[3]{0} parameter(1)
  y = f32[7,5]{1,0} custom-call(x, k), custom_call_target="test.e2e.axpb", api_version=API_VERSION_TYPED_FFI, backend_config={a = 2.500000e+00 : f64, b = -3 : i32, on = true, tag = "odd sizes", offsets = array<i64: 1, -2, 4>, w = array<f32: 5.000000e-01, 1.500000e+00>}
  ROOT z = f32[7,5]{1,0} add(y, x)
}
)";

std::atomic<int> g_calls{0};

absl::Status AxpbHandler(const ffi::CallFrame& frame) {
  const ffi::Attributes& at = *frame.attributes;
  const double a = std::get<double>(at.at("a"));
  const int64_t b = std::get<int64_t>(at.at("b"));
  const bool on = std::get<bool>(at.at("on"));
  const std::string tag = std::get<std::string>(at.at("tag"));
  const std::vector<int64_t> offsets = std::get<std::vector<int64_t>>(at.at("offsets"));
  const std::vector<double> w = std::get<std::vector<double>>(at.at("w"));
  if (tag != "odd sizes") return absl::InvalidArgumentError("wrong tag " + tag);
  if (offsets.empty() || w.empty()) return absl::InvalidArgumentError("empty arrays");
  const stream_executor::DeviceMemoryBase x = frame.operands[0], k = frame.operands[1];
  const stream_executor::DeviceMemoryBase y = frame.results[0];
  if (x.size != y.size || k.size != 3 * sizeof(int32_t)) {
    return absl::InvalidArgumentError("unexpected sizes");
  }
  // The artifact's shapes, with layouts, reach the handler.
  if (frame.operand_shapes.size() != 2 || frame.result_shapes.size() != 1 ||
      frame.operand_shapes[0] == nullptr || frame.operand_shapes[1] == nullptr ||
      frame.result_shapes[0] == nullptr) {
    return absl::InvalidArgumentError("shapes missing");
  }
  if (frame.operand_shapes[0]->ToString() != "f32[7,5]{1,0}" ||
      frame.operand_shapes[1]->ToString() != "s32[3]{0}" ||
      frame.result_shapes[0]->ToString() != "f32[7,5]{1,0}") {
    return absl::InvalidArgumentError("unexpected shapes " + frame.operand_shapes[0]->ToString() +
                                      " " + frame.operand_shapes[1]->ToString() + " " +
                                      frame.result_shapes[0]->ToString());
  }
  return frame.stream->DoHostCallback([=]() -> absl::Status {
    ++g_calls;
    const float* xs = static_cast<const float*>(x.opaque);
    const int32_t* ks = static_cast<const int32_t*>(k.opaque);
    float* ys = static_cast<float*>(y.opaque);
    for (size_t i = 0; i < y.size / sizeof(float); ++i) {
      ys[i] = on ? static_cast<float>(xs[i] * a + b + offsets[i % offsets.size()] * w[i % w.size()] +
                                      ks[i % 3])
                 : xs[i];
    }
    return absl::OkStatus();
  });
}

absl::Status RegisterAxpb() {
  return ffi::FfiRegistry::Global().Register(
      {kTarget, "host", &AxpbHandler,
       {2, 1, {}, {{"a", ffi::AttributeKind::kF64}, {"b", ffi::AttributeKind::kI64},
                   {"on", ffi::AttributeKind::kBool}, {"tag", ffi::AttributeKind::kStr},
                   {"offsets", ffi::AttributeKind::kI64Array},
                   {"w", ffi::AttributeKind::kF64Array}}}});
}

CompileOptions Options(const std::string& target, std::vector<std::string> allowed) {
  CompileOptions options;
  options.target = target;
  options.host_cpu_variants = {};
  options.allowed_custom_calls = std::move(allowed);
  return options;
}

std::vector<Literal> Inputs() {
  Literal x(Shape::Array(PrimitiveType::F32, {7, 5}));
  for (int64_t i = 0; i < 35; ++i) x.SetDouble(i, 0.25 * i - 3.0);
  Literal k(Shape::Array(PrimitiveType::S32, {3}));
  k.SetDouble(0, 10);
  k.SetDouble(1, -20);
  k.SetDouble(2, 7);
  std::vector<Literal> args;
  args.push_back(std::move(x));
  args.push_back(std::move(k));
  return args;
}

// z[i] by hand: x*2.5 - 3 + offsets[i%3]*w[i%2] + k[i%3] + x.
double Expected(int64_t i) {
  const double x = 0.25 * i - 3.0;
  const double offsets[] = {1, -2, 4}, w[] = {0.5, 1.5}, k[] = {10, -20, 7};
  return x * 2.5 - 3 + offsets[i % 3] * w[i % 2] + k[i % 3] + x;
}

// Runs in order: before the handler is registered, then after.
TEST(CustomCall, DefaultCompileRefusesTheUnknownTarget) {
  for (const char* target : {"host", "sm_90"}) {
    absl::Status refused = Compile(kHlo, Options(target, {})).status();
    EXPECT_EQ(refused.code(), absl::StatusCode::kUnimplemented) << refused;
    EXPECT_TRUE(absl::StrContains(refused.message(), "custom-call target 'test.e2e.axpb' is not an FFI handler this compiler knows")) << refused;
    EXPECT_TRUE(absl::StrContains(refused.message(), "pass --allow_custom_calls=test.e2e.axpb to compile it for a handler the runtime registers")) << refused;
  }
}

TEST(CustomCall, GpuTargetCompilesWithTheFlag) {
  absl::StatusOr<gpu::GpuExecutableProto> a = CompileToProto(kHlo, Options("sm_90", {kTarget}));
  ASSERT_TRUE(a.ok()) << a.status();
  bool found = false;
  for (const gpu::ThunkProto& t : a->payload().thunks()) {
    if (!t.has_custom_call()) continue;
    found = true;
    EXPECT_EQ(t.custom_call().target_name(), kTarget);
    EXPECT_EQ(t.custom_call().api_version(), gpu::CUSTOM_CALL_API_VERSION_TYPED_FFI);
    EXPECT_EQ(t.custom_call().attributes_size(), 6);
    EXPECT_TRUE(t.custom_call().operands(0).shape().has_layout());
  }
  EXPECT_TRUE(found);
}

// The new attribute kinds are stage-1 runtime features: the artifact lists
// them, and a compile for an older runtime refuses, naming one.
TEST(CustomCall, NewAttributeKindsAreRequiredRuntimeFeatures) {
  absl::StatusOr<gpu::GpuExecutableProto> a = CompileToProto(kHlo, Options("host", {kTarget}));
  ASSERT_TRUE(a.ok()) << a.status();
  const auto& features = a->header().required_runtime_features();
  for (const char* f : {"custom_calls", "ffi_attributes.bool", "ffi_attributes.f64_array",
                        "ffi_attributes.i64_array"}) {
    EXPECT_NE(std::find(features.begin(), features.end(), f), features.end()) << f;
  }
  CompileOptions old = Options("host", {kTarget});
  old.target_runtime = "2026-12-01";
  absl::Status refused = Compile(kHlo, old).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_TRUE(absl::StrContains(refused.message(), "the module needs runtime feature `ffi_attributes.")) << refused;
}

TEST(CustomCall, ResolvedWhenInitializedFromTheRunningProcess) {
  absl::StatusOr<CompiledArtifact> compiled = Compile(kHlo, Options("host", {kTarget}));
  ASSERT_TRUE(compiled.ok()) << compiled.status();

  // This process has no handler yet: the load succeeds (nothing is
  // resolved), Initialize fails naming the handler and the platform, and
  // nothing runs.
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::Status init = (*exe)->Initialize(gpu::testing::HostExecutor());
  EXPECT_EQ(init.code(), absl::StatusCode::kNotFound) << init;
  EXPECT_TRUE(absl::StrContains(init.message(), "custom_call.target_name: custom call not resolved at Initialize: no FFI handler 'test.e2e.axpb' for platform host (registered: ")) << init;
  absl::StatusOr<std::vector<Literal>> refused =
      ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), Inputs());
  // (ExecuteOnLiterals initializes first, and fails the same way.)
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kNotFound) << refused.status();
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "no FFI handler 'test.e2e.axpb' for platform host")) << refused.status();
  EXPECT_EQ(g_calls.load(), 0);

  // Registered after the load, before Initialize: found.
  ASSERT_TRUE(RegisterAxpb().ok());
  init = (*exe)->Initialize(gpu::testing::HostExecutor());
  ASSERT_TRUE(init.ok()) << init;
  absl::StatusOr<std::vector<Literal>> out =
      ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), Inputs());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(g_calls.load(), 1);
  for (int64_t i = 0; i < 35; ++i) EXPECT_NEAR((*out)[0].GetDouble(i), Expected(i), 1e-5) << i;

  // A fresh load with the handler registered checks the call at load, and
  // runs the same.
  absl::StatusOr<std::unique_ptr<Executable>> again = Executable::LoadFromBytes(compiled->bytes);
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_TRUE((*again)->Initialize(gpu::testing::HostExecutor()).ok());
  out = ExecuteOnLiterals(**again, gpu::testing::HostExecutor(), Inputs());
  ASSERT_TRUE(out.ok()) << out.status();
  for (int64_t i = 0; i < 35; ++i) EXPECT_NEAR((*out)[0].GetDouble(i), Expected(i), 1e-5) << i;
}

}  // namespace
}  // namespace xla::aot
