#include "xla/backends/gpu/runtime/feature_registry.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

TEST(FeatureRegistry, TheTableKeepsItsOwnRules) {
  absl::Status s = CheckFeatureRegistry(RuntimeFeatureRegistry());
  EXPECT_TRUE(s.ok()) << s;
  const RuntimeFeature* f = FindRuntimeFeature("kernel_spec.cubin_with_ptx");
  ASSERT_NE(f, nullptr);
  EXPECT_STREQ(f->construct, "KernelProto.cubin_with_ptx");
  EXPECT_FALSE(f->flag_default);  // stage 1: emission off
  EXPECT_EQ(FindRuntimeFeatureByConstruct("ThunkProto.custom_call")->name, std::string("custom_calls"));
  EXPECT_EQ(FindRuntimeFeature("teleportation"), nullptr);
}

TEST(PolicyRollouts, SigningHasThreeDatedStagesThatKeepBothWindows) {
  absl::Status s = CheckPolicyRollouts(PolicyRollouts());
  EXPECT_TRUE(s.ok()) << s;
  std::vector<const PolicyStage*> signing;
  for (const PolicyStage& p : PolicyRollouts()) {
    if (std::string(p.rollout) == "artifact_signing") signing.push_back(&p);
  }
  ASSERT_EQ(signing.size(), 3u);
  EXPECT_STREQ(signing[0]->landed, "2026-12-02");
  EXPECT_STREQ(signing[1]->earliest, "2026-12-16");
  EXPECT_STREQ(signing[2]->earliest, "2027-06-16");
}

TEST(PolicyRollouts, RefusesStagesThatComeTooSoonOrOutOfOrder) {
  auto check = [](std::vector<PolicyStage> t) { return std::string(CheckPolicyRollouts(t).message()); };
  EXPECT_TRUE(absl::StrContains(check({{"r", 1, "2026-12-02", "2026-12-02", ""},
                                       {"r", 2, "2026-12-15", "", ""}}),
                                "13 days after stage 1"));
  EXPECT_TRUE(absl::StrContains(check({{"r", 1, "2026-12-02", "2026-12-02", ""},
                                       {"r", 2, "2026-12-16", "", ""},
                                       {"r", 3, "2027-06-15", "", ""}}),
                                "before 2027-06-16"));
  EXPECT_TRUE(CheckPolicyRollouts(std::vector<PolicyStage>{{"r", 1, "2026-12-02", "2026-12-02", ""},
                                                           {"r", 2, "2026-12-16", "", ""},
                                                           {"r", 3, "2027-06-16", "", ""}})
                  .ok());
  EXPECT_TRUE(absl::StrContains(check({{"r", 2, "2026-12-02", "", ""}}), "count 1, 2, 3"));
  EXPECT_TRUE(absl::StrContains(check({{"r", 1, "2026-12-02", "", ""},
                                       {"r", 2, "2026-12-20", "2026-12-20", ""}}),
                                "landed while the stage before it has not"));
  EXPECT_TRUE(absl::StrContains(check({{"r", 1, "2026-12-05", "2026-12-02", ""}}), "before its earliest"));
  EXPECT_TRUE(absl::StrContains(check({{"r", 1, "2026-13-02", "", ""}}), "earliest"));
}

TEST(FeatureRegistry, RejectsRolloutsThatBreakTheForwardWindow) {
  // Emission turned on 13 days after runtime support: too early.
  const RuntimeFeature early[] = {{"x", FeatureKind::kOneofCase, "A.x", "2026-12-01", "--emit_x",
                                   true, "2026-12-14", ""}};
  absl::Status s = CheckFeatureRegistry(early);
  EXPECT_TRUE(absl::StrContains(s.message(), "13 days")) << s;
  // 14 days is enough.
  const RuntimeFeature ok[] = {{"x", FeatureKind::kOneofCase, "A.x", "2026-12-01", "--emit_x",
                                true, "2026-12-15", ""}};
  EXPECT_TRUE(CheckFeatureRegistry(ok).ok());
  // A construct newer than the first format without a flag.
  const RuntimeFeature ungated[] = {
      {"y", FeatureKind::kField, "A.y", "2027-01-05", "", true, "2027-01-05", ""}};
  EXPECT_TRUE(absl::StrContains(CheckFeatureRegistry(ungated).message(), "needs a compiler flag"));
  // A flag that defaults on without an emission date; duplicate names; bad dates.
  const RuntimeFeature on_without_date[] = {
      {"z", FeatureKind::kEnumValue, "E.Z", "2026-12-01", "--emit_z", true, "", ""}};
  EXPECT_FALSE(CheckFeatureRegistry(on_without_date).ok());
  const RuntimeFeature twice[] = {ok[0], ok[0]};
  EXPECT_TRUE(absl::StrContains(CheckFeatureRegistry(twice).message(), "appears twice"));
  const RuntimeFeature bad_date[] = {
      {"w", FeatureKind::kField, "A.w", "2026-02-30", "--emit_w", false, "", ""}};
  EXPECT_TRUE(absl::StrContains(CheckFeatureRegistry(bad_date).message(), "calendar date"));
}

