// Shape inference: elementwise ops, data movement, gather/scatter, and a
// robustness sweep over every opcode. Contractions, reductions, control flow
// and collectives are in shape_inference_ops_test.cc.
#include "xla/hlo/verifier/shape_inference.h"

#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/hlo/verifier/test_builder.h"

namespace xla {
namespace {

using hlo_test::CompBuilder;
using hlo_test::S;
using V = std::vector<int64_t>;

// The inferred shape (no layout) or "error: <message>".
std::string Infer(const HloInstruction* instr, bool declared = false) {
  absl::StatusOr<Shape> s = InferShape(*instr, declared);
  return s.ok() ? s->ToString(false) : absl::StrCat("error: ", s.status().message());
}

class ShapeInferenceTest : public ::testing::Test {
 protected:
  HloModule module_{"m"};
  CompBuilder b_{&module_, "main"};
};

TEST_F(ShapeInferenceTest, ElementwiseBinaryKeepsShape) {
  HloInstruction* x = b_.Param("f32[33,257]");
  HloInstruction* y = b_.Param("f32[33,257]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAdd, "", {x, y})), "f32[33,257]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kPower, "", {x, y})), "f32[33,257]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kCompare, "", {x, y})), "pred[33,257]");
}

TEST_F(ShapeInferenceTest, ElementwiseBinaryRejectsMismatch) {
  HloInstruction* x = b_.Param("f32[4]");
  HloInstruction* y = b_.Param("f32[5]");
  HloInstruction* z = b_.Param("bf16[4]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAdd, "", {x, y}, "add.3")),
            "error: add.3: operand shapes f32[4] and f32[5] differ");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kMultiply, "", {x, z}, "mul")),
            "error: mul: operand shapes f32[4] and bf16[4] differ in element type");
  HloInstruction* t = b_.Param("(f32[4])");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kSubtract, "", {x, t}, "sub")),
            "error: sub: operand 1 must be an array, got (f32[4])");
}

TEST_F(ShapeInferenceTest, WrongOperandCountIsReported) {
  HloInstruction* x = b_.Param("f32[4]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAdd, "", {x}, "add")), "error: add: add takes 2 operands, got 1");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kNegate, "", {x, x}, "neg")),
            "error: neg: negate takes 1 operand, got 2");
}

TEST_F(ShapeInferenceTest, ElementwiseDynamicDimensions) {
  HloInstruction* bounded = b_.Param("f32[<=7,3]");
  HloInstruction* fixed = b_.Param("f32[7,3]");
  HloInstruction* unbounded = b_.Param("f32[?,3]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAdd, "", {bounded, fixed})), "f32[<=7,3]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAdd, "", {fixed, bounded})), "f32[<=7,3]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAdd, "", {unbounded, fixed})), "f32[7,3]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAbs, "", {unbounded})), "f32[?,3]");
}

TEST_F(ShapeInferenceTest, UnaryAndComplexParts) {
  HloInstruction* c = b_.Param("c64[3,5]");
  HloInstruction* f = b_.Param("f64[3,5]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAbs, "", {c})), "f32[3,5]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kSign, "", {c})), "c64[3,5]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kReal, "", {c})), "f32[3,5]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kImag, "", {c})), "f32[3,5]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kReal, "", {f})), "f64[3,5]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kComplex, "", {f, f})), "c128[3,5]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kIsFinite, "", {f})), "pred[3,5]");
  HloInstruction* s = b_.Param("s32[3]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kComplex, "", {s, s}, "cplx")),
            "error: cplx: complex needs f32 or f64 operands, got s32[3]");
}

TEST_F(ShapeInferenceTest, CopyAcceptsTuples) {
  HloInstruction* t = b_.Param("(f32[2], s32[])");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kCopy, "", {t})), "(f32[2], s32[])");
}

