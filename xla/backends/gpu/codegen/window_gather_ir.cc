#include "xla/backends/gpu/codegen/window_gather_ir.h"

#include <algorithm>
#include <functional>
#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/codegen/convert_ir.h"
#include "xla/backends/gpu/codegen/fusion_kernel_analysis.h"
#include "xla/backends/gpu/codegen/ir_loops.h"
#include "xla/hlo/ir/hlo_attribute.h"
#include "xla/types/primitive_type.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

using Gen = ElementalIrEmitter::ElementGenerator;

bool Contains(absl::Span<const int64_t> list, int64_t x) {
  return std::find(list.begin(), list.end(), x) != list.end();
}

absl::StatusOr<std::vector<WindowDim>> WindowOf(absl::string_view emitter,
                                                const HloInstruction& hlo, size_t rank) {
  const AttrValue* v = hlo.FindAttr(AttrId::kWindow);
  const Window* w = v == nullptr ? nullptr : std::get_if<Window>(v);
  if (w == nullptr || w->dims.size() != rank) {
    return FusionEmitterUnimplemented(emitter, hlo,
                                      absl::StrCat("window missing or not of rank ", rank));
  }
  for (const WindowDim& d : w->dims) {
    if (d.size < 1 || d.stride < 1 || d.lhs_dilate < 1 || d.rhs_dilate < 1) {
      return FusionEmitterUnimplemented(emitter, hlo, "window with a non-positive field");
    }
  }
  return w->dims;
}

// The input position of output position `out` and window tap `tap` in one
// dimension, and an i1 that is true when it lands on an input element
// (not on padding nor between dilated elements).
std::pair<llvm::Value*, llvm::Value*> InputPosition(const WindowDim& w, llvm::Value* out,
                                                    llvm::Value* tap, int64_t in_size,
                                                    llvm::IRBuilder<>* b) {
  llvm::Value* p = b->CreateSub(
      b->CreateAdd(b->CreateMul(out, b->getInt64(w.stride)),
                   b->CreateMul(tap, b->getInt64(w.rhs_dilate))),
      b->getInt64(w.pad_low));
  llvm::Value* inside = b->CreateICmpSGE(p, b->getInt64(0));
  llvm::Value* q = p;
  if (w.lhs_dilate > 1) {
    inside = b->CreateAnd(
        inside, b->CreateICmpEQ(b->CreateURem(p, b->getInt64(w.lhs_dilate)), b->getInt64(0)));
    q = b->CreateUDiv(p, b->getInt64(w.lhs_dilate));
  }
  inside = b->CreateAnd(inside, b->CreateICmpSLT(q, b->getInt64(in_size)));
  // Keep the index in range even where `inside` is false (it is not used
  // there, but generators may assume in-range indices when hoisted).
  q = b->CreateSelect(inside, q, b->getInt64(0));
  return {q, inside};
}

// Loops over the window taps row-major; for each tap whose every dim lands
// on an input element calls body(input positions, taps). `unroll` applies to
// every tap loop.
absl::Status ForEachWindowTap(
    const std::vector<WindowDim>& window, const std::vector<llvm::Value*>& out,
    const std::vector<int64_t>& in_sizes, llvm::IRBuilder<>* b,
    const std::function<absl::Status(const std::vector<llvm::Value*>&,
                                     const std::vector<llvm::Value*>&)>& body,
    LoopUnroll unroll = LoopUnroll::kAuto) {
  std::vector<llvm::Value*> pos(window.size()), taps(window.size());
  std::function<absl::Status(size_t)> level = [&](size_t d) -> absl::Status {
    if (d == window.size()) return body(pos, taps);
    return EmitForLoop(b, b->getInt64(0), b->getInt64(window[d].size), b->getInt64(1),
                       absl::StrCat("tap", d), [&](llvm::Value* t) -> absl::Status {
                         auto [q, inside] = InputPosition(window[d], out[d], t, in_sizes[d], b);
                         pos[d] = q;
                         taps[d] = t;
                         return EmitIfThen(b, inside, [&]() { return level(d + 1); });
                       },
                       unroll);
  };
  return level(0);
}

}  // namespace

