// Shape inference: contractions, linear algebra, reductions, control flow,
// async wrappers, transfers and collectives.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/hlo/ir/conv_dim_labels.h"
#include "xla/hlo/verifier/shape_inference.h"
#include "xla/hlo/verifier/test_builder.h"

namespace xla {
namespace {

using hlo_test::CompBuilder;
using ::testing::HasSubstr;
using V = std::vector<int64_t>;

std::string Infer(const HloInstruction* instr, bool declared = false) {
  absl::StatusOr<Shape> s = InferShape(*instr, declared);
  return s.ok() ? s->ToString(false) : absl::StrCat("error: ", s.status().message());
}

// Stores the inferred shape in `instr` so that users can be inferred too.
HloInstruction* Fix(HloInstruction* instr) {
  absl::StatusOr<Shape> s = InferShape(*instr, /*shape_declared=*/false);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (s.ok()) *instr->mutable_shape() = *s;
  return instr;
}

class OpsInferenceTest : public ::testing::Test {
 protected:
  HloComputation* Add(absl::string_view type = "f32") {
    return hlo_test::ScalarBinary(&module_, type, HloOpcode::kAdd,
                                  absl::StrCat("add_", type, "_", module_.NextUniqueId()));
  }
  HloModule module_{"m"};
  CompBuilder b_{&module_, "main"};
};

HloInstruction* SetDotDims(HloInstruction* dot, V lb, V lc, V rb, V rc) {
  dot->SetAttr(AttrId::kLhsBatchDims, lb);
  dot->SetAttr(AttrId::kLhsContractingDims, lc);
  dot->SetAttr(AttrId::kRhsBatchDims, rb);
  dot->SetAttr(AttrId::kRhsContractingDims, rc);
  return dot;
}

TEST_F(OpsInferenceTest, DotBatchAndContracting) {
  HloInstruction* a = b_.Param("bf16[7,33,5]");
  HloInstruction* b = b_.Param("bf16[7,5,257]");
  HloInstruction* dot = SetDotDims(b_.Op(HloOpcode::kDot, "f32[7,33,257]", {a, b}, "dot"),
                                   {0}, {2}, {0}, {1});
  EXPECT_EQ(Infer(dot, true), "f32[7,33,257]");   // declared element type kept
  EXPECT_EQ(Infer(dot, false), "bf16[7,33,257]");  // falls back to the operand type
  SetDotDims(dot, {0}, {1}, {0}, {1});
  EXPECT_EQ(Infer(dot, true), "error: dot: lhs_contracting_dims dimension 1 of bf16[7,33,5] does "
                              "not match rhs_contracting_dims dimension 1 of bf16[7,5,257]");
  HloInstruction* v = b_.Param("f32[4]");
  EXPECT_EQ(Infer(SetDotDims(b_.Op(HloOpcode::kDot, "", {v, v}), {}, {0}, {}, {0})), "f32[]");
}

TEST_F(OpsInferenceTest, RaggedDotModes) {
  HloInstruction* group_sizes = b_.Param("s64[19,3]");
  // Ragged non-contracting dimension: the rhs has a group dimension.
  HloInstruction* a = b_.Param("f32[19,11,5]");
  HloInstruction* b = b_.Param("f32[3,5,7]");
  HloInstruction* r1 = SetDotDims(b_.Op(HloOpcode::kRaggedDot, "", {a, b, group_sizes}), {}, {2},
                                  {}, {1});
  r1->SetAttr(AttrId::kLhsRaggedDims, V{1});
  r1->SetAttr(AttrId::kRhsGroupDims, V{0});
  EXPECT_EQ(Infer(r1), "f32[19,11,7]");
  // Ragged contracting dimension: a leading group dimension appears.
  HloInstruction* c = b_.Param("f32[11,19,5]");
  HloInstruction* d = b_.Param("f32[19,5,7]");
  HloInstruction* r2 = SetDotDims(b_.Op(HloOpcode::kRaggedDot, "", {c, d, group_sizes}), {},
                                  {1, 2}, {}, {0, 1});
  r2->SetAttr(AttrId::kLhsRaggedDims, V{2});
  EXPECT_EQ(Infer(r2), "f32[3,11,7]");
  // Ragged batch dimension: an ordinary dot.
  HloInstruction* e = b_.Param("f32[19,17,11,5]");
  HloInstruction* f = b_.Param("f32[19,17,5,7]");
  HloInstruction* r3 = SetDotDims(b_.Op(HloOpcode::kRaggedDot, "", {e, f, group_sizes}),
                                  {0, 1}, {3}, {0, 1}, {2});
  r3->SetAttr(AttrId::kLhsRaggedDims, V{1});
  EXPECT_EQ(Infer(r3), "f32[19,17,11,7]");
}

TEST_F(OpsInferenceTest, ScaledDot) {
  HloInstruction* a = b_.Param("f8e4m3fn[2,256]");
  HloInstruction* b = b_.Param("f8e4m3fn[256,256]");
  HloInstruction* as = b_.Param("f8e8m0fnu[2,8]");
  HloInstruction* bs = b_.Param("f8e8m0fnu[256,8]");
  HloInstruction* sd = SetDotDims(b_.Op(HloOpcode::kScaledDot, "f32[2,256]", {a, b, as, bs}),
                                  {}, {1}, {}, {1});
  EXPECT_EQ(Infer(sd, true), "f32[2,256]");
  HloInstruction* bad_scale = b_.Param("f8e8m0fnu[256,7]");
  HloInstruction* sd2 = SetDotDims(
      b_.Op(HloOpcode::kScaledDot, "f32[2,256]", {a, b, as, bad_scale}, "sd2"), {}, {1}, {}, {1});
  EXPECT_EQ(Infer(sd2, true), "error: sd2: scale f8e8m0fnu[256,7] must be a scalar or divide "
                              "f8e4m3fn[256,256] dimension by dimension");
}

HloInstruction* Conv(CompBuilder& b, HloInstruction* lhs, HloInstruction* rhs,
                     absl::string_view labels, Window window, int64_t fgc = 1, int64_t bgc = 1) {
  HloInstruction* conv = b.Op(HloOpcode::kConvolution, "", {lhs, rhs}, "conv");
  conv->SetAttr(AttrId::kDimLabels, *ParseConvDimLabels(labels));
  conv->SetAttr(AttrId::kWindow, std::move(window));
  if (fgc != 1) conv->SetAttr(AttrId::kFeatureGroupCount, fgc);
  if (bgc != 1) conv->SetAttr(AttrId::kBatchGroupCount, bgc);
  return conv;
}

WindowDim WDim(int64_t size, int64_t stride = 1, int64_t lo = 0, int64_t hi = 0,
               int64_t lhs_dilate = 1, int64_t rhs_dilate = 1) {
  WindowDim d;
  d.size = size;
  d.stride = stride;
  d.pad_low = lo;
  d.pad_high = hi;
  d.lhs_dilate = lhs_dilate;
  d.rhs_dilate = rhs_dilate;
  return d;
}

TEST_F(OpsInferenceTest, Convolution) {
  HloInstruction* in1 = b_.Param("f32[1,2,1]");
  HloInstruction* k1 = b_.Param("f32[1,1,1]");
  EXPECT_EQ(Infer(Conv(b_, in1, k1, "b0f_0io->b0f", Window{{WDim(1, 1, 1, 2)}})), "f32[1,5,1]");
  // Strides, padding, dilation and a transposed output layout.
  HloInstruction* in2 = b_.Param("f32[256,32,32,1]");
  HloInstruction* k2 = b_.Param("f32[3,3,1,1]");
  EXPECT_EQ(Infer(Conv(b_, in2, k2, "b01f_01io->f01b",
                       Window{{WDim(3, 4, 44, 45, 1, 2), WDim(3, 5, 60, 60, 1, 3)}})),
            "f32[1,30,30,256]");
  // Depthwise: feature_group_count equals the input features.
  HloInstruction* in3 = b_.Param("f32[1,33,33,8]");
  HloInstruction* k3 = b_.Param("f32[3,3,1,8]");
  EXPECT_EQ(Infer(Conv(b_, in3, k3, "b01f_01io->b01f", Window{{WDim(3), WDim(3)}}, 8)),
            "f32[1,31,31,8]");
  // batch_group_count divides the batch.
  HloInstruction* in4 = b_.Param("f32[8,5,5,4]");
  HloInstruction* k4 = b_.Param("f32[3,3,4,8]");
  EXPECT_EQ(Infer(Conv(b_, in4, k4, "b01f_01io->b01f", Window{{WDim(3), WDim(3)}}, 1, 2)),
            "f32[4,3,3,8]");
  // lhs dilation.
  EXPECT_EQ(Infer(Conv(b_, in1, k1, "b0f_0io->b0f", Window{{WDim(1, 1, 0, 0, 3)}})),
            "f32[1,4,1]");
  // Window size must match the kernel.
  EXPECT_EQ(Infer(Conv(b_, in2, k1, "b01f_01io->f01b", Window{{WDim(3), WDim(3)}})),
            "error: conv: dim_labels b01f_01io->f01b with 2 window dimensions does not fit "
            "input f32[256,32,32,1] and kernel f32[1,1,1]");
  EXPECT_EQ(Infer(Conv(b_, in3, k3, "b01f_01io->b01f", Window{{WDim(3), WDim(3)}}, 3)),
            "error: conv: input features 8 of f32[1,33,33,8] must equal kernel input features 1 "
            "times feature_group_count 3");
}

TEST_F(OpsInferenceTest, FftTypes) {
  HloInstruction* c = b_.Param("c64[8,16]");
  HloInstruction* fft = b_.Op(HloOpcode::kFft, "", {c});
  fft->SetAttr(AttrId::kFftType, std::string("FFT"));
  fft->SetAttr(AttrId::kFftLength, V{16});
  EXPECT_EQ(Infer(fft), "c64[8,16]");
  HloInstruction* r = b_.Param("f32[8,16]");
  HloInstruction* rfft = b_.Op(HloOpcode::kFft, "", {r});
  rfft->SetAttr(AttrId::kFftType, std::string("RFFT"));
  rfft->SetAttr(AttrId::kFftLength, V{16});
  EXPECT_EQ(Infer(rfft), "c64[8,9]");
  HloInstruction* h = b_.Param("c64[8,9]");
  HloInstruction* irfft = b_.Op(HloOpcode::kFft, "", {h});
  irfft->SetAttr(AttrId::kFftType, std::string("IRFFT"));
  irfft->SetAttr(AttrId::kFftLength, V{16});
  EXPECT_EQ(Infer(irfft), "f32[8,16]");
}

TEST_F(OpsInferenceTest, LinearAlgebra) {
  HloInstruction* a = b_.Param("f32[3,291,291]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kCholesky, "", {a})), "f32[3,291,291]");
  HloInstruction* m = b_.Param("f32[4,4]");
  HloInstruction* rhs = b_.Param("f32[4,3]");
  HloInstruction* left = b_.Op(HloOpcode::kTriangularSolve, "", {m, rhs});
  left->SetAttr(AttrId::kLeftSide, true);
  EXPECT_EQ(Infer(left), "f32[4,3]");
  HloInstruction* right = b_.Op(HloOpcode::kTriangularSolve, "", {m, rhs}, "ts");
  EXPECT_EQ(Infer(right),
            "error: ts: triangular-solve b f32[4,3] does not fit a f32[4,4] with left_side=false");
}

TEST_F(OpsInferenceTest, BatchNorm) {
  HloInstruction* x = b_.Param("f32[2,3,5,5]");
  HloInstruction* f = b_.Param("f32[3]");
  HloInstruction* train = b_.Op(HloOpcode::kBatchNormTraining, "", {x, f, f});
  train->SetAttr(AttrId::kFeatureIndex, int64_t{1});
  EXPECT_EQ(Infer(train), "(f32[2,3,5,5], f32[3], f32[3])");
  HloInstruction* inf = b_.Op(HloOpcode::kBatchNormInference, "", {x, f, f, f, f});
  inf->SetAttr(AttrId::kFeatureIndex, int64_t{1});
  EXPECT_EQ(Infer(inf), "f32[2,3,5,5]");
  HloInstruction* grad = b_.Op(HloOpcode::kBatchNormGrad, "", {x, f, f, f, x});
  grad->SetAttr(AttrId::kFeatureIndex, int64_t{3});
  EXPECT_THAT(Infer(grad), HasSubstr(": operand 1 is f32[3], expected f32[5]"));
}

TEST_F(OpsInferenceTest, TopK) {
  HloInstruction* x = b_.Param("bf16[1,50000]");
  HloInstruction* topk = b_.Op(HloOpcode::kTopK, "", {x});
  topk->SetAttr(AttrId::kK, int64_t{10});
  EXPECT_EQ(Infer(topk), "(bf16[1,10], s32[1,10])");
}

TEST_F(OpsInferenceTest, ReduceSingleAndVariadic) {
  HloInstruction* x = b_.Param("f32[33,257]");
  HloInstruction* i = b_.Param("s32[33,257]");
  HloInstruction* zf = b_.Param("f32[]");
  HloInstruction* zi = b_.Param("s32[]");
  HloInstruction* r = b_.Op(HloOpcode::kReduce, "", {x, zf}, "r");
  r->SetAttr(AttrId::kDimensions, V{1});
  r->SetAttr(AttrId::kToApply, Add());
  EXPECT_EQ(Infer(r), "f32[33]");
  r->SetAttr(AttrId::kDimensions, V{2});
  EXPECT_EQ(Infer(r), "error: r: dimensions={2} has index 2 out of range for rank 2");

  CompBuilder arg(&module_, "argmax");
  std::vector<HloInstruction*> p = {arg.Param("f32[]"), arg.Param("s32[]"), arg.Param("f32[]"),
                                    arg.Param("s32[]")};
  arg.Finish(arg.Op(HloOpcode::kTuple, "(f32[], s32[])", {p[0], p[1]}));
  HloInstruction* v = b_.Op(HloOpcode::kReduce, "", {x, i, zf, zi});
  v->SetAttr(AttrId::kDimensions, V{0, 1});
  v->SetAttr(AttrId::kToApply, arg.comp());
  EXPECT_EQ(Infer(v), "(f32[], s32[])");

  HloInstruction* bad = b_.Op(HloOpcode::kReduce, "", {x, zf}, "bad");
  bad->SetAttr(AttrId::kDimensions, V{0});
  bad->SetAttr(AttrId::kToApply, arg.comp());
  EXPECT_THAT(Infer(bad), HasSubstr("error: bad: expected 2 parameters of reducer computation "
                                    "'argmax' ((p."));
}

TEST_F(OpsInferenceTest, ReduceWindowAndSelectAndScatter) {
  HloInstruction* x = b_.Param("f32[2,17,31,7]");
  HloInstruction* z = b_.Param("f32[]");
  HloInstruction* rw = b_.Op(HloOpcode::kReduceWindow, "", {x, z});
  rw->SetAttr(AttrId::kWindow, Window{{WDim(1), WDim(2, 4, 2, 0, 1, 2), WDim(2, 4, 0, 2, 1, 2),
                                       WDim(1)}});
  rw->SetAttr(AttrId::kToApply, Add());
  EXPECT_EQ(Infer(rw), "f32[2,5,8,7]");

  HloInstruction* input = b_.Param("f32[4,5]");
  HloInstruction* source = b_.Param("f32[2,2]");
  HloInstruction* ss = b_.Op(HloOpcode::kSelectAndScatter, "", {input, source, z}, "ss");
  ss->SetAttr(AttrId::kWindow, Window{{WDim(2, 2), WDim(3, 3, 0, 1)}});
  ss->SetAttr(AttrId::kSelect, hlo_test::ScalarLess(&module_, "f32", "ge"));
  ss->SetAttr(AttrId::kScatter, Add());
  EXPECT_EQ(Infer(ss), "f32[4,5]");
  ss->SetAttr(AttrId::kSelect, Add());
  EXPECT_THAT(Infer(ss), HasSubstr("error: ss: select computation 'add_f32_"));
  EXPECT_THAT(Infer(ss), HasSubstr("returns f32[], expected pred[]"));
}

TEST_F(OpsInferenceTest, SortAndMap) {
  HloInstruction* keys = b_.Param("bf16[1024,512]");
  HloInstruction* vals = b_.Param("s32[1024,512]");
  CompBuilder cmp(&module_, "cmp");
  std::vector<HloInstruction*> p = {cmp.Param("bf16[]"), cmp.Param("bf16[]"), cmp.Param("s32[]"),
                                    cmp.Param("s32[]")};
  cmp.Finish(cmp.Op(HloOpcode::kCompare, "pred[]", {p[0], p[1]}));
  HloInstruction* sort = b_.Op(HloOpcode::kSort, "", {keys, vals});
  sort->SetAttr(AttrId::kDimensions, V{1});
  sort->SetAttr(AttrId::kToApply, cmp.comp());
  EXPECT_EQ(Infer(sort), "(bf16[1024,512], s32[1024,512])");
  HloInstruction* one = b_.Op(HloOpcode::kSort, "", {vals});
  one->SetAttr(AttrId::kDimensions, V{0});
  one->SetAttr(AttrId::kToApply, hlo_test::ScalarLess(&module_, "s32", "lt"));
  EXPECT_EQ(Infer(one), "s32[1024,512]");

  HloInstruction* a = b_.Param("s32[9]");
  HloInstruction* map = b_.Op(HloOpcode::kMap, "", {a, a});
  map->SetAttr(AttrId::kToApply, hlo_test::ScalarLess(&module_, "s32", "lt2"));
  EXPECT_EQ(Infer(map), "pred[9]");
}

TEST_F(OpsInferenceTest, Scan) {
  HloInstruction* x = b_.Param("f32[10,3]");
  HloInstruction* init = b_.Param("f32[3]");
  CompBuilder body(&module_, "body");
  HloInstruction* e = body.Param("f32[3]");
  HloInstruction* c = body.Param("f32[3]");
  HloInstruction* sum = body.Op(HloOpcode::kAdd, "f32[3]", {e, c});
  body.Finish(body.Op(HloOpcode::kTuple, "(f32[3], f32[3])", {sum, sum}));
  HloInstruction* scan = b_.Op(HloOpcode::kScan, "", {x, init});
  scan->SetAttr(AttrId::kDimensions, V{0});
  scan->SetAttr(AttrId::kNumCarries, int64_t{1});
  scan->SetAttr(AttrId::kToApply, body.comp());
  EXPECT_EQ(Infer(scan), "(f32[10,3], f32[3])");
}

TEST_F(OpsInferenceTest, TuplesAndControlFlow) {
  HloInstruction* s = b_.Param("s64[]");
  HloInstruction* f = b_.Param("f32[3]");
  HloInstruction* t = Fix(b_.Op(HloOpcode::kTuple, "", {s, f}));
  EXPECT_EQ(Infer(t), "(s64[], f32[3])");
  HloInstruction* gte = b_.Op(HloOpcode::kGetTupleElement, "", {t}, "gte");
  gte->SetAttr(AttrId::kIndex, int64_t{1});
  EXPECT_EQ(Infer(gte), "f32[3]");
  gte->SetAttr(AttrId::kIndex, int64_t{2});
  EXPECT_EQ(Infer(gte), "error: gte: index=2 is out of range for (s64[], f32[3])");

  CompBuilder cond(&module_, "cond");
  HloInstruction* cp = cond.Param("s64[]");
  cond.Finish(cond.Op(HloOpcode::kCompare, "pred[]", {cp, cp}));
  CompBuilder body(&module_, "body");
  HloInstruction* bp = body.Param("s64[]");
  body.Finish(body.Op(HloOpcode::kAdd, "s64[]", {bp, bp}));
  HloInstruction* loop = b_.Op(HloOpcode::kWhile, "", {s}, "loop");
  loop->SetAttr(AttrId::kCondition, cond.comp());
  loop->SetAttr(AttrId::kBody, body.comp());
  EXPECT_EQ(Infer(loop), "s64[]");
  loop->SetAttr(AttrId::kCondition, body.comp());
  EXPECT_EQ(Infer(loop), "error: loop: condition computation 'body' must return pred[], got s64[]");

  HloInstruction* index = b_.Param("s32[]");
  HloInstruction* cnd = b_.Op(HloOpcode::kConditional, "", {index, s, s}, "cnd");
  cnd->SetAttr(AttrId::kBranchComputations,
               std::vector<HloComputation*>{body.comp(), body.comp()});
  EXPECT_EQ(Infer(cnd), "s64[]");
  HloInstruction* p = b_.Param("pred[]");
  HloInstruction* ite = b_.Op(HloOpcode::kConditional, "", {p, s, f}, "ite");
  ite->SetAttr(AttrId::kTrueComputation, body.comp());
  ite->SetAttr(AttrId::kFalseComputation, body.comp());
  EXPECT_EQ(Infer(ite), "error: ite: branch computation 'body' parameter 0 has shape s64[], "
                        "expected f32[3]");

  HloInstruction* call = b_.Op(HloOpcode::kCall, "", {s});
  call->SetAttr(AttrId::kToApply, body.comp());
  EXPECT_EQ(Infer(call), "s64[]");
  HloInstruction* fusion = b_.Op(HloOpcode::kFusion, "", {s, s}, "fusion");
  fusion->SetAttr(AttrId::kCalls, std::vector<HloComputation*>{body.comp()});
  EXPECT_EQ(Infer(fusion), "error: fusion: calls computation 'body' takes 1 parameters, expected 2");
}

TEST_F(OpsInferenceTest, AsyncAndCopyStart) {
  HloInstruction* x = b_.Param("f32[10]");
  CompBuilder callee(&module_, "callee");
  HloInstruction* cp = callee.Param("f32[10]");
  callee.Finish(callee.Op(HloOpcode::kCustomCall, "f32[20]", {cp}));
  HloInstruction* start =
      b_.Op(HloOpcode::kAsyncStart, "((f32[10]), f32[20], s32[])", {x}, "start");
  start->SetAttr(AttrId::kCalls, std::vector<HloComputation*>{callee.comp()});
  EXPECT_EQ(Infer(start, true), "((f32[10]), f32[20], s32[])");
  EXPECT_EQ(Infer(start, false), "((f32[10]), f32[20])");
  HloInstruction* update = b_.Op(HloOpcode::kAsyncUpdate, "((f32[10]), f32[20], s32[])", {start});
  EXPECT_EQ(Infer(update), "((f32[10]), f32[20], s32[])");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAsyncDone, "", {update})), "f32[20]");
  HloInstruction* copy = Fix(b_.Op(HloOpcode::kCopyStart, "", {x}));
  EXPECT_EQ(Infer(copy), "(f32[10], f32[10], u32[])");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kCopyDone, "", {copy})), "f32[10]");
}

