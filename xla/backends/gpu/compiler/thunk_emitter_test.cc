// Structural checks of thunk emission against the buffer assignment it was
// given (the numerical end-to-end checks are in host_compiler_test.cc).
#include "xla/backends/gpu/compiler/thunk_emitter.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "llvm/IR/LLVMContext.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/service/middle_end.h"
#include "xla/backends/gpu/runtime/feature_registry.h"
#include "xla/util/proto_util.h"

namespace xla::gpu {
namespace {

struct Emitted {
  std::unique_ptr<HloModule> module;
  MiddleEndResult middle;
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> kernels;
  GpuExecutablePayloadProto payload;
  absl::Status status;
};

std::unique_ptr<Emitted> Emit(absl::string_view hlo, bool emit_collectives = false,
                              std::vector<std::string> allowed_custom_calls = {}) {
  auto e = std::make_unique<Emitted>();
  auto module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  e->module = std::move(*module);
  auto middle = RunMiddleEnd(e->module.get(), MiddleEndOptions());
  EXPECT_TRUE(middle.ok()) << middle.status();
  e->middle = std::move(*middle);
  e->context = std::make_unique<llvm::LLVMContext>();
  e->kernels = std::make_unique<llvm::Module>("k", *e->context);
  ThunkEmitterOptions options;
  options.kernel.target_block_bytes = 256;
  options.emit_collectives = emit_collectives;
  options.allowed_custom_calls = std::move(allowed_custom_calls);
  e->status = EmitThunks(*e->module, e->middle.schedule, *e->middle.assignment, options,
                         e->kernels.get(), &e->payload);
  return e;
}

constexpr char kTwoOutputs[] = R"(
HloModule two
ENTRY main {
  x = f32[23,17]{1,0} parameter(0)
  y = f32[23,17]{1,0} parameter(1)
  a = f32[23,17]{1,0} add(x, y)
  m = f32[23,17]{1,0} multiply(a, a)
  d = f32[23,17]{1,0} dot(a, f32[17,17]{1,0} parameter(2)), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[23,17]{1,0}, f32[23,17]{1,0}) tuple(m, d)
}
)";

TEST(ThunkEmitter, TablesMirrorTheBufferAssignment) {
  auto e = Emit(kTwoOutputs);
  ASSERT_TRUE(e->status.ok()) << e->status;
  const auto& allocations = e->middle.assignment->allocations();
  ASSERT_EQ(e->payload.allocations_size(), static_cast<int>(allocations.size()));
  int parameters = 0;
  for (size_t i = 0; i < allocations.size(); ++i) {
    const BufferAllocationProto& p = e->payload.allocations(static_cast<int>(i));
    EXPECT_EQ(p.index(), static_cast<int64_t>(i));
    EXPECT_EQ(p.size(), allocations[i].size);
    EXPECT_EQ(p.is_parameter(), allocations[i].is_parameter);
    EXPECT_EQ(p.is_output(), allocations[i].is_output);
    EXPECT_EQ(p.is_temp(), allocations[i].is_temp);
    parameters += p.is_parameter();
  }
  EXPECT_EQ(parameters, 3);
  ASSERT_EQ(e->payload.outputs_size(), 2);
  EXPECT_EQ(e->payload.outputs(1).shape_index_size(), 1);
  EXPECT_EQ(e->payload.outputs(1).shape_index(0), 1);
  EXPECT_EQ(e->payload.program_shape().parameters_size(), 3);
}