namespace {

// A convolution's checked attributes and derived sizes.
struct ConvIr {
  const ConvDimLabels* l = nullptr;
  const HloInstruction* lhs = nullptr;
  const HloInstruction* rhs = nullptr;
  std::vector<WindowDim> window;
  PrimitiveType lt, rt, ot, acc_type;
  bool is_float = false;
  int64_t groups = 1, batch_groups = 1, kernel_in = 0, kernel_out = 0, batch = 0;
};

absl::StatusOr<ConvIr> AnalyzeConv(absl::string_view emitter, const HloInstruction& conv) {
  ConvIr c;
  const AttrValue* v = conv.FindAttr(AttrId::kDimLabels);
  c.l = v == nullptr ? nullptr : std::get_if<ConvDimLabels>(v);
  if (c.l == nullptr || conv.operand_count() != 2) {
    return FusionEmitterUnimplemented(emitter, conv,
                                      "convolution without dim_labels or two operands");
  }
  const ConvDimLabels& l = *c.l;
  c.lhs = conv.operand(0);
  c.rhs = conv.operand(1);
  const Shape& ls = c.lhs->shape();
  const Shape& rs = c.rhs->shape();
  const size_t spatial = l.input_spatial.size();
  if (ls.rank() != static_cast<int64_t>(spatial + 2) || rs.rank() != ls.rank() ||
      l.kernel_spatial.size() != spatial || l.output_spatial.size() != spatial) {
    return FusionEmitterUnimplemented(emitter, conv, "dim_labels do not fit the operands");
  }
  ASSIGN_OR_RETURN(c.window, WindowOf(emitter, conv, spatial));
  c.lt = ls.element_type();
  c.rt = rs.element_type();
  c.ot = conv.shape().element_type();
  if (IsComplex(c.lt) || IsComplex(c.rt) || IsComplex(c.ot)) {
    return FusionEmitterUnimplemented(emitter, conv, "complex convolution");
  }
  c.groups = conv.GetInt(AttrId::kFeatureGroupCount, 1);
  c.batch_groups = conv.GetInt(AttrId::kBatchGroupCount, 1);
  c.kernel_in = rs.dimensions(l.kernel_input_feature);
  c.kernel_out = rs.dimensions(l.kernel_output_feature);
  c.batch = ls.dimensions(l.input_batch);
  if (c.groups < 1 || c.batch_groups < 1 || c.kernel_out % c.groups != 0 ||
      c.kernel_out % c.batch_groups != 0 || c.batch % c.batch_groups != 0 ||
      ls.dimensions(l.input_feature) != c.kernel_in * c.groups) {
    return FusionEmitterUnimplemented(emitter, conv, "feature/batch group counts do not fit");
  }
  c.is_float = IsFloat(c.lt) || IsFloat(c.rt) || IsFloat(c.ot);
  c.acc_type = c.is_float ? PrimitiveType::F64 : PrimitiveType::S64;
  return c;
}

// Accumulates the products of the window at output `index` for features
// [o0, o1) into acc[o - o0] (acc_ir elements). `outer_unroll` applies to the
// loops around the feature loop (window taps, input features).
absl::Status EmitConvAccumulate(const ConvIr& c, const IrIndex& index, llvm::Value* o0,
                                llvm::Value* o1, llvm::Value* acc, const FusedGenerators& gens,
                                LoopUnroll outer_unroll, llvm::IRBuilder<>* b) {
  const ConvDimLabels& l = *c.l;
  const Shape& ls = c.lhs->shape();
  const Shape& rs = c.rhs->shape();
  const size_t spatial = l.input_spatial.size();
  llvm::Type* acc_ir = ElementIrType(c.acc_type, b->getContext());
  std::vector<llvm::Value*> out_pos;
  std::vector<int64_t> in_sizes;
  for (size_t i = 0; i < spatial; ++i) {
    out_pos.push_back(index[l.output_spatial[i]]);
    in_sizes.push_back(ls.dimensions(l.input_spatial[i]));
  }
  const Gen& lhs_gen = gens.at(c.lhs);
  const Gen& rhs_gen = gens.at(c.rhs);
  // The input element for feature o (group) and kernel input feature ki.
  auto read_x = [&](llvm::Value* o, llvm::Value* ki,
                    const std::vector<llvm::Value*>& pos) -> absl::StatusOr<llvm::Value*> {
    llvm::Value* fg = c.groups == 1 ? b->getInt64(0)
                                    : b->CreateUDiv(o, b->getInt64(c.kernel_out / c.groups));
    llvm::Value* n = index[l.output_batch];
    if (c.batch_groups > 1) {
      llvm::Value* bg = b->CreateUDiv(o, b->getInt64(c.kernel_out / c.batch_groups));
      n = b->CreateAdd(b->CreateMul(bg, b->getInt64(c.batch / c.batch_groups)), n);
    }
    std::vector<llvm::Value*> li(ls.rank());
    li[l.input_batch] = n;
    li[l.input_feature] = b->CreateAdd(b->CreateMul(fg, b->getInt64(c.kernel_in)), ki);
    for (size_t i = 0; i < spatial; ++i) li[l.input_spatial[i]] = pos[i];
    ASSIGN_OR_RETURN(llvm::Value * x, lhs_gen(IrIndex(li, ls.dimensions())));
    return EmitConvert(c.lt, c.acc_type, x, b);
  };
  const bool x_per_feature = c.groups > 1 || c.batch_groups > 1;
  return ForEachWindowTap(
      c.window, out_pos, in_sizes, b,
      [&](const std::vector<llvm::Value*>& pos,
          const std::vector<llvm::Value*>& taps) -> absl::Status {
        return EmitForLoop(
            b, b->getInt64(0), b->getInt64(c.kernel_in), b->getInt64(1), "conv_i",
            [&](llvm::Value* ki) -> absl::Status {
              llvm::Value* shared_x = nullptr;
              if (!x_per_feature) {
                ASSIGN_OR_RETURN(shared_x, read_x(o0, ki, pos));
              }
              return EmitForLoop(
                  b, o0, o1, b->getInt64(1), "conv_o", [&](llvm::Value* o) -> absl::Status {
                    llvm::Value* x = shared_x;
                    if (x == nullptr) {
                      ASSIGN_OR_RETURN(x, read_x(o, ki, pos));
                    }
                    std::vector<llvm::Value*> ri(rs.rank());
                    ri[l.kernel_output_feature] = o;
                    ri[l.kernel_input_feature] = ki;
                    for (size_t i = 0; i < spatial; ++i) {
                      const WindowDim& w = c.window[i];
                      ri[l.kernel_spatial[i]] =
                          w.reversal ? b->CreateSub(b->getInt64(w.size - 1), taps[i]) : taps[i];
                    }
                    ASSIGN_OR_RETURN(llvm::Value * y, rhs_gen(IrIndex(ri, rs.dimensions())));
                    y = EmitConvert(c.rt, c.acc_type, y, b);
                    llvm::Value* slot = b->CreateInBoundsGEP(acc_ir, acc, b->CreateSub(o, o0));
                    llvm::Value* sum = b->CreateLoad(acc_ir, slot);
                    sum = c.is_float ? b->CreateFAdd(sum, b->CreateFMul(x, y))
                                     : b->CreateAdd(sum, b->CreateMul(x, y));
                    b->CreateStore(sum, slot);
                    return absl::OkStatus();
                  });
            },
            outer_unroll);
      },
      outer_unroll);
}

}  // namespace