TEST_F(OpsInferenceTest, TokensAndTransfers) {
  HloInstruction* tok = Fix(b_.Op(HloOpcode::kAfterAll, "", {}));
  EXPECT_EQ(Infer(tok), "token[]");
  HloInstruction* x = b_.Param("s32[3,4]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAddDependency, "", {x, tok})), "s32[3,4]");
  HloInstruction* send = Fix(b_.Op(HloOpcode::kSend, "", {x, tok}));
  EXPECT_EQ(Infer(send), "(s32[3,4], u32[], token[])");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kSendDone, "", {send})), "token[]");
  HloInstruction* recv = b_.Op(HloOpcode::kRecv, "(s32[3,4], u32[], token[])", {tok}, "recv");
  EXPECT_EQ(Infer(recv, true), "(s32[3,4], u32[], token[])");
  EXPECT_EQ(Infer(recv, false),
            "error: recv: the result shape of recv cannot be inferred; write it in the text");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kRecvDone, "", {recv})), "(s32[3,4], token[])");
  HloInstruction* infeed = b_.Op(HloOpcode::kInfeed, "(s32[3], token[])", {tok});
  EXPECT_EQ(Infer(infeed, true), "(s32[3], token[])");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kOutfeed, "", {x, tok})), "token[]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kOutfeed, "", {x, x}, "of")),
            "error: of: operand 1 must be a token, got s32[3,4]");
}