// Stage 3 of a staged rollout, on a simulated clock: once the old form's
// window has passed, the policy demands removal and `reserved`.
TEST(FeatureRegistry, RemovalIsDemandedOnlyAfterTheBackwardWindow) {
  const RuntimeFeature old_form[] = {{"kernel_spec.cubin", FeatureKind::kOneofCase,
                                      "KernelProto.cubin", "2026-11-29", "--emit_plain_cubin",
                                      true, "2026-12-13", "2027-01-10"}};
  ASSERT_TRUE(CheckFeatureRegistry(old_form).ok());
  EXPECT_TRUE(CheckRemovalsDue(old_form, "2027-07-31").ok());  // window: through July 2027
  absl::Status due = CheckRemovalsDue(old_form, "2027-08-01");
  EXPECT_EQ(due.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(due.message(), "KernelProto.cubin")) << due;
  EXPECT_TRUE(absl::StrContains(due.message(), "reserved")) << due;
  EXPECT_TRUE(absl::StrContains(due.message(), "2027-07")) << due;
  EXPECT_FALSE(CheckRemovalsDue(old_form, "someday").ok());
  // Today's registry has nothing past due today. This test is meant to start
  // failing on the day something is: that is the signal to remove it.
  const absl::Time now = absl::Now();
  const std::string today = absl::FormatTime("%Y-%m-%d", now, absl::UTCTimeZone());
  absl::Status live = CheckRemovalsDue(RuntimeFeatureRegistry(), today);
  EXPECT_TRUE(live.ok()) << live;
}

TEST(FeatureRegistry, DatesAndWhatARuntimeOfADateSupports) {
  EXPECT_EQ(ParseIsoDate("1970-01-02").value(), 1);
  EXPECT_EQ(ParseIsoDate("2026-12-13").value() - ParseIsoDate("2026-11-29").value(), 14);
  EXPECT_FALSE(ParseIsoDate("2026-13-01").ok());
  EXPECT_FALSE(ParseIsoDate("yesterday").ok());
  EXPECT_TRUE(FeaturesSupportedOn("2026-11-28").value().empty());
  std::vector<std::string> first = FeaturesSupportedOn("2026-11-29").value();
  // collectives and payload_checksum.crc32c landed 2026-11-30,
  // kernel_argument_table 2026-12-02.
  EXPECT_EQ(std::count(first.begin(), first.end(), "collectives"), 0);
  EXPECT_EQ(std::count(first.begin(), first.end(), "payload_checksum.crc32c"), 0);
  // ... and kernel_argument_table, the three ffi_attributes.* kinds,
  // ffi_handlers.te_fused_attention_host, gemm.fp8, cudnn_convolutions and
  // fft on 2026-12-02, cudnn_convolutions.fused_epilogue,
  // host_transfers and copy_thunk.dynamic_offset on 2026-12-03.
  EXPECT_EQ(first.size() + 2 + 1 + 3 + 1 + 1 + 1 + 1 + 3, RuntimeFeatureRegistry().size());
  std::vector<std::string> nov30 = FeaturesSupportedOn("2026-11-30").value();
  EXPECT_EQ(std::count(nov30.begin(), nov30.end(), "kernel_argument_table"), 0);
  EXPECT_EQ(std::count(nov30.begin(), nov30.end(), "gemm.fp8"), 0);
  EXPECT_EQ(std::count(nov30.begin(), nov30.end(), "cudnn_convolutions"), 0);
  EXPECT_EQ(std::count(nov30.begin(), nov30.end(), "fft"), 0);
  EXPECT_EQ(nov30.size() + 1 + 3 + 1 + 1 + 1 + 1 + 3, RuntimeFeatureRegistry().size());
  std::vector<std::string> dec02 = FeaturesSupportedOn("2026-12-02").value();
  EXPECT_EQ(std::count(dec02.begin(), dec02.end(), "cudnn_convolutions.fused_epilogue"), 0);
  EXPECT_EQ(std::count(dec02.begin(), dec02.end(), "host_transfers"), 0);
  EXPECT_EQ(std::count(dec02.begin(), dec02.end(), "copy_thunk.dynamic_offset"), 0);
  EXPECT_EQ(dec02.size() + 3, RuntimeFeatureRegistry().size());
  std::vector<std::string> today = FeaturesSupportedOn("2026-12-03").value();
  EXPECT_EQ(today.size(), RuntimeFeatureRegistry().size());
}