absl::StatusOr<llvm::Value*> EmitConvolutionElement(absl::string_view emitter,
                                                    const HloInstruction& conv,
                                                    const IrIndex& index,
                                                    const FusedGenerators& gens,
                                                    llvm::IRBuilder<>* b) {
  ASSIGN_OR_RETURN(const ConvIr c, AnalyzeConv(emitter, conv));
  llvm::Type* acc_ir = ElementIrType(c.acc_type, b->getContext());
  llvm::AllocaInst* acc = EmitEntryAlloca(b, acc_ir, nullptr, "conv_acc");
  b->CreateStore(llvm::Constant::getNullValue(acc_ir), acc);
  llvm::Value* o = index[c.l->output_feature];
  RETURN_IF_ERROR(EmitConvAccumulate(c, index, o, b->CreateAdd(o, b->getInt64(1)), acc, gens,
                                     LoopUnroll::kAuto, b));
  return EmitConvert(c.acc_type, c.ot, b->CreateLoad(acc_ir, acc), b);
}

absl::Status EmitConvolutionFeatureBlock(
    absl::string_view emitter, const HloInstruction& conv, const IrIndex& index,
    llvm::Value* o0, llvm::Value* o1, int64_t max_block, const FusedGenerators& gens,
    llvm::IRBuilder<>* b, const std::function<absl::Status(llvm::Value*, llvm::Value*)>& write) {
  ASSIGN_OR_RETURN(const ConvIr c, AnalyzeConv(emitter, conv));
  llvm::Type* acc_ir = ElementIrType(c.acc_type, b->getContext());
  llvm::AllocaInst* acc = EmitEntryAlloca(b, acc_ir, b->getInt64(max_block), "conv_acc");
  RETURN_IF_ERROR(EmitForLoop(b, o0, o1, b->getInt64(1), "conv_zero", [&](llvm::Value* o) {
    b->CreateStore(llvm::Constant::getNullValue(acc_ir),
                   b->CreateInBoundsGEP(acc_ir, acc, b->CreateSub(o, o0)));
    return absl::OkStatus();
  }));
  // The feature loop inside vectorizes; unrolling the short window and
  // input-feature loops around it would only copy it (a depthwise 3x3
  // kernel: 9 vectorized loops and their remainders, 4-5x the LLVM time).
  RETURN_IF_ERROR(
      EmitConvAccumulate(c, index, o0, o1, acc, gens, LoopUnroll::kDisabled, b));
  return EmitForLoop(b, o0, o1, b->getInt64(1), "conv_out", [&](llvm::Value* o) {
    llvm::Value* sum = b->CreateLoad(acc_ir, b->CreateInBoundsGEP(acc_ir, acc, b->CreateSub(o, o0)));
    return write(o, EmitConvert(c.acc_type, c.ot, sum, b));
  });
}