TEST_F(OpsInferenceTest, RandomNumbers) {
  HloInstruction* lo = b_.Param("f32[]");
  HloInstruction* rng = b_.Op(HloOpcode::kRng, "f32[3,5]", {lo, lo});
  EXPECT_EQ(Infer(rng, true), "f32[3,5]");
  HloInstruction* state = b_.Param("u64[3]");
  HloInstruction* bits = b_.Op(HloOpcode::kRngBitGenerator, "(u64[3], u32[2,2])", {state});
  EXPECT_EQ(Infer(bits, true), "(u64[3], u32[2,2])");
  HloInstruction* bad = b_.Op(HloOpcode::kRngBitGenerator, "(u64[2], u32[2,2])", {state}, "rbg");
  EXPECT_EQ(Infer(bad, true), "error: rbg: rng-bit-generator result must be (state u64[3], "
                              "bits), got (u64[2], u32[2,2])");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kRngGetAndUpdateState, "", {})), "u64[2]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kReplicaId, "", {})), "u32[]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kPartitionId, "", {})), "u32[]");
}

ReplicaGroups Groups(std::vector<V> groups) {
  ReplicaGroups g;
  g.groups = std::move(groups);
  return g;
}

ReplicaGroups IotaGroups(V group_dims, V reshape_dims, V transpose = {}) {
  ReplicaGroups g;
  g.iota = true;
  g.group_dims = std::move(group_dims);
  g.reshape_dims = std::move(reshape_dims);
  g.transpose = std::move(transpose);
  return g;
}