TEST(ThunkEmitter, KernelArgumentsAreOperandsThenOutputsAndGemmWritesTheDotBuffer) {
  auto e = Emit(kTwoOutputs);
  ASSERT_TRUE(e->status.ok()) << e->status;
  const HloComputation* entry = e->module->entry_computation();
  int kernels = 0, gemms = 0;
  for (const ThunkProto& t : e->payload.thunks()) {
    const HloInstruction* instr = entry->GetInstruction(t.profile_annotation());
    ASSERT_NE(instr, nullptr) << t.profile_annotation();
    if (t.has_kernel()) {
      ++kernels;
      ASSERT_EQ(instr->opcode(), HloOpcode::kFusion);
      // Multi-output fusions have one output argument per tuple element.
      const int64_t outputs = instr->shape().IsTuple() ? instr->shape().tuple_shapes_size() : 1;
      ASSERT_EQ(t.kernel().args_size(), instr->operand_count() + outputs);
      for (int64_t i = 0; i < instr->operand_count(); ++i) {
        auto slice = e->middle.assignment->GetSlice(instr->operand(i), {});
        ASSERT_TRUE(slice.ok());
        EXPECT_EQ(t.kernel().args(i).allocation(), slice->allocation);
        EXPECT_EQ(t.kernel().args(i).offset(), slice->offset);
      }
      for (int64_t o = 0; o < outputs; ++o) {
        auto out = e->middle.assignment->GetSlice(
            instr, instr->shape().IsTuple() ? ShapeIndex{o} : ShapeIndex{});
        ASSERT_TRUE(out.ok());
        EXPECT_EQ(t.kernel().args(instr->operand_count() + o).allocation(), out->allocation);
        EXPECT_EQ(t.kernel().args(instr->operand_count() + o).offset(), out->offset);
      }
      EXPECT_GT(t.kernel().launch_dimensions().grid_x(), 1);  // 23*17*4 bytes, 256-byte blocks
      EXPECT_EQ(e->payload.kernels(t.kernel().kernel_index()).host_symbol(),
                e->payload.kernels(t.kernel().kernel_index()).name());
      EXPECT_NE(e->kernels->getFunction(e->payload.kernels(t.kernel().kernel_index()).host_symbol()),
                nullptr);
    }
    if (t.has_gemm()) {
      ++gemms;
      EXPECT_EQ(instr->opcode(), HloOpcode::kDot);
      EXPECT_EQ(t.gemm().m(), 23);
      EXPECT_EQ(t.gemm().n(), 17);
      EXPECT_EQ(t.gemm().k(), 17);
      EXPECT_EQ(t.gemm().alpha(), 1.0);
      EXPECT_EQ(t.gemm().beta(), 0.0);
    }
  }
  EXPECT_GE(kernels, 1);
  EXPECT_EQ(gemms, 1);
  EXPECT_EQ(e->payload.kernels_size(), kernels);
}

TEST(ThunkEmitter, SameModuleGivesTheSamePayload) {
  auto a = Emit(kTwoOutputs);
  auto b = Emit(kTwoOutputs);
  ASSERT_TRUE(a->status.ok() && b->status.ok());
  EXPECT_EQ(SerializeDeterministically(a->payload), SerializeDeterministically(b->payload));
}

TEST(ThunkEmitter, CustomCallIsUnimplementedNamingTheTarget) {
  auto e = Emit(R"(
HloModule cc
ENTRY main {
  x = f32[8]{0} parameter(0)
  ROOT c = f32[8]{0} custom-call(x), custom_call_target="my_fancy_kernel"
}
)");
  ASSERT_FALSE(e->status.ok());
  EXPECT_EQ(e->status.code(), absl::StatusCode::kUnimplemented) << e->status;
  EXPECT_TRUE(absl::StrContains(e->status.message(), "my_fancy_kernel")) << e->status;
  EXPECT_TRUE(absl::StrContains(e->status.message(), "custom-call")) << e->status;
  EXPECT_TRUE(absl::StrContains(e->status.message(), "is not an FFI handler this compiler knows for the host platform (known: te_fused_attn_backward_ffi@host, te_fused_attn_forward_ffi@host, xla.host.add_f32@host, xla.host.fill_f32@host); pass --allow_custom_calls=my_fancy_kernel to compile it for a handler the runtime registers")) << e->status;
}

// Transformer Engine's fused attention compiles for the host without
// --allow_custom_calls (a built-in handler has it), and a call with an
// attribute value the built-in does not support is refused at compile
// time, naming the attribute and the value.
std::string TeForwardHlo(absl::string_view dropout, absl::string_view layout) {
  return absl::StrCat(R"(
HloModule te
ENTRY main {
  q = bf16[2,33,4,8]{3,2,1,0} parameter(0)
  k = bf16[2,33,1,8]{3,2,1,0} parameter(1)
  v = bf16[2,33,1,8]{3,2,1,0} parameter(2)
  bias = bf16[0]{0} constant({})
  seed = u32[2]{0} constant({0, 0})
  cu = s32[3]{0} parameter(3)
  off = f32[0]{0} constant({})
  ROOT fwd = (bf16[2,33,4,8]{3,2,1,0}, f32[2,4,33,1]{3,2,1,0}, u32[2,4]{1,0}, u8[16]{0}) custom-call(q, k, v, bias, seed, cu, cu, off, off, off, off, off, off), custom_call_target="te_fused_attn_forward_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={attn_heads = 4 : i64, bias_batch = 0 : i64, bias_heads = 0 : i64, bias_type = 0 : i64, deterministic = false, dropout_probability = )",
                      dropout, R"( : f64, input_batch = 2 : i64, is_training = true, kv_max_seqlen = 33 : i64, mask_type = 3 : i64, max_segments_per_seq = 1 : i64, num_gqa_groups = 1 : i64, q_max_seqlen = 33 : i64, qk_head_dim = 8 : i64, qkv_layout = )",
                      layout, R"( : i64, scaling_factor = 3.535534e-01 : f64, v_head_dim = 8 : i64, window_size_left = -1 : i64, window_size_right = -1 : i64}
}
)");
}