absl::StatusOr<std::vector<llvm::Value*>> EmitReduceWindowElement(
    absl::string_view emitter, const HloInstruction& rw, const IrIndex& index,
    const FusedGenerators& gens, ElementalIrEmitter& elemental, llvm::IRBuilder<>* b) {
  const int64_t n = rw.operand_count() / 2;
  if (n < 1 || rw.operand_count() != 2 * n || rw.to_apply() == nullptr) {
    return FusionEmitterUnimplemented(emitter, rw, "malformed reduce-window");
  }
  const Shape& in = rw.operand(0)->shape();
  ASSIGN_OR_RETURN(std::vector<WindowDim> window,
                   WindowOf(emitter, rw, static_cast<size_t>(in.rank())));
  std::vector<llvm::AllocaInst*> acc;
  std::vector<llvm::Type*> types;
  for (int64_t k = 0; k < n; ++k) {
    const PrimitiveType t = rw.operand(n + k)->shape().element_type();
    if (IsComplex(t)) return FusionEmitterUnimplemented(emitter, rw, "complex reduce-window");
    types.push_back(ElementIrType(t, b->getContext()));
    acc.push_back(EmitEntryAlloca(b, types.back(), nullptr, "rw_acc"));
    ASSIGN_OR_RETURN(llvm::Value * init, gens.at(rw.operand(n + k))(IrIndex()));
    b->CreateStore(init, acc.back());
  }
  RETURN_IF_ERROR(ForEachWindowTap(
      window, index.multidim(), in.dimensions(), b,
      [&](const std::vector<llvm::Value*>& pos, const std::vector<llvm::Value*>&) -> absl::Status {
        std::vector<llvm::Value*> cur, xs;
        for (int64_t k = 0; k < n; ++k) {
          cur.push_back(b->CreateLoad(types[k], acc[k]));
          ASSIGN_OR_RETURN(llvm::Value * x,
                           gens.at(rw.operand(k))(IrIndex(pos, rw.operand(k)->shape().dimensions())));
          xs.push_back(x);
        }
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> next,
                         EmitReducerCombine(emitter, rw, cur, xs, elemental));
        for (int64_t k = 0; k < n; ++k) b->CreateStore(next[k], acc[k]);
        return absl::OkStatus();
      }));
  std::vector<llvm::Value*> values;
  for (int64_t k = 0; k < n; ++k) values.push_back(b->CreateLoad(types[k], acc[k]));
  return values;
}

