// Shape rules for tuples, control flow, calls, async wrappers, tokens, host
// transfers and random numbers: tuple, get-tuple-element, while, conditional,
// call, fusion, async-start/done, copy-start/done, send/recv(-done),
// infeed, outfeed, after-all, rng, rng-bit-generator.
#include <vector>

#include "xla/hlo/verifier/shape_inference_internal.h"
#include "xla/util/status_macros.h"

namespace xla::shape_inference_internal {
namespace {

std::vector<Shape> OperandShapes(const InferContext& ctx) {
  std::vector<Shape> out;
  for (int64_t i = 0; i < ctx.operand_count(); ++i) out.push_back(ctx.operand_shape(i));
  return out;
}

// Element `i` of operand 0, which must be a tuple with more than `i`
// elements.
absl::StatusOr<Shape> OperandElement(const InferContext& ctx, int64_t i) {
  const Shape& s = ctx.operand_shape(0);
  if (!s.IsTuple() || s.tuple_shapes_size() <= i) {
    return ctx.Error(HloOpcodeName(ctx.opcode()), " needs a tuple operand with more than ", i,
                     " elements, got ", ShapeStr(s));
  }
  return s.tuple_shapes(i);
}

// The branch computations of a conditional, from branch_computations or
// true_computation/false_computation.
absl::StatusOr<std::vector<const HloComputation*>> Branches(const InferContext& ctx) {
  std::vector<const HloComputation*> out;
  if (ctx.instr().has_attr(AttrId::kBranchComputations)) {
    if (const auto* list = ctx.Attr<std::vector<HloComputation*>>(AttrId::kBranchComputations)) {
      out.assign(list->begin(), list->end());
    } else if (const auto* one = ctx.Attr<HloComputation*>(AttrId::kBranchComputations)) {
      out.push_back(*one);
    }
    if (out.empty()) return ctx.Error("branch_computations must name at least one computation");
    for (const HloComputation* c : out) {
      if (c == nullptr) return ctx.Error("branch_computations has a null entry");
    }
    return out;
  }
  ASSIGN_OR_RETURN(const HloComputation* t, ctx.Called(AttrId::kTrueComputation));
  ASSIGN_OR_RETURN(const HloComputation* f, ctx.Called(AttrId::kFalseComputation));
  return std::vector<const HloComputation*>{t, f};
}

}  // namespace

absl::StatusOr<Shape> InferTuple(const InferContext& ctx) {
  return Shape::Tuple(OperandShapes(ctx));
}

absl::StatusOr<Shape> InferGetTupleElement(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.Require(AttrId::kIndex));
  const int64_t index = ctx.instr().tuple_index();
  const Shape& s = ctx.operand_shape(0);
  if (!s.IsTuple() || index < 0 || index >= s.tuple_shapes_size()) {
    return ctx.Error("index=", index, " is out of range for ", ShapeStr(s));
  }
  return s.tuple_shapes(index);
}

absl::StatusOr<Shape> InferWhile(const InferContext& ctx) {
  const Shape& init = ctx.operand_shape(0);
  ASSIGN_OR_RETURN(const HloComputation* cond, ctx.Called(AttrId::kCondition));
  ASSIGN_OR_RETURN(const HloComputation* body, ctx.Called(AttrId::kBody));
  RETURN_IF_ERROR(CheckParameters(ctx, *cond, "condition", {init}));
  RETURN_IF_ERROR(CheckParameters(ctx, *body, "body", {init}));
  ASSIGN_OR_RETURN(Shape cond_root, RootShape(ctx, *cond));
  if (!cond_root.IsScalar() || cond_root.element_type() != PrimitiveType::PRED) {
    return ctx.Error("condition computation '", cond->name(), "' must return pred[], got ",
                     ShapeStr(cond_root));
  }
  ASSIGN_OR_RETURN(Shape body_root, RootShape(ctx, *body));
  if (!ShapesCompatible(body_root, init, /*ignore_dynamic=*/true)) {
    return ctx.Error("body computation '", body->name(), "' returns ", ShapeStr(body_root),
                     " but the loop state is ", ShapeStr(init));
  }
  return init;
}

absl::StatusOr<Shape> InferConditional(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectOperandCountAtLeast(1));
  ASSIGN_OR_RETURN(std::vector<const HloComputation*> branches, Branches(ctx));
  const Shape& selector = ctx.operand_shape(0);
  const bool indexed = ctx.instr().has_attr(AttrId::kBranchComputations);
  const PrimitiveType want = indexed ? PrimitiveType::S32 : PrimitiveType::PRED;
  if (!selector.IsScalar() || selector.element_type() != want) {
    return ctx.Error("conditional selector must be ", PrimitiveTypeName(want), "[], got ",
                     ShapeStr(selector));
  }
  if (ctx.operand_count() != static_cast<int64_t>(branches.size()) + 1) {
    return ctx.Error("conditional with ", branches.size(), " branches needs ",
                     branches.size() + 1, " operands, got ", ctx.operand_count());
  }
  Shape result;
  for (size_t i = 0; i < branches.size(); ++i) {
    RETURN_IF_ERROR(CheckParameters(ctx, *branches[i], "branch",
                                    {ctx.operand_shape(static_cast<int64_t>(i) + 1)}));
    ASSIGN_OR_RETURN(Shape root, RootShape(ctx, *branches[i]));
    if (i == 0) {
      result = root;
    } else if (!ShapesCompatible(root, result, /*ignore_dynamic=*/true)) {
      return ctx.Error("branch computation '", branches[i]->name(), "' returns ",
                       ShapeStr(root), " but branch 0 returns ", ShapeStr(result));
    }
  }
  return result;
}