TEST_F(ShapeInferenceTest, SelectAndClamp) {
  HloInstruction* p = b_.Param("pred[]");
  HloInstruction* pv = b_.Param("pred[9]");
  HloInstruction* pw = b_.Param("pred[8]");
  HloInstruction* x = b_.Param("s32[9]");
  HloInstruction* lo = b_.Param("s32[]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kSelect, "", {p, x, x})), "s32[9]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kSelect, "", {pv, x, x})), "s32[9]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kSelect, "", {pw, x, x}, "sel")),
            "error: sel: select predicate pred[8] must be a scalar or match s32[9]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kClamp, "", {lo, x, lo})), "s32[9]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kClamp, "", {x, x, x})), "s32[9]");
}

TEST_F(ShapeInferenceTest, BroadcastUsesDeclaredDims) {
  HloInstruction* x = b_.Param("f32[2,5]");
  HloInstruction* bc = b_.Op(HloOpcode::kBroadcast, "f32[2,3,5]", {x}, "bc");
  bc->SetAttr(AttrId::kDimensions, V{0, 2});
  EXPECT_EQ(Infer(bc, /*declared=*/true), "f32[2,3,5]");
  EXPECT_EQ(Infer(bc, /*declared=*/false),
            "error: bc: the result shape of broadcast cannot be inferred; write it in the text");
  bc->SetAttr(AttrId::kDimensions, V{0, 1});
  EXPECT_EQ(Infer(bc, true),
            "error: bc: operand dimension 1 of f32[2,5] does not match result dimension 1 of "
            "f32[2,3,5]");
  bc->SetAttr(AttrId::kDimensions, V{0, 3});
  EXPECT_EQ(Infer(bc, true),
            "error: bc: dimensions={0,3} has index 3 out of range for rank 3");
}

TEST_F(ShapeInferenceTest, ReshapeChecksElementCount) {
  HloInstruction* x = b_.Param("f32[6,35]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kReshape, "f32[210]", {x}), true), "f32[210]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kReshape, "s32[210]", {x}), true), "f32[210]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kReshape, "f32[211]", {x}, "r"), true),
            "error: r: reshape from f32[6,35] to f32[211] changes the element count");
}

TEST_F(ShapeInferenceTest, TransposeAndReverse) {
  HloInstruction* x = b_.Param("s32[1,2,3,4]");
  HloInstruction* t = b_.Op(HloOpcode::kTranspose, "", {x}, "t");
  t->SetAttr(AttrId::kDimensions, V{1, 0, 3, 2});
  EXPECT_EQ(Infer(t), "s32[2,1,4,3]");
  t->SetAttr(AttrId::kDimensions, V{1, 1, 3, 2});
  EXPECT_EQ(Infer(t), "error: t: dimensions={1,1,3,2} repeats index 1");
  HloInstruction* r = b_.Op(HloOpcode::kReverse, "", {x});
  r->SetAttr(AttrId::kDimensions, V{0, 3});
  EXPECT_EQ(Infer(r), "s32[1,2,3,4]");
}

TEST_F(ShapeInferenceTest, SliceWithStrides) {
  HloInstruction* x = b_.Param("f32[33,257]");
  HloInstruction* s = b_.Op(HloOpcode::kSlice, "", {x}, "s");
  s->SetAttr(AttrId::kSlice, std::vector<SliceDim>{{1, 33, 2}, {0, 257, 4}});
  EXPECT_EQ(Infer(s), "f32[16,65]");
  s->SetAttr(AttrId::kSlice, std::vector<SliceDim>{{1, 34, 1}, {0, 257, 1}});
  EXPECT_EQ(Infer(s), "error: s: slice [1:34:1] is invalid for dimension 0 of f32[33,257]");
  HloInstruction* missing = b_.Op(HloOpcode::kSlice, "", {x}, "m");
  EXPECT_EQ(Infer(missing), "error: m: slice needs attribute 'slice'");
}