absl::Status EmitSelectAndScatterSelection(
    absl::string_view emitter, const HloInstruction& sas, const IrIndex& source_index,
    const FusedGenerators& gens, ElementalIrEmitter& elemental, llvm::IRBuilder<>* b,
    const std::function<absl::Status(const IrIndex&)>& selected) {
  const HloComputation* select = sas.GetComputation(AttrId::kSelect);
  if (sas.operand_count() != 3 || select == nullptr) {
    return FusionEmitterUnimplemented(emitter, sas, "malformed select-and-scatter");
  }
  const Shape& in = sas.operand(0)->shape();
  if (IsComplex(in.element_type())) {
    return FusionEmitterUnimplemented(emitter, sas, "complex select-and-scatter");
  }
  ASSIGN_OR_RETURN(std::vector<WindowDim> window,
                   WindowOf(emitter, sas, static_cast<size_t>(in.rank())));
  llvm::Type* value_type = ElementIrType(in.element_type(), b->getContext());
  llvm::AllocaInst* found = EmitEntryAlloca(b, b->getInt1Ty(), nullptr, "sas_found");
  llvm::AllocaInst* value = EmitEntryAlloca(b, value_type, nullptr, "sas_value");
  llvm::AllocaInst* position =
      EmitEntryAlloca(b, b->getInt64Ty(), b->getInt64(std::max<int64_t>(1, in.rank())), "sas_pos");
  b->CreateStore(b->getFalse(), found);
  auto store_selection = [&](const std::vector<llvm::Value*>& pos, llvm::Value* x) {
    b->CreateStore(b->getTrue(), found);
    b->CreateStore(x, value);
    for (size_t d = 0; d < pos.size(); ++d) {
      b->CreateStore(pos[d], b->CreateConstInBoundsGEP1_64(b->getInt64Ty(), position, d));
    }
  };
  RETURN_IF_ERROR(ForEachWindowTap(
      window, source_index.multidim(), in.dimensions(), b,
      [&](const std::vector<llvm::Value*>& pos, const std::vector<llvm::Value*>&) -> absl::Status {
        ASSIGN_OR_RETURN(llvm::Value * x, gens.at(sas.operand(0))(IrIndex(pos, in.dimensions())));
        llvm::Value* have = b->CreateLoad(b->getInt1Ty(), found);
        // Replace when nothing is selected yet or select(current, x) is false.
        llvm::Function* f = b->GetInsertBlock()->getParent();
        llvm::BasicBlock* compare = llvm::BasicBlock::Create(b->getContext(), "sas_compare", f);
        llvm::BasicBlock* replace = llvm::BasicBlock::Create(b->getContext(), "sas_replace", f);
        llvm::BasicBlock* next = llvm::BasicBlock::Create(b->getContext(), "sas_next", f);
        b->CreateCondBr(have, compare, replace);
        b->SetInsertPoint(compare);
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> keep,
                         EmitScalarComputation(emitter, *select,
                                               {b->CreateLoad(value_type, value), x}, elemental));
        if (keep.size() != 1) {
          return FusionEmitterUnimplemented(emitter, sas, "select must return one pred");
        }
        b->CreateCondBr(b->CreateICmpNE(keep[0], llvm::ConstantInt::get(keep[0]->getType(), 0)),
                        next, replace);
        b->SetInsertPoint(replace);
        store_selection(pos, x);
        b->CreateBr(next);
        b->SetInsertPoint(next);
        return absl::OkStatus();
      }));
  return EmitIfThen(b, b->CreateLoad(b->getInt1Ty(), found), [&]() -> absl::Status {
    std::vector<llvm::Value*> pos;
    for (int64_t d = 0; d < in.rank(); ++d) {
      pos.push_back(b->CreateLoad(b->getInt64Ty(),
                                  b->CreateConstInBoundsGEP1_64(b->getInt64Ty(), position, d)));
    }
    return selected(IrIndex(pos, in.dimensions()));
  });
}