TEST(ThunkEmitter, TeFusedAttentionCompilesWithTheBuiltInHandler) {
  auto e = Emit(TeForwardHlo("0.000000e+00", "9"));
  ASSERT_TRUE(e->status.ok()) << e->status;
  int calls = 0;
  for (const ThunkProto& t : e->payload.thunks()) {
    if (t.has_custom_call()) {
      ++calls;
      EXPECT_EQ(t.custom_call().target_name(), "te_fused_attn_forward_ffi");
      EXPECT_EQ(t.custom_call().operands_size(), 13);
      EXPECT_EQ(t.custom_call().results_size(), 4);
    }
  }
  EXPECT_EQ(calls, 1);
}

TEST(ThunkEmitter, TeFusedAttentionWithUnsupportedAttributesIsRefused) {
  auto e = Emit(TeForwardHlo("1.000000e-01", "9"));
  EXPECT_EQ(e->status.code(), absl::StatusCode::kUnimplemented) << e->status;
  EXPECT_TRUE(absl::StrContains(e->status.message(), "instruction 'fwd' (opcode custom-call)")) << e->status;
  EXPECT_TRUE(absl::StrContains(e->status.message(), "te_fused_attn_forward_ffi: attribute 'dropout_probability' = 0.1 is not supported (only 0)")) << e->status;
  // Allowing the target does not lift the check: the host runtime has the
  // built-in handler, which would refuse the call anyway.
  e = Emit(TeForwardHlo("0.000000e+00", "12"), false, {"te_fused_attn_forward_ffi"});
  EXPECT_EQ(e->status.code(), absl::StatusCode::kUnimplemented) << e->status;
  EXPECT_TRUE(absl::StrContains(e->status.message(), "attribute 'qkv_layout' = 12 (THD_T2HD) is not supported")) << e->status;
  // Shapes that do not match the attributes are refused too.
  e = Emit(absl::StrReplaceAll(TeForwardHlo("0.000000e+00", "9"), {{"attn_heads = 4", "attn_heads = 8"}}));
  EXPECT_EQ(e->status.code(), absl::StatusCode::kUnimplemented) << e->status;
  EXPECT_TRUE(absl::StrContains(e->status.message(), "operand 0 (q) has shape bf16[2,33,4,8]{3,2,1,0}, expected dimensions [2,33,8,8]")) << e->status;
}

constexpr char kTypedFfiCall[] = R"(
HloModule cc
ENTRY main {
  x = f32[5,3]{0,1} parameter(0)
  y = s32[7]{0} parameter(1)
  ROOT c = (f32[5,3]{1,0}, u8[11]{0}) custom-call(x, y), custom_call_target="my_fancy_kernel", api_version=API_VERSION_TYPED_FFI, backend_config={heads = 32 : i64, on = true, scale = 1.250000e-01 : f32, name = "abc", dims = array<i64: 1, 2, 3>, w = array<f64: 0.5>}
}
)";