TEST_F(ShapeInferenceTest, DynamicSliceAndUpdate) {
  HloInstruction* x = b_.Param("bf16[7,33,768]");
  HloInstruction* i = b_.Param("s32[]");
  HloInstruction* ds = b_.Op(HloOpcode::kDynamicSlice, "", {x, i, i, i}, "ds");
  ds->SetAttr(AttrId::kDynamicSliceSizes, V{1, 32, 768});
  EXPECT_EQ(Infer(ds), "bf16[1,32,768]");
  ds->SetAttr(AttrId::kDynamicSliceSizes, V{1, 34, 768});
  EXPECT_EQ(Infer(ds), "error: ds: dynamic_slice_sizes[1]=34 does not fit bf16[7,33,768]");
  HloInstruction* few = b_.Op(HloOpcode::kDynamicSlice, "", {x, i, i}, "few");
  few->SetAttr(AttrId::kDynamicSliceSizes, V{1, 1, 1});
  EXPECT_EQ(Infer(few), "error: few: expected 3 start indices for a rank-3 operand, got 2");
  HloInstruction* u = b_.Param("bf16[1,33,5]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kDynamicUpdateSlice, "", {x, u, i, i, i})), "bf16[7,33,768]");
  HloInstruction* big = b_.Param("bf16[8,33,5]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kDynamicUpdateSlice, "", {x, big, i, i, i}, "dus")),
            "error: dus: update bf16[8,33,5] is larger than bf16[7,33,768] in dimension 0");
}

TEST_F(ShapeInferenceTest, Concatenate) {
  HloInstruction* a = b_.Param("f32[4,1]");
  HloInstruction* b = b_.Param("f32[4,2]");
  HloInstruction* c = b_.Param("f32[5,2]");
  HloInstruction* cat = b_.Op(HloOpcode::kConcatenate, "", {a, b, b}, "cat");
  cat->SetAttr(AttrId::kDimensions, V{1});
  EXPECT_EQ(Infer(cat), "f32[4,5]");
  HloInstruction* bad = b_.Op(HloOpcode::kConcatenate, "", {a, c}, "bad");
  bad->SetAttr(AttrId::kDimensions, V{1});
  EXPECT_EQ(Infer(bad), "error: bad: operand 1 f32[5,2] does not match f32[4,1] outside the "
                        "concatenated dimension 1");
}

TEST_F(ShapeInferenceTest, PadWithNegativeAndInteriorPadding) {
  HloInstruction* x = b_.Param("f32[5,3]");
  HloInstruction* v = b_.Param("f32[]");
  HloInstruction* pad = b_.Op(HloOpcode::kPad, "", {x, v}, "pad");
  pad->SetAttr(AttrId::kPadding, std::vector<PaddingDim>{{-1, 2, 1}, {0, 0, 0}});
  EXPECT_EQ(Infer(pad), "f32[10,3]");  // 5 + 4*1 - 1 + 2
  pad->SetAttr(AttrId::kPadding, std::vector<PaddingDim>{{-6, 0, 0}, {0, 0, 0}});
  EXPECT_EQ(Infer(pad),
            "error: pad: padding -6_0_0 of dimension 0 of f32[5,3] gives a negative size -1");
}

TEST_F(ShapeInferenceTest, HugeSizesFromTextDoNotOverflow) {
  const int64_t big = int64_t{1} << 62;
  HloInstruction* x = b_.Param("f32[5]");
  HloInstruction* v = b_.Param("f32[]");
  HloInstruction* pad = b_.Op(HloOpcode::kPad, "", {x, v}, "pad");
  pad->SetAttr(AttrId::kPadding, std::vector<PaddingDim>{{0, 0, big}});
  EXPECT_EQ(Infer(pad), "error: pad: padding of dimension 0 of f32[5] overflows int64");
  HloInstruction* z = b_.Param("f32[]");
  HloInstruction* rw = b_.Op(HloOpcode::kReduceWindow, "", {x, z}, "rw");
  WindowDim w;
  w.size = 2;
  w.lhs_dilate = big;
  rw->SetAttr(AttrId::kWindow, Window{{w}});
  rw->SetAttr(AttrId::kToApply, hlo_test::ScalarBinary(&module_, "f32", HloOpcode::kAdd, "add"));
  EXPECT_EQ(Infer(rw), "error: rw: window dimension 0 overflows int64 for input size 5");
  HloInstruction* s = b_.Op(HloOpcode::kSlice, "", {x});
  s->SetAttr(AttrId::kSlice, std::vector<SliceDim>{{0, 5, std::numeric_limits<int64_t>::max()}});
  EXPECT_EQ(Infer(s), "f32[1]");
}

TEST_F(ShapeInferenceTest, IotaIsDeclared) {
  HloInstruction* iota = b_.Op(HloOpcode::kIota, "s32[512,3]", {}, "iota");
  iota->SetAttr(AttrId::kIotaDimension, int64_t{1});
  EXPECT_EQ(Infer(iota, true), "s32[512,3]");
  iota->SetAttr(AttrId::kIotaDimension, int64_t{2});
  EXPECT_EQ(Infer(iota, true), "error: iota: iota_dimension=2 is out of range for s32[512,3]");
}

TEST_F(ShapeInferenceTest, ConvertTakesDeclaredType) {
  HloInstruction* x = b_.Param("f32[4,3]");
  HloInstruction* cv = b_.Op(HloOpcode::kConvert, "f8e4m3fn[4,3]", {x}, "cv");
  EXPECT_EQ(Infer(cv, true), "f8e4m3fn[4,3]");
  EXPECT_EQ(Infer(cv, false), "error: cv: the result element type of convert cannot be "
                              "inferred; write the shape in the text");
  HloInstruction* r = b_.Param("u32[4,3]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kStochasticConvert, "s8[4,3]", {x, r}), true), "s8[4,3]");
}

TEST_F(ShapeInferenceTest, BitcastConvertChangesMinorDimension) {
  HloInstruction* f = b_.Param("f32[2,8]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kBitcastConvert, "u32[2,8]", {f}), true), "u32[2,8]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kBitcastConvert, "u8[2,8,4]", {f}), true), "u8[2,8,4]");
  HloInstruction* bytes = b_.Param("u8[3,4]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kBitcastConvert, "f32[3]", {bytes}), true), "f32[3]");
  HloInstruction* odd = b_.Param("u8[3,3]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kBitcastConvert, "f32[3]", {odd}, "bc"), true),
            "error: bc: bitcast-convert from u8[3,3] to f32 needs a minor dimension of size 4");
  HloInstruction* nibbles = b_.Param("s4[3,2]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kBitcastConvert, "u8[3]", {nibbles}), true), "u8[3]");
}

TEST_F(ShapeInferenceTest, DimensionSizeOps) {
  HloInstruction* x = b_.Param("f32[4,4]");
  HloInstruction* n = b_.Param("s32[]");
  HloInstruction* get = b_.Op(HloOpcode::kGetDimensionSize, "", {x});
  get->SetAttr(AttrId::kDimensions, V{1});
  EXPECT_EQ(Infer(get), "s32[]");
  HloInstruction* set = b_.Op(HloOpcode::kSetDimensionSize, "", {x, n});
  set->SetAttr(AttrId::kDimensions, V{1});
  EXPECT_EQ(Infer(set), "f32[4,<=4]");
  HloInstruction* dr = b_.Op(HloOpcode::kDynamicReshape, "f32[<=2,<=8]", {x, n, n});
  EXPECT_EQ(Infer(dr, true), "f32[<=2,<=8]");
}

TEST_F(ShapeInferenceTest, GatherWithCollapsedDims) {
  HloInstruction* operand = b_.Param("f32[33,7]");
  HloInstruction* indices = b_.Param("s32[5,1]");
  HloInstruction* g = b_.Op(HloOpcode::kGather, "", {operand, indices}, "g");
  g->SetAttr(AttrId::kOffsetDims, V{1});
  g->SetAttr(AttrId::kCollapsedSliceDims, V{0});
  g->SetAttr(AttrId::kStartIndexMap, V{0});
  g->SetAttr(AttrId::kIndexVectorDim, int64_t{1});
  g->SetAttr(AttrId::kSliceSizes, V{1, 7});
  EXPECT_EQ(Infer(g), "f32[5,7]");
  g->SetAttr(AttrId::kSliceSizes, V{2, 7});
  EXPECT_EQ(Infer(g), "error: g: collapsed or batching dimension 0 has slice size 2, expected "
                      "at most 1");
  g->SetAttr(AttrId::kSliceSizes, V{1, 8});
  EXPECT_EQ(Infer(g), "error: g: slice_sizes[1]=8 does not fit f32[33,7]");
}

TEST_F(ShapeInferenceTest, GatherWithBatchingDims) {
  HloInstruction* operand = b_.Param("bf16[1024,512]");
  HloInstruction* indices = b_.Param("s32[1024,512,1]");
  HloInstruction* g = b_.Op(HloOpcode::kGather, "", {operand, indices});
  g->SetAttr(AttrId::kCollapsedSliceDims, V{1});
  g->SetAttr(AttrId::kStartIndexMap, V{1});
  g->SetAttr(AttrId::kOperandBatchingDims, V{0});
  g->SetAttr(AttrId::kStartIndicesBatchingDims, V{0});
  g->SetAttr(AttrId::kIndexVectorDim, int64_t{2});
  g->SetAttr(AttrId::kSliceSizes, V{1, 1});
  EXPECT_EQ(Infer(g), "bf16[1024,512]");
}

TEST_F(ShapeInferenceTest, GatherOffsetDimsInterleave) {
  // Offset dims in the middle of the batch dims; scalar indices
  // (index_vector_dim == rank).
  HloInstruction* operand = b_.Param("f32[9,11,13]");
  HloInstruction* indices = b_.Param("s64[3,5]");
  HloInstruction* g = b_.Op(HloOpcode::kGather, "", {operand, indices});
  g->SetAttr(AttrId::kOffsetDims, V{1, 3});
  g->SetAttr(AttrId::kCollapsedSliceDims, V{1});
  g->SetAttr(AttrId::kStartIndexMap, V{1});
  g->SetAttr(AttrId::kIndexVectorDim, int64_t{2});
  g->SetAttr(AttrId::kSliceSizes, V{2, 1, 13});
  EXPECT_EQ(Infer(g), "f32[3,2,5,13]");
}

HloInstruction* AddScatterAttrs(HloInstruction* s, HloComputation* to_apply) {
  s->SetAttr(AttrId::kUpdateWindowDims, V{1});
  s->SetAttr(AttrId::kInsertedWindowDims, V{0, 1});
  s->SetAttr(AttrId::kScatterDimsToOperandDims, V{0, 1});
  s->SetAttr(AttrId::kIndexVectorDim, int64_t{1});
  s->SetAttr(AttrId::kToApply, to_apply);
  return s;
}

TEST_F(ShapeInferenceTest, ScatterSingleAndVariadic) {
  HloComputation* add = hlo_test::ScalarBinary(&module_, "f32", HloOpcode::kAdd, "add");
  HloInstruction* operand = b_.Param("f32[200,100,300]");
  HloInstruction* indices = b_.Param("s64[10,2]");
  HloInstruction* updates = b_.Param("f32[10,300]");
  HloInstruction* s = AddScatterAttrs(
      b_.Op(HloOpcode::kScatter, "", {operand, indices, updates}, "s"), add);
  EXPECT_EQ(Infer(s), "f32[200,100,300]");

  CompBuilder wide(&module_, "wide");
  std::vector<HloInstruction*> p;
  for (int i = 0; i < 4; ++i) p.push_back(wide.Param("f32[]"));
  wide.Finish(wide.Op(HloOpcode::kTuple, "(f32[], f32[])", {p[0], p[1]}));
  HloInstruction* v = AddScatterAttrs(
      b_.Op(HloOpcode::kScatter, "", {operand, operand, indices, updates, updates}), wide.comp());
  EXPECT_EQ(Infer(v), "(f32[200,100,300], f32[200,100,300])");

  HloInstruction* bad_updates = b_.Param("f32[11,300]");
  HloInstruction* bad = AddScatterAttrs(
      b_.Op(HloOpcode::kScatter, "", {operand, indices, bad_updates}, "bad"), add);
  EXPECT_EQ(Infer(bad), "error: bad: updates f32[11,300] scatter dimension 0 does not match "
                        "the indices s64[10,2]");
  HloInstruction* wrong_reducer = AddScatterAttrs(
      b_.Op(HloOpcode::kScatter, "", {operand, indices, updates}, "wr"), wide.comp());
  EXPECT_THAT(Infer(wrong_reducer),
              ::testing::HasSubstr("error: wr: expected 2 parameters of reducer computation"));
}

TEST_F(ShapeInferenceTest, ScatterWithBatchingDims) {
  HloComputation* add = hlo_test::ScalarBinary(&module_, "f32", HloOpcode::kAdd, "add");
  HloInstruction* operand = b_.Param("f32[200,100,300]");
  HloInstruction* indices = b_.Param("s64[100,200,1]");
  HloInstruction* updates = b_.Param("f32[100,200,300]");
  HloInstruction* s = b_.Op(HloOpcode::kScatter, "", {operand, indices, updates});
  s->SetAttr(AttrId::kUpdateWindowDims, V{2});
  s->SetAttr(AttrId::kInputBatchingDims, V{0, 1});
  s->SetAttr(AttrId::kScatterIndicesBatchingDims, V{1, 0});
  s->SetAttr(AttrId::kScatterDimsToOperandDims, V{2});
  s->SetAttr(AttrId::kIndexVectorDim, int64_t{2});
  s->SetAttr(AttrId::kToApply, add);
  EXPECT_EQ(Infer(s), "f32[200,100,300]");
}

TEST_F(ShapeInferenceTest, DeclaredOnlyOpsNeedAShape) {
  HloInstruction* x = b_.Param("f32[2]");
  HloInstruction* cc = b_.Op(HloOpcode::kCustomCall, "(f32[2], s32[])", {x}, "cc");
  EXPECT_EQ(Infer(cc, true), "(f32[2], s32[])");
  EXPECT_EQ(Infer(cc, false),
            "error: cc: the result shape of custom-call cannot be inferred; write it in the text");
  EXPECT_EQ(Infer(x, false),
            "error: p.0: the result shape of parameter cannot be inferred; write it in the text");
  HloInstruction* k = b_.Constant("s32[3]");
  EXPECT_EQ(Infer(k, true), "s32[3]");
}

TEST_F(ShapeInferenceTest, ResultTypeTables) {
  EXPECT_TRUE(ResultTypeIsDeclared(HloOpcode::kDot));
  EXPECT_TRUE(ResultTypeIsDeclared(HloOpcode::kConvert));
  EXPECT_FALSE(ResultTypeIsDeclared(HloOpcode::kAdd));
  EXPECT_TRUE(ResultShapeIsDeclared(HloOpcode::kCustomCall));
  EXPECT_TRUE(ResultShapeIsDeclared(HloOpcode::kIota));
  EXPECT_FALSE(ResultShapeIsDeclared(HloOpcode::kSlice));
}

// Every opcode with every small combination of operand kinds and no
// attributes: inference must answer (shape or error) without crashing.
TEST_F(ShapeInferenceTest, EveryOpcodeFailsCleanlyOnJunk) {
  const std::vector<std::string> kinds = {"f32[]", "f32[2,3]", "(f32[2], token[])", "token[]",
                                          "s32[5]"};
  int answered = 0;
  for (int op = 0; op < kHloOpcodeCount; ++op) {
    const HloOpcode opcode = static_cast<HloOpcode>(op);
    std::vector<HloInstruction*> params;  // fresh per opcode: short user lists
    for (const std::string& k : kinds) params.push_back(b_.Param(k));
    for (int count = 0; count <= 6; ++count) {
      for (size_t kind = 0; kind < params.size(); ++kind) {
        std::vector<HloInstruction*> operands;
        for (int i = 0; i < count; ++i) operands.push_back(params[(kind + i) % params.size()]);
        for (const char* declared : {"", "f32[2,3]", "(f32[2], f32[2])"}) {
          HloInstruction* instr = b_.Op(opcode, declared, operands);
          (void)InferShape(*instr, declared[0] != '\0');
          ++answered;
        }
      }
    }
  }
  EXPECT_EQ(answered, kHloOpcodeCount * 7 * 5 * 3);
}

}  // namespace
}  // namespace xla
