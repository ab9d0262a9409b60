#include "xla/backends/gpu/codegen/host/lane_reduce_ir.h"

#include <algorithm>
#include <limits>

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "xla/backends/gpu/codegen/fusion_kernel_analysis.h"
#include "xla/backends/gpu/codegen/ir_loops.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/types/primitive_type.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// The reducer on vectors, lane by lane, with the elemental emitter's scalar
// semantics (elemental_ir_emitter.cc): IEEE add and multiply; maximum and
// minimum return a NaN operand (the accumulator's first), and order -0
// below +0.
using VectorCombine = llvm::Value* (*)(llvm::Value* acc, llvm::Value* x, llvm::IRBuilder<>* b);

llvm::Value* SignBitSet(llvm::Value* v, llvm::IRBuilder<>* b) {
  auto* type = llvm::cast<llvm::VectorType>(v->getType());
  llvm::Type* bits = llvm::VectorType::get(
      b->getIntNTy(type->getScalarSizeInBits()), type->getElementCount());
  return b->CreateICmpSLT(b->CreateBitCast(v, bits), llvm::Constant::getNullValue(bits));
}

// `acc` wins when it is NaN, else when x is not NaN and acc `beats` x (or
// ties with the sign rule `zero_rule`).
llvm::Value* PickAccOrX(llvm::Value* acc, llvm::Value* x, llvm::Value* beats,
                        llvm::Value* zero_rule, llvm::IRBuilder<>* b) {
  llvm::Value* wins = b->CreateOr(beats, b->CreateAnd(b->CreateFCmpOEQ(acc, x), zero_rule));
  llvm::Value* pick = b->CreateOr(b->CreateFCmpUNO(acc, acc), b->CreateAnd(b->CreateFCmpORD(x, x), wins));
  return b->CreateSelect(pick, acc, x);
}

llvm::Value* VAdd(llvm::Value* acc, llvm::Value* x, llvm::IRBuilder<>* b) {
  return b->CreateFAdd(acc, x);
}
llvm::Value* VMul(llvm::Value* acc, llvm::Value* x, llvm::IRBuilder<>* b) {
  return b->CreateFMul(acc, x);
}
llvm::Value* VMax(llvm::Value* acc, llvm::Value* x, llvm::IRBuilder<>* b) {
  // A tie (+0 vs -0) keeps acc unless acc is -0 and x is +0.
  llvm::Value* rule = b->CreateOr(b->CreateNot(SignBitSet(acc, b)), SignBitSet(x, b));
  return PickAccOrX(acc, x, b->CreateFCmpOGT(acc, x), rule, b);
}
llvm::Value* VMin(llvm::Value* acc, llvm::Value* x, llvm::IRBuilder<>* b) {
  llvm::Value* rule = b->CreateOr(SignBitSet(acc, b), b->CreateNot(SignBitSet(x, b)));
  return PickAccOrX(acc, x, b->CreateFCmpOLT(acc, x), rule, b);
}

// A reassociable reducer, its exact identity (op(identity, x) == x for
// every x, signed zeros and NaN included) and its vector form.
struct ReducerEntry {
  HloOpcode opcode;
  double identity;
  VectorCombine combine;
};

constexpr ReducerEntry kReducers[] = {
    {HloOpcode::kAdd, -0.0, VAdd},
    {HloOpcode::kMultiply, 1.0, VMul},
    {HloOpcode::kMaximum, -std::numeric_limits<double>::infinity(), VMax},
    {HloOpcode::kMinimum, std::numeric_limits<double>::infinity(), VMin},
};

const ReducerEntry* FindReducer(HloOpcode opcode) {
  for (const ReducerEntry& e : kReducers) {
    if (e.opcode == opcode) return &e;
  }
  return nullptr;
}

bool IsParameter(const HloInstruction* instr, int64_t number) {
  return instr->opcode() == HloOpcode::kParameter && instr->parameter_number() == number;
}

}  // namespace