TEST(ThunkEmitter, AllowedCustomCallCarriesShapesApiVersionAndTypedAttributes) {
  auto e = Emit(kTypedFfiCall, false, {"other", "my_fancy_kernel"});
  ASSERT_TRUE(e->status.ok()) << e->status;
  // The middle end may relayout the operand first (a kernel before the call).
  ASSERT_TRUE(e->payload.thunks(e->payload.thunks_size() - 1).has_custom_call());
  const CustomCallThunkProto& c = e->payload.thunks(e->payload.thunks_size() - 1).custom_call();
  const HloInstruction* call = e->module->entry_computation()->root_instruction();
  ASSERT_EQ(call->opcode(), HloOpcode::kCustomCall);
  EXPECT_EQ(c.target_name(), "my_fancy_kernel");
  EXPECT_EQ(c.api_version(), CUSTOM_CALL_API_VERSION_TYPED_FFI);
  EXPECT_EQ(c.opaque(), "");
  ASSERT_EQ(c.operands_size(), 2);
  ASSERT_EQ(c.results_size(), 2);
  // Each slice has the shape and layout of the value in the optimized module.
  EXPECT_EQ(c.operands(0).shape().element_type(), PRIMITIVE_TYPE_F32);
  EXPECT_EQ(c.operands(0).shape().dimensions_size(), 2);
  ASSERT_TRUE(call->operand(0)->shape().has_layout());
  ASSERT_EQ(c.operands(0).shape().layout().minor_to_major_size(), 2);
  EXPECT_EQ(c.operands(0).shape().layout().minor_to_major(0),
            call->operand(0)->shape().layout().minor_to_major[0]);
  EXPECT_EQ(c.operands(0).shape().layout().minor_to_major(1),
            call->operand(0)->shape().layout().minor_to_major[1]);
  EXPECT_EQ(c.operands(0).size(), 60);
  EXPECT_EQ(c.operands(1).shape().element_type(), PRIMITIVE_TYPE_S32);
  EXPECT_EQ(c.operands(1).size(), 28);
  EXPECT_EQ(c.results(1).shape().element_type(), PRIMITIVE_TYPE_U8);
  EXPECT_EQ(c.results(1).size(), 11);
  EXPECT_EQ(c.results(0).shape().layout().minor_to_major(0), 1);
  std::map<std::string, FfiAttributeProto> by_name;
  for (const FfiAttributeProto& a : c.attributes()) by_name[a.name()] = a;
  ASSERT_EQ(by_name.size(), 6u);
  EXPECT_EQ(by_name["heads"].i64(), 32);
  EXPECT_TRUE(by_name["on"].has_b() && by_name["on"].b());
  EXPECT_EQ(by_name["scale"].f64(), 0.125);
  EXPECT_EQ(by_name["name"].str(), "abc");
  ASSERT_EQ(by_name["dims"].i64_array().values_size(), 3);
  EXPECT_EQ(by_name["dims"].i64_array().values(2), 3);
  ASSERT_EQ(by_name["w"].f64_array().values_size(), 1);
  EXPECT_EQ(by_name["w"].f64_array().values(0), 0.5);
}

TEST(ThunkEmitter, OtherApiVersionsPassTheBackendConfigAsOpaqueBytes) {
  auto e = Emit(R"(
HloModule cc
ENTRY main {
  x = f32[8]{0} parameter(0)
  ROOT c = f32[8]{0} custom-call(x), custom_call_target="legacy", api_version=API_VERSION_STATUS_RETURNING, backend_config="k=\"v\";1"
}
)", false, {"legacy"});
  ASSERT_TRUE(e->status.ok()) << e->status;
  const CustomCallThunkProto& c = e->payload.thunks(0).custom_call();
  EXPECT_EQ(c.api_version(), CUSTOM_CALL_API_VERSION_STATUS_RETURNING);
  EXPECT_EQ(c.opaque(), "k=\"v\";1");
  EXPECT_EQ(c.attributes_size(), 0);
}

TEST(ThunkEmitter, MalformedTypedBackendConfigNamesTheInstruction) {
  auto e = Emit(R"(
HloModule cc
ENTRY main {
  x = f32[8]{0} parameter(0)
  ROOT c = f32[8]{0} custom-call(x), custom_call_target="k", api_version=API_VERSION_TYPED_FFI, backend_config={n = 300 : i8}
}
)", false, {"k"});
  ASSERT_FALSE(e->status.ok());
  EXPECT_EQ(e->status.code(), absl::StatusCode::kInvalidArgument) << e->status;
  EXPECT_TRUE(absl::StrContains(e->status.message(), "custom-call 'c': backend_config offset 5 (attribute 'n'): value 300 does not fit i8")) << e->status;
}

TEST(ThunkEmitter, KnownHandlerGetsItsTypedAttributesChecked) {
  // fill_f32 needs `value`; the typed-FFI dictionary supplies it.
  auto ok = Emit(R"(
HloModule cc
ENTRY main {
  ROOT c = f32[9]{0} custom-call(), custom_call_target="xla.host.fill_f32", api_version=API_VERSION_TYPED_FFI, backend_config={value = 2.5 : f64}
}
)");
  ASSERT_TRUE(ok->status.ok()) << ok->status;
  EXPECT_EQ(ok->payload.thunks(0).custom_call().attributes(0).f64(), 2.5);
  auto missing = Emit(R"(
HloModule cc
ENTRY main {
  ROOT c = f32[9]{0} custom-call(), custom_call_target="xla.host.fill_f32", api_version=API_VERSION_TYPED_FFI, backend_config={}
}
)");
  ASSERT_FALSE(missing->status.ok());
  EXPECT_TRUE(absl::StrContains(missing->status.message(), "needs attribute 'value'")) << missing->status;
}

