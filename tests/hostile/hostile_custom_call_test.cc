// Hostile custom calls: a real artifact with a typed-FFI custom call,
// compiled here, is edited (and resealed) so that its thunk breaks the
// handler's signature or the attribute rules. Each edit must be refused at
// load with InvalidArgument naming the field, never reach the handler, and
// never crash. The unedited artifact loads, runs and calls the handler.
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/ffi/ffi_registry.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/types/literal.h"

namespace xla::aot {
namespace {

namespace ffi = ::xla::gpu::ffi;
using ::xla::gpu::CustomCallThunkProto;
using ::xla::gpu::FfiAttributeProto;
using ::xla::gpu::GpuExecutableProto;

constexpr char kHlo[] = R"(
HloModule hostile_custom_call
ENTRY main {
  x = f32[9]{0} parameter(0)
  ROOT y = f32[9]{0} custom-call(x), custom_call_target="test.hostile.scale", api_version=API_VERSION_TYPED_FFI, backend_config={scale = 3.000000e+00 : f64, dims = array<i64: 1, 2>}
}
)";

std::atomic<int> g_calls{0};

absl::Status Scale(const ffi::CallFrame& frame) {
  const double scale = std::get<double>(frame.attributes->at("scale"));
  const stream_executor::DeviceMemoryBase x = frame.operands[0], y = frame.results[0];
  return frame.stream->DoHostCallback([=]() -> absl::Status {
    ++g_calls;
    for (size_t i = 0; i < y.size / sizeof(float); ++i) {
      static_cast<float*>(y.opaque)[i] = static_cast<const float*>(x.opaque)[i] * scale;
    }
    return absl::OkStatus();
  });
}

const GpuExecutableProto& Artifact() {
  static const GpuExecutableProto* artifact = [] {
    absl::Status s = ffi::FfiRegistry::Global().Register(
        {"test.hostile.scale", "host", &Scale,
         {1, 1, {}, {{"scale", ffi::AttributeKind::kF64}, {"dims", ffi::AttributeKind::kI64Array}}}});
    EXPECT_TRUE(s.ok()) << s;
    CompileOptions options;
    options.host_cpu_variants = {};
    absl::StatusOr<GpuExecutableProto> compiled = CompileToProto(kHlo, options);
    EXPECT_TRUE(compiled.ok()) << compiled.status();
    return new GpuExecutableProto(compiled.ok() ? *compiled : GpuExecutableProto());
  }();
  return *artifact;
}

// The artifact with `edit` applied to its custom-call thunk, resealed.
std::string Edited(const std::function<void(CustomCallThunkProto&)>& edit) {
  GpuExecutableProto a = Artifact();
  for (gpu::ThunkProto& t : *a.mutable_payload()->mutable_thunks()) {
    if (t.has_custom_call()) edit(*t.mutable_custom_call());
  }
  gpu::SealArtifact(&a);
  return gpu::testing::SerializeArtifact(a);
}

FfiAttributeProto* Find(CustomCallThunkProto& c, absl::string_view name) {
  for (FfiAttributeProto& a : *c.mutable_attributes()) {
    if (a.name() == name) return &a;
  }
  ADD_FAILURE() << "no attribute " << name;
  return c.add_attributes();
}

void ExpectRefused(const std::string& bytes, absl::string_view finding) {
  const int calls = g_calls.load();
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(bytes);
  if (exe.ok()) {
    ADD_FAILURE() << "loaded; expected: " << finding;
    return;
  }
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument) << exe.status();
  EXPECT_TRUE(absl::StartsWith(exe.status().message(), "thunks[0].custom_call")) << exe.status();
  EXPECT_TRUE(absl::StrContains(exe.status().message(), finding)) << exe.status();
  EXPECT_EQ(g_calls.load(), calls);
}