TEST_F(OpsInferenceTest, AllGather) {
  HloInstruction* x = b_.Param("f32[5,7]");
  HloInstruction* ag = b_.Op(HloOpcode::kAllGather, "", {x}, "ag");
  ag->SetAttr(AttrId::kDimensions, V{1});
  ag->SetAttr(AttrId::kReplicaGroups, Groups({{0, 2, 4}, {1, 3, 5}}));
  EXPECT_EQ(Infer(ag), "f32[5,21]");
  ag->SetAttr(AttrId::kReplicaGroups, IotaGroups({2, 4}, {4, 2}, {1, 0}));
  EXPECT_EQ(Infer(ag), "f32[5,28]");
  ag->SetAttr(AttrId::kReplicaGroups, IotaGroups({2, 4}, {4, 3}));
  EXPECT_EQ(Infer(ag), "error: ag: replica_groups=[2,4]<=[4,3] is not a valid iota device list");
  ag->SetAttr(AttrId::kReplicaGroups, Groups({{0, 1}, {2}}));
  EXPECT_EQ(Infer(ag), "error: ag: replica groups must all have the same size for all-gather");
  ag->SetAttr(AttrId::kReplicaGroups, Groups({}));
  EXPECT_EQ(Infer(ag), "error: ag: the group size is unknown (replica_groups={}); write the "
                       "result shape in the text");
  HloInstruction* declared = b_.Op(HloOpcode::kAllGather, "f32[5,35]", {x}, "ag2");
  declared->SetAttr(AttrId::kDimensions, V{1});
  declared->SetAttr(AttrId::kReplicaGroups, Groups({}));
  EXPECT_EQ(Infer(declared, true), "f32[5,35]");
  HloInstruction* wrong = b_.Op(HloOpcode::kAllGather, "f32[5,36]", {x}, "ag3");
  wrong->SetAttr(AttrId::kDimensions, V{1});
  EXPECT_EQ(Infer(wrong, true),
            "error: ag3: declared f32[5,36] is not a multiple of f32[5,7] along dimension 1");
}