TEST(ThunkEmitter, CustomCallWithTheWrongOperandCountIsUnimplemented) {
  auto e = Emit(R"(
HloModule cc
ENTRY main {
  x = f32[8]{0} parameter(0)
  ROOT c = f32[8]{0} custom-call(x), custom_call_target="xla.host.add_f32"
}
)");
  ASSERT_FALSE(e->status.ok());
  EXPECT_EQ(e->status.code(), absl::StatusCode::kUnimplemented) << e->status;
  EXPECT_TRUE(absl::StrContains(e->status.message(), "xla.host.add_f32")) << e->status;
}

TEST(ThunkEmitter, ConstantsAreStoredOnceWithTheirBytes) {
  auto e = Emit(R"(
HloModule consts
ENTRY main {
  x = f32[3]{0} parameter(0)
  k = f32[3]{0} constant({1.5, -2, 4})
  ROOT a = f32[3]{0} add(x, k)
}
)");
  ASSERT_TRUE(e->status.ok()) << e->status;
  int constant_allocations = 0;
  for (const BufferAllocationProto& a : e->payload.allocations()) {
    if (!a.is_constant()) continue;
    ++constant_allocations;
    ASSERT_LT(a.constant_index(), e->payload.constants_size());
    EXPECT_EQ(static_cast<int64_t>(e->payload.constants(a.constant_index()).content().size()),
              a.size());
  }
  // The constant may be fused into the kernel; when it has an allocation,
  // its bytes are the literal's.
  for (const ConstantProto& c : e->payload.constants()) {
    if (c.content().size() != 12) continue;
    float v[3];
    memcpy(v, c.content().data(), 12);
    EXPECT_EQ(v[0], 1.5f);
    EXPECT_EQ(v[1], -2.0f);
    EXPECT_EQ(v[2], 4.0f);
  }
  EXPECT_EQ(constant_allocations, e->payload.constants_size());
}


constexpr char kCollectives[] = R"(
HloModule coll, replica_count=4
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mx {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
ENTRY main {
  x = f32[3,5]{1,0} parameter(0)
  i = s32[4,3]{1,0} parameter(1)
  ar = f32[3,5]{1,0} all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=sum
  ag = f32[3,20]{1,0} all-gather(x), dimensions={1}, replica_groups={}
  rs = s32[2,3]{1,0} reduce-scatter(i), dimensions={0}, replica_groups={{1,0},{3,2}}, to_apply=mx
  cp = f32[3,5]{1,0} collective-permute(x), source_target_pairs={{0,1},{1,2},{2,3}}
  id = u32[] replica-id()
  ROOT t = (f32[3,5]{1,0}, f32[3,20]{1,0}, s32[2,3]{1,0}, f32[3,5]{1,0}, u32[]) tuple(ar, ag, rs, cp, id)
}
)";

TEST(ThunkEmitter, CollectivesNeedTheFlag) {
  auto e = Emit(kCollectives);
  ASSERT_FALSE(e->status.ok());
  EXPECT_EQ(e->status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(e->status.message(), "all-reduce is emitted only with "
                                                      "--emit_collectives"))
      << e->status;
}