absl::StatusOr<llvm::Value*> EmitGatherElement(absl::string_view emitter,
                                               const HloInstruction& gather,
                                               const IrIndex& index,
                                               const FusedGenerators& gens,
                                               llvm::IRBuilder<>* b) {
  if (gather.operand_count() != 2) {
    return FusionEmitterUnimplemented(emitter, gather, "gather needs two operands");
  }
  const Shape& os = gather.operand(0)->shape();
  const Shape& is = gather.operand(1)->shape();
  const std::vector<int64_t>& offset_dims = gather.GetIntList(AttrId::kOffsetDims);
  const std::vector<int64_t>& collapsed = gather.GetIntList(AttrId::kCollapsedSliceDims);
  const std::vector<int64_t>& start_map = gather.GetIntList(AttrId::kStartIndexMap);
  const std::vector<int64_t>& slice_sizes = gather.GetIntList(AttrId::kSliceSizes);
  const std::vector<int64_t>& op_batching = gather.GetIntList(AttrId::kOperandBatchingDims);
  const std::vector<int64_t>& idx_batching =
      gather.GetIntList(AttrId::kStartIndicesBatchingDims);
  const int64_t ivd = gather.GetInt(AttrId::kIndexVectorDim, is.rank());
  const PrimitiveType it = is.element_type();
  if (ivd < 0 || ivd > is.rank() || static_cast<int64_t>(slice_sizes.size()) != os.rank() ||
      op_batching.size() != idx_batching.size() || !IsInteger(it)) {
    return FusionEmitterUnimplemented(emitter, gather, "malformed gather dimension numbers");
  }
  const int64_t vector_size = ivd == is.rank() ? 1 : is.dimensions(ivd);
  if (static_cast<int64_t>(start_map.size()) != vector_size) {
    return FusionEmitterUnimplemented(emitter, gather, "start_index_map size mismatch");
  }
  // Output dims: offset dims index the window, the others the batch.
  std::vector<llvm::Value*> batch, offset;
  for (int64_t d = 0; d < index.rank(); ++d) {
    (Contains(offset_dims, d) ? offset : batch).push_back(index[d]);
  }
  std::vector<int64_t> index_batch_dims;
  for (int64_t d = 0; d < is.rank(); ++d) {
    if (d != ivd) index_batch_dims.push_back(d);
  }
  std::vector<int64_t> window_dims;
  for (int64_t d = 0; d < os.rank(); ++d) {
    if (!Contains(collapsed, d) && !Contains(op_batching, d)) window_dims.push_back(d);
  }
  if (batch.size() != index_batch_dims.size() || offset.size() != window_dims.size()) {
    return FusionEmitterUnimplemented(emitter, gather, "gather output rank does not fit");
  }
  const Gen& indices = gens.at(gather.operand(1));
  std::vector<llvm::Value*> in(os.rank(), b->getInt64(0));
  for (int64_t k = 0; k < vector_size; ++k) {
    std::vector<llvm::Value*> ii(is.rank());
    for (size_t j = 0; j < index_batch_dims.size(); ++j) ii[index_batch_dims[j]] = batch[j];
    if (ivd < is.rank()) ii[ivd] = b->getInt64(k);
    ASSIGN_OR_RETURN(llvm::Value * raw, indices(IrIndex(ii, is.dimensions())));
    llvm::Value* s = IsSignedInt(it) ? b->CreateSExtOrTrunc(raw, b->getInt64Ty())
                                     : b->CreateZExtOrTrunc(raw, b->getInt64Ty());
    const int64_t d = start_map[k];
    if (d < 0 || d >= os.rank()) {
      return FusionEmitterUnimplemented(emitter, gather, "start_index_map out of range");
    }
    const int64_t hi = std::max<int64_t>(0, os.dimensions(d) - slice_sizes[d]);
    llvm::Value* lo_clamped = b->CreateSelect(b->CreateICmpSLT(s, b->getInt64(0)),
                                              b->getInt64(0), s);
    // An unsigned index above INT64_MAX reads as negative: clamp it high.
    if (!IsSignedInt(it) && ByteWidth(it) == 8) {
      lo_clamped = b->CreateSelect(b->CreateICmpSLT(s, b->getInt64(0)), b->getInt64(hi),
                                   lo_clamped);
    }
    in[d] = b->CreateSelect(b->CreateICmpSGT(lo_clamped, b->getInt64(hi)), b->getInt64(hi),
                            lo_clamped);
  }
  for (size_t i = 0; i < op_batching.size(); ++i) {
    const auto pos = std::find(index_batch_dims.begin(), index_batch_dims.end(), idx_batching[i]);
    if (pos == index_batch_dims.end()) {
      return FusionEmitterUnimplemented(emitter, gather, "bad start_indices_batching_dims");
    }
    in[op_batching[i]] = batch[pos - index_batch_dims.begin()];
  }
  for (size_t k = 0; k < window_dims.size(); ++k) {
    in[window_dims[k]] = b->CreateAdd(in[window_dims[k]], offset[k]);
  }
  return gens.at(gather.operand(0))(IrIndex(in, os.dimensions()));
}

}  // namespace xla::gpu