std::optional<HloOpcode> ReassociableReducer(const HloInstruction& reduce) {
  if (reduce.opcode() != HloOpcode::kReduce || reduce.operand_count() != 2 ||
      reduce.to_apply() == nullptr || !reduce.shape().IsArray()) {
    return std::nullopt;
  }
  const PrimitiveType type = reduce.shape().element_type();
  if (type != PrimitiveType::F32 && type != PrimitiveType::F64) return std::nullopt;
  if (reduce.operand(0)->shape().element_type() != type) return std::nullopt;
  const HloInstruction* root = reduce.to_apply()->root_instruction();
  if (root == nullptr || FindReducer(root->opcode()) == nullptr || root->operand_count() != 2 ||
      root->shape().element_type() != type) {
    return std::nullopt;
  }
  const bool in_order = IsParameter(root->operand(0), 0) && IsParameter(root->operand(1), 1);
  const bool swapped = IsParameter(root->operand(0), 1) && IsParameter(root->operand(1), 0);
  if (!in_order && !swapped) return std::nullopt;
  return root->opcode();
}

int64_t ReductionLanes(const HloInstruction& reduce, int64_t vector_bytes) {
  if (!ReassociableReducer(reduce).has_value()) return 0;
  const int64_t lanes = vector_bytes / ByteWidth(reduce.shape().element_type());
  return lanes >= 2 ? lanes : 0;
}