TEST(ThunkEmitter, CollectivesBecomeCollectiveThunks) {
  auto e = Emit(kCollectives, /*emit_collectives=*/true);
  ASSERT_TRUE(e->status.ok()) << e->status;
  std::map<CollectiveOpProto, const CollectiveThunkProto*> by_op;
  for (const ThunkProto& t : e->payload.thunks()) {
    if (t.has_collective()) by_op[t.collective().op()] = &t.collective();
  }
  ASSERT_EQ(by_op.size(), 5u);
  const CollectiveThunkProto& ar = *by_op.at(COLLECTIVE_OP_ALL_REDUCE);
  EXPECT_EQ(ar.reduction(), REDUCTION_KIND_SUM);
  ASSERT_EQ(ar.replica_groups_size(), 2);
  EXPECT_EQ(ar.replica_groups(1).replica_ids(0), 2);
  EXPECT_EQ(ar.operand().size(), 60);
  EXPECT_EQ(ar.element_type(), PRIMITIVE_TYPE_F32);
  const CollectiveThunkProto& ag = *by_op.at(COLLECTIVE_OP_ALL_GATHER);
  EXPECT_EQ(ag.dimension(), 1);
  ASSERT_EQ(ag.replica_groups_size(), 1);  // empty groups: every replica
  EXPECT_EQ(ag.replica_groups(0).replica_ids_size(), 4);
  EXPECT_EQ(ag.result().size(), 240);
  const CollectiveThunkProto& rs = *by_op.at(COLLECTIVE_OP_REDUCE_SCATTER);
  EXPECT_EQ(rs.reduction(), REDUCTION_KIND_MAX);
  EXPECT_EQ(rs.replica_groups(0).replica_ids(0), 1);  // group order kept
  EXPECT_EQ(std::vector<int64_t>(rs.operand_dimensions().begin(), rs.operand_dimensions().end()),
            (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(by_op.at(COLLECTIVE_OP_COLLECTIVE_PERMUTE)->source_target_pairs_size(), 3);
  EXPECT_EQ(by_op.at(COLLECTIVE_OP_REPLICA_ID)->result().size(), 4);
  EXPECT_EQ(RequiredFeaturesOf(e->payload), std::vector<std::string>{"collectives"});
}

TEST(ThunkEmitter, CollectiveGroupsBeyondTheReplicaCountAreRejected) {
  auto e = Emit(R"(
HloModule coll, replica_count=2
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[7]{0} parameter(0)
  ROOT ar = f32[7]{0} all-reduce(x), replica_groups={{0,1,2}}, to_apply=sum
}
)",
                /*emit_collectives=*/true);
  ASSERT_FALSE(e->status.ok());
  EXPECT_TRUE(absl::StrContains(e->status.message(), "2 in replica groups is out of range [0, 2)"))
      << e->status;
}