TEST(HostileCustomCall, TheOriginalLoadsAndRuns) {
  absl::StatusOr<std::unique_ptr<Executable>> exe =
      Executable::LoadFromBytes(gpu::testing::SerializeArtifact(Artifact()));
  ASSERT_TRUE(exe.ok()) << exe.status();
  Literal x(Shape::Array(PrimitiveType::F32, {9}));
  for (int64_t i = 0; i < 9; ++i) x.SetDouble(i, 1.5 * i - 4);
  absl::StatusOr<std::vector<Literal>> out = ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), {x});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int64_t i = 0; i < 9; ++i) EXPECT_EQ((*out)[0].GetDouble(i), 3 * (1.5 * i - 4)) << i;
  EXPECT_GT(g_calls.load(), 0);
}

TEST(HostileCustomCall, AttributeOfTheWrongKind) {
  ExpectRefused(Edited([](CustomCallThunkProto& c) { Find(c, "scale")->set_i64(3); }),
                "handler 'test.hostile.scale' needs attribute 'scale' as f64, the call has i64");
  ExpectRefused(Edited([](CustomCallThunkProto& c) { Find(c, "dims")->set_str("1,2"); }),
                "needs attribute 'dims' as array<i64>, the call has str");
  ExpectRefused(Edited([](CustomCallThunkProto& c) {
                  Find(c, "dims")->mutable_f64_array()->add_values(1);
                }),
                "needs attribute 'dims' as array<i64>, the call has array<f64>");
}

TEST(HostileCustomCall, MissingAndDuplicatedAttributes) {
  ExpectRefused(Edited([](CustomCallThunkProto& c) { Find(c, "scale")->set_name("scal"); }),
                "needs attribute 'scale' (f64)");
  ExpectRefused(Edited([](CustomCallThunkProto& c) {
                  FfiAttributeProto* dup = c.add_attributes();
                  dup->set_name("scale");
                  dup->set_f64(1e300);
                }),
                "attribute 'scale' appears twice");
  ExpectRefused(Edited([](CustomCallThunkProto& c) { c.add_attributes()->set_f64(1); }),
                "attribute name is empty");
  ExpectRefused(Edited([](CustomCallThunkProto& c) { c.add_attributes()->set_name("future"); }),
                "attribute 'future' has no value of a known type (artifact newer than runtime?)");
}

TEST(HostileCustomCall, OversizeArraysAndAttributeLists) {
  ExpectRefused(Edited([](CustomCallThunkProto& c) {
                  auto* values = Find(c, "dims")->mutable_i64_array()->mutable_values();
                  values->Resize(ffi::kMaxAttributeArrayElements + 1, 7);
                }),
                "array attribute 'dims' has 65537 elements, more than the limit 65536");
  ExpectRefused(Edited([](CustomCallThunkProto& c) {
                  for (int i = 0; i < 5000; ++i) {
                    FfiAttributeProto* a = c.add_attributes();
                    a->set_name("x" + std::to_string(i));
                    a->set_b(true);
                  }
                }),
                "entries exceed the limit 4096");
}

TEST(HostileCustomCall, OperandsThatDoNotMatchTheHandler) {
  ExpectRefused(Edited([](CustomCallThunkProto& c) { *c.add_operands() = c.operands(0); }),
                "handler 'test.hostile.scale' takes 1 operands, got 2");
  ExpectRefused(Edited([](CustomCallThunkProto& c) { c.clear_results(); }),
                "handler 'test.hostile.scale' takes 1 results, got 0");
  ExpectRefused(Edited([](CustomCallThunkProto& c) { c.mutable_operands(0)->set_size(1 << 20); }),
                "exceeds allocation");
  ExpectRefused(Edited([](CustomCallThunkProto& c) {
                  c.mutable_operands(0)->mutable_shape()->set_dimensions(0, 10);
                }),
                "operands[0]");
  ExpectRefused(Edited([](CustomCallThunkProto& c) { c.clear_target_name(); }),
                "target name is empty");
}

}  // namespace
}  // namespace xla::aot