TEST(FeatureRegistry, ACrc32cHeaderAddsItsFeature) {
  GpuExecutableProto a;
  a.mutable_payload()->add_thunks()->mutable_custom_call();
  EXPECT_EQ(RequiredFeaturesOf(a), std::vector<std::string>{"custom_calls"});
  a.mutable_header()->set_checksum_algorithm(CHECKSUM_ALGORITHM_CRC32C);
  EXPECT_EQ(RequiredFeaturesOf(a),
            (std::vector<std::string>{"custom_calls", "payload_checksum.crc32c"}));
}

// A host artifact calling Transformer Engine's fused attention (nested
// calls included) needs the built-in handlers; the same call in an sm_XX
// artifact resolves to TE's own handler and needs nothing more.
TEST(FeatureRegistry, HostFusedAttentionNeedsTheBuiltInHandlers) {
  GpuExecutableProto a;
  ThunkProto* w = a.mutable_payload()->add_thunks();
  w->mutable_while_()->mutable_body()->add_thunks()->mutable_custom_call()->set_target_name(
      "te_fused_attn_backward_ffi");
  a.mutable_header()->set_target("sm_90");
  EXPECT_EQ(RequiredFeaturesOf(a), std::vector<std::string>{"custom_calls"});
  a.mutable_header()->set_target("host");
  EXPECT_EQ(RequiredFeaturesOf(a), (std::vector<std::string>{
                                       "custom_calls", "ffi_handlers.te_fused_attention_host"}));
  w->mutable_while_()->mutable_body()->mutable_thunks(0)->mutable_custom_call()->set_target_name(
      "other");
  EXPECT_EQ(RequiredFeaturesOf(a), std::vector<std::string>{"custom_calls"});
  const RuntimeFeature* f = FindRuntimeFeature("ffi_handlers.te_fused_attention_host");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->kind, FeatureKind::kFfiHandler);
  EXPECT_EQ(std::string(f->runtime_support), "2026-12-02");
}

TEST(FeatureRegistry, RequiredFeaturesComeFromWhatThePayloadUses) {
  GpuExecutablePayloadProto payload;
  EXPECT_TRUE(RequiredFeaturesOf(payload).empty());
  payload.add_kernels()->mutable_cubin()->set_entry("k");
  EXPECT_TRUE(RequiredFeaturesOf(payload).empty());  // first-format construct
  payload.add_kernels()->mutable_cubin_with_ptx()->set_entry("k2");
  // A custom call nested in a while body inside a conditional branch.
  ThunkProto* cond = payload.add_thunks();
  ThunkProto* w = cond->mutable_conditional()->add_branches()->add_thunks();
  w->mutable_while_()->mutable_body()->add_thunks()->mutable_custom_call();
  payload.add_thunks()->mutable_async_done();
  const std::vector<std::string> want = {"async_streams", "custom_calls",
                                         "kernel_spec.cubin_with_ptx"};
  EXPECT_EQ(RequiredFeaturesOf(payload), want);
}

// Issue 29: a convolution thunk anywhere (here in a while body) needs
// cudnn_convolutions, so older runtimes refuse it by name.
TEST(FeatureRegistry, AConvolutionThunkNeedsCudnnConvolutions) {
  GpuExecutablePayloadProto payload;
  payload.add_thunks()->mutable_gemm();
  EXPECT_TRUE(RequiredFeaturesOf(payload).empty());
  payload.add_thunks()->mutable_while_()->mutable_body()->add_thunks()->mutable_convolution();
  EXPECT_EQ(RequiredFeaturesOf(payload), std::vector<std::string>{"cudnn_convolutions"});
}