absl::StatusOr<std::vector<llvm::Value*>> EmitLaneReduce(absl::string_view emitter,
                                                         const HloInstruction& reduce,
                                                         const IrIndex& index,
                                                         const FusedGenerators& gens,
                                                         ElementalIrEmitter& elemental,
                                                         llvm::IRBuilder<>* b, int64_t lanes,
                                                         int64_t vectors) {
  auto sequential = [&]() {
    return EmitSequentialReduce(emitter, reduce, index, gens, elemental, b);
  };
  const std::optional<HloOpcode> opcode = ReassociableReducer(reduce);
  if (lanes < 2 || !opcode.has_value()) return sequential();
  const std::vector<int64_t>& in_dims = reduce.operand(0)->shape().dimensions();
  const std::vector<int64_t> red = SortedReduceDims(reduce);
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  const int64_t kept = rank - static_cast<int64_t>(red.size());
  if (kept < 0 || static_cast<int64_t>(index.multidim().size()) != kept) return sequential();
  std::vector<int64_t> col_dims;
  int64_t cols = 1;
  for (size_t p = 0; p < red.size(); ++p) {
    if (red[p] != kept + static_cast<int64_t>(p)) return sequential();  // not trailing
    col_dims.push_back(in_dims[red[p]]);
    cols *= in_dims[red[p]];
  }
  if (cols < lanes) return sequential();

  ASSIGN_OR_RETURN(std::vector<llvm::Value*> inits, EmitReduceInits(emitter, reduce, gens));
  llvm::Type* type = inits[0]->getType();
  const HloInstruction* input = reduce.operand(0);
  // The input element at linear position `c` of the row.
  auto element = [&](llvm::Value* c) -> absl::StatusOr<llvm::Value*> {
    std::vector<llvm::Value*> at = index.multidim();
    if (col_dims.size() == 1) {
      at.push_back(c);  // no udiv/urem: keeps the lanes' addresses visibly consecutive
    } else {
      const IrIndex col = IrIndex::FromLinear(c, col_dims, b);
      at.insert(at.end(), col.multidim().begin(), col.multidim().end());
    }
    return gens.at(input)(IrIndex(at, in_dims));
  };
  auto combine = [&](llvm::Value* acc, llvm::Value* x) -> absl::StatusOr<llvm::Value*> {
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> next,
                     EmitReducerCombine(emitter, reduce, {acc}, {x}, elemental));
    return next[0];
  };

  // `vectors` vectors of `lanes` accumulators: lane 0 of the first starts
  // at the init value, every other lane at the identity. Chunk j of `lanes`
  // elements goes to vector j mod `vectors`, so the vectors' chains are
  // independent.
  const ReducerEntry& entry = *FindReducer(*opcode);
  vectors = std::max<int64_t>(1, std::min(vectors, cols / lanes));
  const int64_t step = lanes * vectors;
  llvm::Type* vector_type = llvm::FixedVectorType::get(type, static_cast<unsigned>(lanes));
  llvm::Value* start = llvm::ConstantVector::getSplat(
      llvm::ElementCount::getFixed(static_cast<unsigned>(lanes)),
      llvm::ConstantFP::get(type, entry.identity));
  std::vector<llvm::AllocaInst*> accs;
  for (int64_t v = 0; v < vectors; ++v) {
    accs.push_back(EmitEntryAlloca(b, vector_type, nullptr, "lane_acc"));
    b->CreateStore(v == 0 ? b->CreateInsertElement(start, inits[0], b->getInt64(0)) : start,
                   accs.back());
  }
  const int64_t chunks = cols / step;
  RETURN_IF_ERROR(EmitForLoop(
      b, b->getInt64(0), b->getInt64(chunks), b->getInt64(1), "vr",
      [&](llvm::Value* k) -> absl::Status {
        llvm::Value* base = b->CreateMul(k, b->getInt64(step), "", /*HasNUW=*/true,
                                         /*HasNSW=*/true);
        for (int64_t v = 0; v < vectors; ++v) {
          // The lanes' elements, in order: the SLP vectorizer widens their
          // computation (loads, the fused element-wise ops) from this
          // build-vector.
          llvm::Value* xs = llvm::PoisonValue::get(vector_type);
          for (int64_t l = 0; l < lanes; ++l) {
            llvm::Value* c = b->CreateAdd(base, b->getInt64(v * lanes + l), "", true, true);
            ASSIGN_OR_RETURN(llvm::Value * x, element(c));
            xs = b->CreateInsertElement(xs, x, b->getInt64(l));
          }
          b->CreateStore(entry.combine(b->CreateLoad(vector_type, accs[v]), xs, b), accs[v]);
        }
        return absl::OkStatus();
      }));
  // The vectors pairwise, lane by lane ((v0 op v1), (v2 op v3), ...), then
  // the lanes pairwise: (l0 op l1), (l2 op l3), ... then the pairs' results
  // likewise.
  std::vector<llvm::Value*> vector_level;
  for (llvm::AllocaInst* acc : accs) vector_level.push_back(b->CreateLoad(vector_type, acc));
  while (vector_level.size() > 1) {
    std::vector<llvm::Value*> up;
    for (size_t i = 0; i + 1 < vector_level.size(); i += 2) {
      up.push_back(entry.combine(vector_level[i], vector_level[i + 1], b));
    }
    if (vector_level.size() % 2 == 1) up.push_back(vector_level.back());
    vector_level = std::move(up);
  }
  llvm::Value* lanes_value = vector_level[0];
  std::vector<llvm::Value*> level;
  for (int64_t l = 0; l < lanes; ++l) {
    level.push_back(b->CreateExtractElement(lanes_value, b->getInt64(l)));
  }
  while (level.size() > 1) {
    std::vector<llvm::Value*> up;
    for (size_t i = 0; i + 1 < level.size(); i += 2) {
      ASSIGN_OR_RETURN(llvm::Value * v, combine(level[i], level[i + 1]));
      up.push_back(v);
    }
    if (level.size() % 2 == 1) up.push_back(level.back());
    level = std::move(up);
  }
  llvm::AllocaInst* result = EmitEntryAlloca(b, type, nullptr, "lane_result");
  b->CreateStore(level[0], result);
  if (cols % step != 0) {
    RETURN_IF_ERROR(EmitForLoop(b, b->getInt64(chunks * step), b->getInt64(cols),
                                b->getInt64(1), "vt", [&](llvm::Value* c) -> absl::Status {
                                  ASSIGN_OR_RETURN(llvm::Value * x, element(c));
                                  ASSIGN_OR_RETURN(llvm::Value * next,
                                                   combine(b->CreateLoad(type, result), x));
                                  b->CreateStore(next, result);
                                  return absl::OkStatus();
                                }));
  }
  return std::vector<llvm::Value*>{b->CreateLoad(type, result)};
}

}  // namespace xla::gpu