TEST_F(OpsInferenceTest, AllGatherStartForms) {
  HloInstruction* x = b_.Param("f32[128,32]");
  for (const char* declared : {"(f32[128,32], f32[128,128])", "f32[128,128]"}) {
    HloInstruction* start = b_.Op(HloOpcode::kAllGatherStart, declared, {x});
    start->SetAttr(AttrId::kDimensions, V{1});
    start->SetAttr(AttrId::kReplicaGroups, Groups({{0, 2, 4, 6}, {1, 3, 5, 7}}));
    EXPECT_EQ(Infer(start, true), declared);
    EXPECT_EQ(Infer(b_.Op(HloOpcode::kAllGatherDone, "", {start})), "f32[128,128]");
  }
}

TEST_F(OpsInferenceTest, ReduceScatterAllReduceAllToAll) {
  HloInstruction* x = b_.Param("f32[8,12]");
  HloInstruction* rs = b_.Op(HloOpcode::kReduceScatter, "", {x}, "rs");
  rs->SetAttr(AttrId::kDimensions, V{1});
  rs->SetAttr(AttrId::kReplicaGroups, Groups({{0, 1, 2}}));
  rs->SetAttr(AttrId::kToApply, Add());
  EXPECT_EQ(Infer(rs), "f32[8,4]");
  rs->SetAttr(AttrId::kReplicaGroups, Groups({{0, 1, 2, 3, 4}}));
  EXPECT_EQ(Infer(rs), "error: rs: dimension 1 of f32[8,12] is not divisible by the group size 5");

  HloInstruction* s = b_.Param("f32[]");
  HloInstruction* ar = b_.Op(HloOpcode::kAllReduce, "", {x, s});
  ar->SetAttr(AttrId::kReplicaGroups, Groups({}));
  ar->SetAttr(AttrId::kToApply, Add());
  EXPECT_EQ(Infer(ar), "(f32[8,12], f32[])");
  HloInstruction* ars = b_.Op(HloOpcode::kAllReduceStart, "", {x});
  ars->SetAttr(AttrId::kToApply, Add());
  Fix(ars);
  EXPECT_EQ(Infer(ars), "f32[8,12]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAllReduceDone, "", {ars})), "f32[8,12]");

  HloInstruction* a2a = b_.Op(HloOpcode::kAllToAll, "", {x}, "a2a");
  a2a->SetAttr(AttrId::kDimensions, V{0});
  a2a->SetAttr(AttrId::kReplicaGroups, Groups({{0, 1, 2, 3}}));
  EXPECT_EQ(Infer(a2a), "f32[8,12]");
  a2a->SetAttr(AttrId::kReplicaGroups, Groups({{0, 1, 2}}));
  EXPECT_EQ(Infer(a2a), "error: a2a: split dimension 0 of f32[8,12] is not divisible by the "
                        "group size 3");
  HloInstruction* tuple_a2a = b_.Op(HloOpcode::kAllToAll, "", {x, x});
  EXPECT_EQ(Infer(tuple_a2a), "(f32[8,12], f32[8,12])");
}

TEST_F(OpsInferenceTest, PermuteBroadcastRagged) {
  HloInstruction* x = b_.Param("f32[128,32]");
  HloInstruction* cp = b_.Op(HloOpcode::kCollectivePermute, "", {x});
  EXPECT_EQ(Infer(cp), "f32[128,32]");
  HloInstruction* start = Fix(b_.Op(HloOpcode::kCollectivePermuteStart, "", {x}));
  EXPECT_EQ(Infer(start), "(f32[128,32], f32[128,32])");
  HloInstruction* start_ctx =
      b_.Op(HloOpcode::kCollectivePermuteStart, "(f32[128,32], f32[128,32], u32[], u32[])", {x});
  EXPECT_EQ(Infer(start_ctx, true), "(f32[128,32], f32[128,32], u32[], u32[])");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kCollectivePermuteDone, "", {start})), "f32[128,32]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kCollectiveBroadcast, "", {x})), "f32[128,32]");
  HloInstruction* out = b_.Param("f32[6]");
  HloInstruction* in = b_.Param("f32[6]");
  HloInstruction* sizes = b_.Param("s32[3]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kRaggedAllToAll, "", {in, out, sizes, sizes, sizes, sizes})),
            "f32[6]");
}

}  // namespace
}  // namespace xla