// Issue 29: a convolution with a fused bias epilogue also needs
// cudnn_convolutions.fused_epilogue (an older runtime would drop the bias).
TEST(FeatureRegistry, AFusedEpilogueNeedsItsOwnFeature) {
  GpuExecutablePayloadProto payload;
  ConvolutionThunkProto* conv = payload.add_thunks()->mutable_convolution();
  conv->set_activation(CONVOLUTION_ACTIVATION_RELU);
  EXPECT_EQ(RequiredFeaturesOf(payload), std::vector<std::string>{"cudnn_convolutions"});
  conv->mutable_bias()->set_size(4);
  EXPECT_EQ(RequiredFeaturesOf(payload),
            (std::vector<std::string>{"cudnn_convolutions", "cudnn_convolutions.fused_epilogue"}));
}

// Issue 28: an fft thunk anywhere (here in a conditional branch) needs
// "fft", so older runtimes refuse it by name.
TEST(FeatureRegistry, AnFftThunkNeedsFft) {
  GpuExecutablePayloadProto payload;
  payload.add_thunks()->mutable_conditional()->add_branches()->add_thunks()->mutable_fft();
  EXPECT_EQ(RequiredFeaturesOf(payload), std::vector<std::string>{"fft"});
}

// Issue 28: a host send or recv anywhere (here inside an async start and a
// while body) needs "host_transfers", so older runtimes refuse it by name.
TEST(FeatureRegistry, AHostTransferThunkNeedsHostTransfers) {
  GpuExecutablePayloadProto payload;
  payload.add_thunks()->mutable_async_start()->mutable_thunks()->add_thunks()->mutable_host_send();
  EXPECT_EQ(RequiredFeaturesOf(payload), (std::vector<std::string>{"async_streams", "host_transfers"}));
  GpuExecutablePayloadProto loop;
  loop.add_thunks()->mutable_while_()->mutable_body()->add_thunks()->mutable_host_recv();
  EXPECT_EQ(RequiredFeaturesOf(loop), std::vector<std::string>{"host_transfers"});
  EXPECT_EQ(FindRuntimeFeature("host_transfers")->compiler_flag,
            std::string("--emit_host_transfers"));
}

// An async collective (issue 12): the collective nested in an async start
// still requires "collectives", so old runtimes refuse the artifact by name.
TEST(FeatureRegistry, NestedAsyncWorkContributesItsFeatures) {
  GpuExecutablePayloadProto payload;
  ThunkProto* start = payload.add_thunks();
  start->mutable_async_start()->set_stream_id(1);
  start->mutable_async_start()->mutable_thunks()->add_thunks()->mutable_collective();
  payload.add_thunks()->mutable_async_done();
  const std::vector<std::string> want = {"async_streams", "collectives"};
  EXPECT_EQ(RequiredFeaturesOf(payload), want);
}

// Issue 25: only a kernel launched through an argument table needs the
// feature, wherever it is nested; plain kernels need none.
TEST(FeatureRegistry, OnlyAKernelWithAnArgumentTableNeedsItsFeature) {
  GpuExecutablePayloadProto payload;
  payload.add_thunks()->mutable_kernel()->add_args()->set_size(4);
  EXPECT_TRUE(RequiredFeaturesOf(payload).empty());
  ThunkProto* w = payload.add_thunks();
  KernelThunkProto* k = w->mutable_while_()->mutable_body()->add_thunks()->mutable_kernel();
  k->mutable_argument_table()->set_size(8);
  EXPECT_EQ(RequiredFeaturesOf(payload), std::vector<std::string>{"kernel_argument_table"});
  const RuntimeFeature* f = FindRuntimeFeature("kernel_argument_table");
  ASSERT_NE(f, nullptr);
  EXPECT_STREQ(f->construct, "KernelThunkProto.argument_table");
  EXPECT_STREQ(f->runtime_support, "2026-12-02");
  EXPECT_FALSE(f->flag_default);  // stage 1
  EXPECT_STREQ(f->emission_on, "");
}

}  // namespace
}  // namespace xla::gpu