absl::StatusOr<Shape> InferCallLike(const InferContext& ctx, AttrId computation_attr) {
  ASSIGN_OR_RETURN(const HloComputation* callee, ctx.Called(computation_attr));
  RETURN_IF_ERROR(CheckParameters(ctx, *callee, AttrName(computation_attr), OperandShapes(ctx)));
  return RootShape(ctx, *callee);
}

absl::StatusOr<Shape> InferAsyncStart(const InferContext& ctx) {
  const HloComputation* callee = ctx.instr().GetComputation(AttrId::kCalls);
  if (callee == nullptr) return ctx.DeclaredOrError();
  RETURN_IF_ERROR(CheckParameters(ctx, *callee, "calls", OperandShapes(ctx)));
  ASSIGN_OR_RETURN(Shape root, RootShape(ctx, *callee));
  std::vector<Shape> elements = {Shape::Tuple(OperandShapes(ctx)), root};
  // Extra context elements (e.g. s32[]) are the producer's choice.
  const Shape* declared = ctx.declared();
  if (declared != nullptr && declared->IsTuple()) {
    for (int64_t i = 2; i < declared->tuple_shapes_size(); ++i) {
      elements.push_back(declared->tuple_shapes(i));
    }
  }
  return Shape::Tuple(elements);
}

absl::StatusOr<Shape> InferAsyncDone(const InferContext& ctx) { return OperandElement(ctx, 1); }

absl::StatusOr<Shape> InferCopyStart(const InferContext& ctx) {
  const Shape& s = ctx.operand_shape(0);
  return Shape::Tuple({s, s, Shape::Scalar(PrimitiveType::U32)});
}

absl::StatusOr<Shape> InferCopyDone(const InferContext& ctx) { return OperandElement(ctx, 0); }

absl::StatusOr<Shape> InferSend(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectToken(1));
  return Shape::Tuple({ctx.operand_shape(0), Shape::Scalar(PrimitiveType::U32), Shape::Token()});
}

absl::StatusOr<Shape> InferSendDone(const InferContext& ctx) {
  RETURN_IF_ERROR(OperandElement(ctx, 2).status());
  return Shape::Token();
}

absl::StatusOr<Shape> InferRecv(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectToken(0));
  ASSIGN_OR_RETURN(Shape out, ctx.DeclaredOrError());
  if (!out.IsTuple() || out.tuple_shapes_size() != 3 || !out.tuple_shapes(2).IsToken()) {
    return ctx.Error("recv result must be (data, u32[], token[]), got ", ShapeStr(out));
  }
  return out;
}

absl::StatusOr<Shape> InferRecvDone(const InferContext& ctx) {
  ASSIGN_OR_RETURN(Shape data, OperandElement(ctx, 0));
  return Shape::Tuple({data, Shape::Token()});
}

absl::StatusOr<Shape> InferInfeed(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectToken(0));
  ASSIGN_OR_RETURN(Shape out, ctx.DeclaredOrError());
  if (!out.IsTuple() || out.tuple_shapes_size() != 2 || !out.tuple_shapes(1).IsToken()) {
    return ctx.Error("infeed result must be (data, token[]), got ", ShapeStr(out));
  }
  return out;
}

absl::StatusOr<Shape> InferOutfeed(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectToken(1));
  const Shape* outfeed_shape = ctx.Attr<Shape>(AttrId::kOutfeedShape);
  if (outfeed_shape != nullptr &&
      !ShapesCompatible(*outfeed_shape, ctx.operand_shape(0), /*ignore_dynamic=*/true)) {
    return ctx.Error("outfeed_shape=", ShapeStr(*outfeed_shape), " does not match operand ",
                     ShapeStr(ctx.operand_shape(0)));
  }
  return Shape::Token();
}

absl::StatusOr<Shape> InferAfterAll(const InferContext& ctx) {
  for (int64_t i = 0; i < ctx.operand_count(); ++i) RETURN_IF_ERROR(ctx.ExpectToken(i));
  return Shape::Token();
}

absl::StatusOr<Shape> InferRng(const InferContext& ctx) {
  if (ctx.operand_count() != 2) {
    return ctx.Error("rng takes 2 operands (the distribution parameters), got ",
                     ctx.operand_count());
  }
  ASSIGN_OR_RETURN(Shape out, ctx.DeclaredOrError());
  if (!out.IsArray()) return ctx.Error("rng result must be an array, got ", ShapeStr(out));
  for (int64_t i = 0; i < 2; ++i) {
    RETURN_IF_ERROR(ctx.ExpectScalar(i));
    if (ctx.operand_shape(i).element_type() != out.element_type()) {
      return ctx.Error("rng parameter ", i, " ", ShapeStr(ctx.operand_shape(i)),
                       " must have the result element type ", PrimitiveTypeName(out.element_type()));
    }
  }
  return out;
}

absl::StatusOr<Shape> InferRngBitGenerator(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  ASSIGN_OR_RETURN(Shape out, ctx.DeclaredOrError());
  if (out.IsTuple()) {
    if (out.tuple_shapes_size() != 2 ||
        !ShapesCompatible(out.tuple_shapes(0), ctx.operand_shape(0), /*ignore_dynamic=*/true)) {
      return ctx.Error("rng-bit-generator result must be (state ",
                       ShapeStr(ctx.operand_shape(0)), ", bits), got ", ShapeStr(out));
    }
  }
  return out;
}

}  // namespace xla::shape_inference_internal