// collective-broadcast: one thunk per operand, the groups in list order (the
// runtime's root is each group's first replica), no reduction or dimension.
TEST(ThunkEmitter, CollectiveBroadcastKeepsTheGroupOrder) {
  auto e = Emit(R"(
HloModule bcast, replica_count=4
ENTRY main {
  x = f32[3,5]{1,0} parameter(0)
  y = s16[7]{0} parameter(1)
  b = (f32[3,5]{1,0}, s16[7]{0}) collective-broadcast(x, y), replica_groups={{1,0},{3,2}}
  b0 = f32[3,5]{1,0} get-tuple-element(b), index=0
  b1 = s16[7]{0} get-tuple-element(b), index=1
  c = f32[3,5]{1,0} collective-broadcast(x), replica_groups={}
  ROOT t = (f32[3,5]{1,0}, s16[7]{0}, f32[3,5]{1,0}) tuple(b0, b1, c)
}
)",
                /*emit_collectives=*/true);
  ASSERT_TRUE(e->status.ok()) << e->status;
  std::vector<const CollectiveThunkProto*> bcasts;
  for (const ThunkProto& t : e->payload.thunks()) {
    if (t.has_collective()) {
      EXPECT_EQ(t.collective().op(), COLLECTIVE_OP_COLLECTIVE_BROADCAST);
      bcasts.push_back(&t.collective());
    }
  }
  ASSERT_EQ(bcasts.size(), 3u);
  std::map<int64_t, const CollectiveThunkProto*> by_size;
  for (const CollectiveThunkProto* c : bcasts) by_size[c->operand().size()] = c;
  ASSERT_EQ(by_size.count(14), 1u);  // s16[7]
  const CollectiveThunkProto& s16 = *by_size.at(14);
  EXPECT_EQ(s16.element_type(), PRIMITIVE_TYPE_S16);
  EXPECT_EQ(s16.result().size(), 14);
  EXPECT_EQ(s16.reduction(), REDUCTION_KIND_UNSPECIFIED);
  ASSERT_EQ(s16.replica_groups_size(), 2);
  EXPECT_EQ(std::vector<int64_t>(s16.replica_groups(0).replica_ids().begin(),
                                 s16.replica_groups(0).replica_ids().end()),
            (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(s16.replica_groups(1).replica_ids(0), 3);
  int all_replicas = 0;
  for (const CollectiveThunkProto* c : bcasts) {
    if (c->replica_groups_size() == 1 && c->replica_groups(0).replica_ids_size() == 4) {
      ++all_replicas;
      EXPECT_EQ(c->replica_groups(0).replica_ids(0), 0);
    }
  }
  EXPECT_EQ(all_replicas, 1);
  EXPECT_EQ(RequiredFeaturesOf(e->payload), std::vector<std::string>{"collectives"});
}

// In an SPMD module (2 replicas x 2 partitions) a collective-broadcast with
// a channel id groups partitions of each replica: groups {1,0} become the
// global ids [1,0] (replica 0) and [3,2] (replica 1), root first; a
// cross-partition permute repeats its pairs for every replica; the thunks
// record the partition count. In a one-partition module the same broadcast
// names partition 1, which does not exist: InvalidArgument.
TEST(ThunkEmitter, SpmdCollectivesUseGlobalDeviceIds) {
  auto e = Emit(R"(
HloModule bcast, replica_count=2, num_partitions=2
ENTRY main {
  x = f32[3]{0} parameter(0)
  b = f32[3]{0} collective-broadcast(x), replica_groups={{1,0}}, channel_id=1
  p = f32[3]{0} collective-permute(x), channel_id=2, source_target_pairs={{0,1}}
  ROOT t = (f32[3]{0}, f32[3]{0}) tuple(b, p)
}
)",
                /*emit_collectives=*/true);
  ASSERT_TRUE(e->status.ok()) << e->status;
  const CollectiveThunkProto* bcast = nullptr;
  const CollectiveThunkProto* permute = nullptr;
  for (const ThunkProto& t : e->payload.thunks()) {
    if (!t.has_collective()) continue;
    if (t.collective().op() == COLLECTIVE_OP_COLLECTIVE_BROADCAST) bcast = &t.collective();
    if (t.collective().op() == COLLECTIVE_OP_COLLECTIVE_PERMUTE) permute = &t.collective();
  }
  ASSERT_NE(bcast, nullptr);
  ASSERT_NE(permute, nullptr);
  EXPECT_EQ(bcast->num_partitions(), 2);
  ASSERT_EQ(bcast->replica_groups_size(), 2);
  EXPECT_EQ(std::vector<int64_t>(bcast->replica_groups(0).replica_ids().begin(),
                                 bcast->replica_groups(0).replica_ids().end()),
            (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(std::vector<int64_t>(bcast->replica_groups(1).replica_ids().begin(),
                                 bcast->replica_groups(1).replica_ids().end()),
            (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(permute->num_partitions(), 2);
  ASSERT_EQ(permute->source_target_pairs_size(), 2);
  EXPECT_EQ(permute->source_target_pairs(0).source(), 0);
  EXPECT_EQ(permute->source_target_pairs(0).target(), 1);
  EXPECT_EQ(permute->source_target_pairs(1).source(), 2);
  EXPECT_EQ(permute->source_target_pairs(1).target(), 3);

  auto one = Emit(R"(
HloModule bcast1, replica_count=2
ENTRY main {
  x = f32[3]{0} parameter(0)
  ROOT b = f32[3]{0} collective-broadcast(x), replica_groups={{0,1}}, channel_id=1
}
)",
                  /*emit_collectives=*/true);
  ASSERT_FALSE(one->status.ok());
  EXPECT_EQ(one->status.code(), absl::StatusCode::kInvalidArgument) << one->status;
}

// Each -start becomes an async_start whose nested collective runs on the
// communication stream and writes the start's output (element 1 of an
// all-gather-start / collective-permute-start tuple, whose element 0 gets a
// copy of the operand and is what the collective reads); each -done joins
// (async_done of the same id) and makes its result hold that output (a copy
// here: buffer assignment gives done its own slice).
TEST(ThunkEmitter, AsyncCollectiveFormsWriteTheStartOutput) {
  auto e = Emit(R"(
HloModule async, replica_count=2
sum {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY main {
  x = s32[3]{0} parameter(0)
  st = s32[3]{0} all-reduce-start(x), replica_groups={{0,1}}, to_apply=sum
  dn = s32[3]{0} all-reduce-done(st)
  ags = (s32[3]{0}, s32[6]{0}) all-gather-start(x), dimensions={0}, replica_groups={{1,0}}
  agd = s32[6]{0} all-gather-done(ags)
  cps = (s32[3]{0}, s32[3]{0}) collective-permute-start(x), source_target_pairs={{0,1},{1,0}}
  cpd = s32[3]{0} collective-permute-done(cps)
  ROOT t = (s32[3]{0}, s32[6]{0}, s32[3]{0}) tuple(dn, agd, cpd)
}
)",
                /*emit_collectives=*/true);
  ASSERT_TRUE(e->status.ok()) << e->status;
  const BufferAssignment& a = *e->middle.assignment;
  auto find = [&](absl::string_view name) -> const HloInstruction* {
    for (const auto& instr : e->module->entry_computation()->instructions()) {
      if (instr->name() == name) return instr.get();
    }
    return nullptr;
  };
  auto slice = [&](absl::string_view name, const ShapeIndex& index) {
    const HloInstruction* instr = find(name);
    EXPECT_NE(instr, nullptr) << name;
    absl::StatusOr<BufferSlice> s = a.GetSlice(instr, index);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *s : BufferSlice{};
  };
  auto same = [](const BufferSliceProto& p, const BufferSlice& s) {
    return p.allocation() == s.allocation && p.offset() == s.offset && p.size() == s.size;
  };
  std::map<CollectiveOpProto, const CollectiveThunkProto*> by_op;
  std::map<std::string, std::vector<const CopyThunkProto*>> copies;
  std::map<int64_t, int> started;  // async id -> position of its start
  EXPECT_EQ(e->payload.num_streams(), kCollectiveStream + 1);
  for (int i = 0; i < e->payload.thunks_size(); ++i) {
    const ThunkProto& t = e->payload.thunks(i);
    EXPECT_FALSE(t.has_collective()) << "a -start's collective is nested in an async_start";
    EXPECT_EQ(t.execution_stream_id(), 0);
    if (t.has_copy()) copies[t.profile_annotation()].push_back(&t.copy());
    if (t.has_async_done()) {
      ASSERT_EQ(started.count(t.async_done().async_id()), 1u) << "done before its start";
      started.erase(t.async_done().async_id());
    }
    if (!t.has_async_start()) continue;
    EXPECT_EQ(t.async_start().stream_id(), kCollectiveStream);
    started[t.async_start().async_id()] = i;
    ASSERT_EQ(t.async_start().thunks().thunks_size(), 1);
    const ThunkProto& nested = t.async_start().thunks().thunks(0);
    EXPECT_EQ(nested.execution_stream_id(), kCollectiveStream);
    ASSERT_TRUE(nested.has_collective());
    by_op[nested.collective().op()] = &nested.collective();
  }
  EXPECT_TRUE(started.empty()) << "a start without its done";
  ASSERT_EQ(by_op.size(), 3u);
  const CollectiveThunkProto& ar = *by_op.at(COLLECTIVE_OP_ALL_REDUCE);
  EXPECT_EQ(ar.reduction(), REDUCTION_KIND_SUM);
  EXPECT_TRUE(same(ar.operand(), slice("x", {})));
  EXPECT_TRUE(same(ar.result(), slice("st", {})));
  const CollectiveThunkProto& ag = *by_op.at(COLLECTIVE_OP_ALL_GATHER);
  EXPECT_TRUE(same(ag.operand(), slice("ags", {0})));
  EXPECT_TRUE(same(ag.result(), slice("ags", {1})));
  EXPECT_EQ(ag.result().size(), 24);
  EXPECT_EQ(ag.replica_groups(0).replica_ids(0), 1);
  const CollectiveThunkProto& cp = *by_op.at(COLLECTIVE_OP_COLLECTIVE_PERMUTE);
  EXPECT_TRUE(same(cp.operand(), slice("cps", {0})));
  EXPECT_TRUE(same(cp.result(), slice("cps", {1})));
  EXPECT_EQ(cp.source_target_pairs_size(), 2);
  // The dones: the start's output into the done's result, when they differ.
  const std::pair<const char*, std::pair<const char*, ShapeIndex>> dones[] = {
      {"dn", {"st", {}}}, {"agd", {"ags", {1}}}, {"cpd", {"cps", {1}}}};
  for (const auto& [done, from] : dones) {
    const BufferSlice src = slice(from.first, from.second);
    const BufferSlice dst = slice(done, {});
    if (src == dst) {
      EXPECT_EQ(copies.count(done), 0u) << done;
      continue;
    }
    ASSERT_EQ(copies[done].size(), 1u) << done;
    EXPECT_TRUE(same(copies[done][0]->source(), src)) << done;
    EXPECT_TRUE(same(copies[done][0]->destination(), dst)) << done;
  }
  // Element 0 of each tuple-shaped start holds the operand.
  for (const char* start : {"ags", "cps"}) {
    const BufferSlice operand = slice("x", {});
    const BufferSlice element0 = slice(start, {0});
    if (operand == element0) continue;
    ASSERT_EQ(copies[start].size(), 1u) << start;
    EXPECT_TRUE(same(copies[start][0]->source(), operand)) << start;
    EXPECT_TRUE(same(copies[start][0]->destination(), element0)) << start;
  }
}

}  // namespace
}  // namespace xla::gpu