namespace xla::gpu {
namespace {

// Issue 25 (scan stacks in host memory): only a copy with a dynamic offset
// needs "copy_thunk.dynamic_offset", wherever it is nested (here in an
// async start in a while body); a plain copy needs nothing. Stage 1: off.
TEST(FeatureRegistry, OnlyACopyWithADynamicOffsetNeedsItsFeature) {
  GpuExecutablePayloadProto payload;
  payload.add_thunks()->mutable_copy()->mutable_source()->set_size(4);
  EXPECT_TRUE(RequiredFeaturesOf(payload).empty());
  ThunkProto* async =
      payload.add_thunks()->mutable_while_()->mutable_body()->add_thunks();
  CopyThunkProto* copy = async->mutable_async_start()->mutable_thunks()->add_thunks()->mutable_copy();
  copy->mutable_dynamic_offset()->set_destination_stride(132);
  const std::vector<std::string> want = {"async_streams", "copy_thunk.dynamic_offset"};
  EXPECT_EQ(RequiredFeaturesOf(payload), want);
  const RuntimeFeature* f = FindRuntimeFeature("copy_thunk.dynamic_offset");
  ASSERT_NE(f, nullptr);
  EXPECT_STREQ(f->construct, "CopyThunkProto.dynamic_offset");
  EXPECT_STREQ(f->compiler_flag, "--offload_scan_stacks");
  EXPECT_FALSE(f->flag_default);
  EXPECT_STREQ(f->emission_on, "");
}

// Typed-FFI attributes newer than the first format name their features;
// i64, f64 and str do not.
TEST(FeatureRegistry, NewAttributeKindsNameTheirFeatures) {
  GpuExecutablePayloadProto payload;
  CustomCallThunkProto* c = payload.add_thunks()->mutable_custom_call();
  c->add_attributes()->set_i64(1);
  c->add_attributes()->set_str("s");
  EXPECT_EQ(RequiredFeaturesOf(payload), std::vector<std::string>{"custom_calls"});
  c->add_attributes()->set_b(false);
  c->add_attributes()->mutable_i64_array();
  c->add_attributes()->mutable_f64_array()->add_values(1);
  const std::vector<std::string> want = {"custom_calls", "ffi_attributes.bool",
                                         "ffi_attributes.f64_array", "ffi_attributes.i64_array"};
  EXPECT_EQ(RequiredFeaturesOf(payload), want);
  // A runtime of the day before refuses them: a compiler asked for it does
  // not emit them (target_runtime.h).
  absl::StatusOr<std::vector<std::string>> before = FeaturesSupportedOn("2026-12-01");
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_EQ(std::count(before->begin(), before->end(), "ffi_attributes.bool"), 0);
}

// Issue 25 (FP8): a GEMM with per-operand types or a scale needs "gemm.fp8",
// nested too; a plain GEMM needs nothing. Stage 1: off by default.
TEST(FeatureRegistry, OnlyAnFp8GemmNeedsGemmFp8) {
  GpuExecutablePayloadProto payload;
  payload.add_thunks()->mutable_gemm()->set_m(16);
  EXPECT_TRUE(RequiredFeaturesOf(payload).empty());
  ThunkProto* w = payload.add_thunks();
  GemmThunkProto* g = w->mutable_while_()->mutable_body()->add_thunks()->mutable_gemm();
  g->set_rhs_type(xla::PRIMITIVE_TYPE_F8E5M2);
  EXPECT_EQ(RequiredFeaturesOf(payload), std::vector<std::string>{"gemm.fp8"});
  GpuExecutablePayloadProto scaled;
  scaled.add_thunks()->mutable_gemm()->mutable_lhs_scale()->set_size(4);
  EXPECT_EQ(RequiredFeaturesOf(scaled), std::vector<std::string>{"gemm.fp8"});
  const RuntimeFeature* f = FindRuntimeFeature("gemm.fp8");
  ASSERT_NE(f, nullptr);
  EXPECT_STREQ(f->construct, "GemmThunkProto.lhs_type");
  EXPECT_STREQ(f->runtime_support, "2026-12-02");
  EXPECT_STREQ(f->compiler_flag, "--fp8_gemm=cublaslt");
  EXPECT_FALSE(f->flag_default);
  EXPECT_STREQ(f->emission_on, "");
}

}  // namespace
}  // namespace xla::gpu
