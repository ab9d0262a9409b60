#include "xla/backends/gpu/codegen/host/host_fusion_emitter.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <utility>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "llvm/IR/Attributes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "xla/backends/gpu/codegen/elemental_ir_emitter.h"
#include "xla/backends/gpu/codegen/fusion_kernel_analysis.h"
#include "xla/backends/gpu/codegen/host/host_math_emitter.h"
#include "xla/backends/gpu/codegen/host/lane_reduce_ir.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/backends/gpu/codegen/ir_loops.h"
#include "xla/backends/gpu/codegen/reduction_ir.h"
#include "xla/backends/gpu/codegen/update_index_ir.h"
#include "xla/backends/gpu/codegen/window_gather_ir.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/types/primitive_type.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

using Gen = ElementalIrEmitter::ElementGenerator;
using IndexFn = std::function<absl::Status(const IrIndex&)>;

int64_t Product(absl::Span<const int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

int64_t CeilDiv(int64_t a, int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

constexpr absl::string_view kEmitter = "host";

// Convolution kernels: most output features per block (f64 accumulators on
// the stack, the vectorized inner loop).
constexpr int64_t kConvFeatureChunk = 128;

absl::Status Unimplemented(const HloInstruction* hlo, absl::string_view why) {
  return FusionEmitterUnimplemented(kEmitter, *hlo, why);
}

// Element-wise opcodes costly enough per element (a polynomial, a divide
// or a loop) that a second pass should read their value, not recompute it.
constexpr HloOpcode kExpensiveElementwise[] = {
    HloOpcode::kExp,  HloOpcode::kExpm1,    HloOpcode::kLog,   HloOpcode::kLog1p,
    HloOpcode::kTanh, HloOpcode::kLogistic, HloOpcode::kPower, HloOpcode::kErf,
    HloOpcode::kSin,  HloOpcode::kCos,      HloOpcode::kTan,   HloOpcode::kAtan2,
    HloOpcode::kCbrt,
};

// Whether some instruction of `root`'s fused expression, not looking
// inside reductions (a reduction itself is visited), satisfies `found`.
// Each instruction is visited once: fused DAGs share subexpressions.
bool AnyOutsideReductions(const HloInstruction* root,
                          const std::function<bool(const HloInstruction*)>& found) {
  absl::flat_hash_set<const HloInstruction*> seen{root};
  std::vector<const HloInstruction*> stack{root};
  while (!stack.empty()) {
    const HloInstruction* instr = stack.back();
    stack.pop_back();
    if (found(instr)) return true;
    if (instr->opcode() == HloOpcode::kReduce) continue;
    for (const HloInstruction* operand : instr->operands()) {
      if (seen.insert(operand).second) stack.push_back(operand);
    }
  }
  return false;
}

bool IsExpensiveElementwise(const HloInstruction* instr) {
  for (HloOpcode op : kExpensiveElementwise) {
    if (instr->opcode() == op) return true;
  }
  return false;
}

// Row kernels: the input of the row's last reduction when the output pass
// (`full_roots`, the leaves written per element) needs it again and it is
// expensive to recompute (softmax's exp(x - max), which the output divides
// by the sum): the reduction then stores each value in a row-sized stack
// buffer and the output pass loads it, one transcendental per element
// instead of two. The values are the same either way (the generator is
// pure). Only single-value reductions over the whole input shape, and rows
// of at most `max_bytes`.
const HloInstruction* RowCacheCandidate(const std::vector<const HloInstruction*>& reduces,
                                        const std::vector<const HloInstruction*>& full_roots,
                                        const std::vector<int64_t>& input_dims, int64_t cols,
                                        int64_t max_bytes) {
  if (reduces.empty() || full_roots.empty() || reduces.back()->operand_count() != 2) {
    return nullptr;
  }
  const HloInstruction* input = reduces.back()->operand(0);
  if (!input->shape().IsArray() || input->shape().dimensions() != input_dims ||
      cols * ByteWidth(input->shape().element_type()) > max_bytes ||
      !AnyOutsideReductions(input, IsExpensiveElementwise)) {
    return nullptr;
  }
  for (const HloInstruction* root : full_roots) {
    if (AnyOutsideReductions(root, [input](const HloInstruction* i) { return i == input; })) {
      return input;
    }
  }
  return nullptr;
}

// A contiguous range of blocks and the code of one of its blocks.
struct Segment {
  int64_t blocks = 0;
  std::function<absl::Status(llvm::Value* block)> emit;
};

class FusionEmitter {
 public:
  FusionEmitter(const HloInstruction& fusion, const HostEmitOptions& options,
                llvm::Module* module)
      : fusion_(fusion),
        options_(options),
        module_(module),
        ctx_(module->getContext()),
        b_(ctx_),
        elemental_(module, &b_, &GetHostMathEmitter()) {}

  absl::StatusOr<HostKernelInfo> Run(const std::string& symbol);

 private:
  // Setup.
  absl::Status CreateFunctions(const std::string& symbol);
  absl::Status BuildGenerators();
  absl::StatusOr<std::vector<Segment>> Plan();

  // Plans per kind.
  std::vector<Segment> PlanElementwise(std::vector<int64_t> dims, int64_t bytes_per_element,
                                       std::function<absl::Status()> prologue, IndexFn body);
  Segment PlanTiled(std::vector<int64_t> dims, int64_t tiled_dim, IndexFn body);
  Segment PlanRows(int64_t kept, std::vector<int64_t> input_dims);
  Segment PlanColumns(std::vector<int64_t> input_dims);
  absl::StatusOr<Segment> PlanScatter(bool in_place);
  Segment PlanDusInPlace();
  absl::StatusOr<Segment> PlanSort();
  absl::StatusOr<Segment> PlanSelectAndScatter();
  absl::StatusOr<Segment> PlanConvolution();
  std::vector<Segment> PlanLoop(bool same_dims);
  // Writes every output leaf at the index.
  IndexFn AllLeavesBody() {
    std::vector<int64_t> all;
    for (size_t k = 0; k < leaves_.size(); ++k) all.push_back(static_cast<int64_t>(k));
    return [this, all](const IrIndex& i) { return WriteLeaves(all, i); };
  }

  // IR helpers.
  absl::Status EmitLoop(llvm::Value* lo, llvm::Value* hi, const std::string& name,
                        const std::function<absl::Status(llvm::Value*)>& body) {
    return EmitForLoop(&b_, lo, hi, b_.getInt64(1), name, body);
  }
  absl::Status EmitLoop(int64_t lo, int64_t hi, const std::string& name,
                        const std::function<absl::Status(llvm::Value*)>& body) {
    return EmitLoop(b_.getInt64(lo), b_.getInt64(hi), name, body);
  }
  absl::Status EmitNestedLoops(const std::vector<int64_t>& dims, const IndexFn& body);
  absl::Status EmitIf(llvm::Value* cond, const std::function<absl::Status()>& then) {
    return EmitIfThen(&b_, cond, then);
  }
  llvm::AllocaInst* EntryAlloca(llvm::Type* type, int64_t count, const std::string& name) {
    return EmitEntryAlloca(&b_, type, b_.getInt64(count), name);
  }
  llvm::Value* Min(llvm::Value* a, llvm::Value* b) {
    return b_.CreateSelect(b_.CreateICmpSLT(a, b), a, b);
  }

  // Values.
  absl::StatusOr<std::vector<llvm::Value*>> EmitComputation(
      const HloComputation* computation, const std::vector<llvm::Value*>& args) {
    return EmitScalarComputation(kEmitter, *computation, args, elemental_);
  }
  absl::StatusOr<std::vector<llvm::Value*>> ReduceValues(const HloInstruction* reduce,
                                                         const IrIndex& index);
  absl::StatusOr<std::vector<llvm::Value*>> EmitGenericReduce(const HloInstruction* reduce,
                                                              const IrIndex& index) {
    return EmitSequentialReduce(kEmitter, *reduce, index, gens_, elemental_, &b_);
  }
  absl::StatusOr<llvm::Value*> LeafValue(const OutputLeaf& leaf, const IrIndex& index);
  absl::Status WriteLeaves(const std::vector<int64_t>& leaves, const IrIndex& index);
  IrArray OutputArray(int64_t leaf) const {
    return IrArray(args_[fusion_.operand_count() + leaf], leaves_[leaf].shape);
  }

  const HloInstruction& fusion_;
  const HostEmitOptions& options_;
  llvm::Module* module_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  ElementalIrEmitter elemental_;

  const HloComputation* computation_ = nullptr;
  std::vector<OutputLeaf> leaves_;
  llvm::Function* impl_ = nullptr;
  std::vector<llvm::Value*> args_;
  llvm::Value* block_begin_ = nullptr;
  llvm::Value* block_end_ = nullptr;
  FusedGenerators gens_;
  ElementCache element_cache_{&b_};
  std::vector<const HloInstruction*> reduces_;  // post order

  // Reductions already computed for the current row (row kernels): valid
  // only while emitting that row, for exactly these index values.
  struct Cached {
    std::vector<llvm::Value*> index;
    std::vector<llvm::Value*> values;
  };
  absl::flat_hash_map<const HloInstruction*, Cached> cache_;
  std::string kind_;
};

absl::Status FusionEmitter::CreateFunctions(const std::string& symbol) {
  if (module_->getFunction(symbol) != nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("host fusion emitter: symbol ", symbol, " already exists in the module"));
  }
  llvm::Type* ptr = llvm::PointerType::get(ctx_, 0);
  llvm::Type* i64 = b_.getInt64Ty();
  const int64_t num_args = fusion_.operand_count() + static_cast<int64_t>(leaves_.size());
  std::vector<llvm::Type*> impl_params(num_args, ptr);
  impl_params.push_back(i64);
  impl_params.push_back(i64);
  impl_ = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), impl_params, false),
                                 llvm::Function::InternalLinkage, symbol + "_impl", module_);
  impl_->addFnAttr(llvm::Attribute::NoInline);
  impl_->addFnAttr(llvm::Attribute::NoUnwind);
  for (int64_t i = 0; i < num_args; ++i) {
    const Shape& shape = i < fusion_.operand_count()
                             ? fusion_.operand(i)->shape()
                             : leaves_[i - fusion_.operand_count()].shape;
    const bool noalias = static_cast<size_t>(i) < options_.noalias.size() && options_.noalias[i];
    int64_t align = static_cast<size_t>(i) < options_.alignment.size() ? options_.alignment[i] : 16;
    align = std::max<int64_t>(align, 16);
    if (noalias) impl_->addParamAttr(i, llvm::Attribute::NoAlias);
    impl_->addParamAttr(i, llvm::Attribute::NoCapture);
    impl_->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(align)));
    std::optional<int64_t> bytes = shape.ByteSize();
    if (bytes.has_value() && *bytes > 0) impl_->addDereferenceableParamAttr(i, *bytes);
    args_.push_back(impl_->getArg(i));
  }
  // An output leaf that is exactly an operand's buffer is written through
  // the operand's pointer: then LLVM sees each element read and written at
  // one address in one iteration and vectorizes without a runtime overlap
  // check (which fails, sending the loop to its scalar version, when the
  // two pointers are equal).
  for (size_t leaf = 0; leaf < leaves_.size(); ++leaf) {
    const std::vector<int64_t>& alias = options_.output_aliases_operand;
    if (leaf < alias.size() && alias[leaf] >= 0 && alias[leaf] < fusion_.operand_count()) {
      args_[fusion_.operand_count() + leaf] = impl_->getArg(alias[leaf]);
    }
  }
  block_begin_ = impl_->getArg(num_args);
  block_end_ = impl_->getArg(num_args + 1);

  // The exported entry point of the ABI: loads the buffer pointers and calls
  // the implementation, whose arguments carry the alias/alignment facts.
  llvm::Function* entry = llvm::Function::Create(
      llvm::FunctionType::get(b_.getVoidTy(), {ptr, i64, i64, i64}, false),
      llvm::Function::ExternalLinkage, symbol, module_);
  entry->addFnAttr(llvm::Attribute::NoUnwind);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", entry));
  std::vector<llvm::Value*> call_args;
  for (int64_t i = 0; i < num_args; ++i) {
    call_args.push_back(
        b_.CreateLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, entry->getArg(0), i)));
  }
  call_args.push_back(entry->getArg(2));
  call_args.push_back(entry->getArg(3));
  b_.CreateCall(impl_, call_args);
  b_.CreateRetVoid();
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", impl_));
  return absl::OkStatus();
}

absl::Status FusionEmitter::BuildGenerators() {
  const HloInstruction* root = computation_->root_instruction();
  for (const HloInstruction* instr : computation_->MakePostOrder()) {
    const HloOpcode opcode = instr->opcode();
    if (opcode == HloOpcode::kParameter) {
      const int64_t n = instr->parameter_number();
      if (n < 0 || n >= fusion_.operand_count() || !fusion_.operand(n)->shape().IsArray()) {
        return Unimplemented(instr, "fused parameter without a matching array operand");
      }
      IrArray array(args_[n], fusion_.operand(n)->shape());
      gens_[instr] = [this, array](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        return array.EmitReadElement(index, &b_);
      };
      continue;
    }
    if (opcode == HloOpcode::kReduce) {
      if (instr->shape().IsTuple()) continue;
      gens_[instr] = [this, instr](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> values, ReduceValues(instr, index));
        return values[0];
      };
      continue;
    }
    if (opcode == HloOpcode::kConvolution) {
      gens_[instr] = [this, instr](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        return EmitConvolutionElement(kEmitter, *instr, index, gens_, &b_);
      };
      continue;
    }
    if (opcode == HloOpcode::kGather) {
      gens_[instr] = [this, instr](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        return EmitGatherElement(kEmitter, *instr, index, gens_, &b_);
      };
      continue;
    }
    if (opcode == HloOpcode::kReduceWindow) {
      if (instr->shape().IsTuple()) continue;  // its get-tuple-elements read it
      gens_[instr] = [this, instr](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> values,
                         EmitReduceWindowElement(kEmitter, *instr, index, gens_, elemental_, &b_));
        return values[0];
      };
      continue;
    }
    if (opcode == HloOpcode::kSort || opcode == HloOpcode::kSelectAndScatter) {
      if (instr == root) continue;  // PlanSort / PlanSelectAndScatter emit it
      return Unimplemented(instr, "only supported as the fused root");
    }
    if (opcode == HloOpcode::kGetTupleElement &&
        instr->operand(0)->opcode() == HloOpcode::kReduceWindow) {
      const HloInstruction* op = instr->operand(0);
      const int64_t k = instr->tuple_index();
      gens_[instr] = [this, op, k](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> values,
                         EmitReduceWindowElement(kEmitter, *op, index, gens_, elemental_, &b_));
        return values[k];
      };
      continue;
    }
    if (opcode == HloOpcode::kGetTupleElement) {
      const HloInstruction* op = instr->operand(0);
      if (op->opcode() != HloOpcode::kReduce) {
        return Unimplemented(instr, "get-tuple-element of anything but a variadic reduce");
      }
      const int64_t k = instr->tuple_index();
      gens_[instr] = [this, op, k](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> values, ReduceValues(op, index));
        return values[k];
      };
      continue;
    }
    if (opcode == HloOpcode::kTuple || opcode == HloOpcode::kScatter) {
      if (instr == root) continue;  // outputs, or PlanScatter emits it
      return Unimplemented(instr, "only supported as the fused root");
    }
    std::vector<Gen> operands;
    for (const HloInstruction* op : instr->operands()) {
      if (!gens_.contains(op)) return Unimplemented(instr, "operand without a generator");
      operands.push_back(ForwardingGenerator(&gens_, op, &element_cache_));
    }
    ASSIGN_OR_RETURN(gens_[instr], elemental_.MakeElementGenerator(instr, operands));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- IR helpers

absl::Status FusionEmitter::EmitNestedLoops(const std::vector<int64_t>& dims,
                                            const IndexFn& body) {
  std::vector<llvm::Value*> index(dims.size());
  std::function<absl::Status(size_t)> level = [&](size_t d) -> absl::Status {
    if (d == dims.size()) return body(IrIndex(index, dims));
    return EmitLoop(0, dims[d], absl::StrCat("i", d), [&](llvm::Value* i) {
      index[d] = i;
      return level(d + 1);
    });
  };
  return level(0);
}

// ---------------------------------------------------------------- values

absl::StatusOr<std::vector<llvm::Value*>> FusionEmitter::ReduceValues(const HloInstruction* reduce,
                                                                      const IrIndex& index) {
  auto it = cache_.find(reduce);
  if (it != cache_.end() && it->second.index == index.multidim()) return it->second.values;
  return EmitGenericReduce(reduce, index);
}

absl::StatusOr<llvm::Value*> FusionEmitter::LeafValue(const OutputLeaf& leaf,
                                                      const IrIndex& index) {
  if (leaf.instr->opcode() == HloOpcode::kReduce && leaf.instr->shape().IsTuple()) {
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> values, ReduceValues(leaf.instr, index));
    return values[leaf.value];
  }
  if (leaf.instr->opcode() == HloOpcode::kReduceWindow && leaf.instr->shape().IsTuple()) {
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> values,
                     EmitReduceWindowElement(kEmitter, *leaf.instr, index, gens_, elemental_, &b_));
    return values[leaf.value];
  }
  return gens_.at(leaf.instr)(index);
}

absl::Status FusionEmitter::WriteLeaves(const std::vector<int64_t>& leaves, const IrIndex& index) {
  for (int64_t k : leaves) {
    ASSIGN_OR_RETURN(llvm::Value * v, LeafValue(leaves_[k], index));
    OutputArray(k).EmitWriteElement(index, v, &b_);
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- plans

std::vector<Segment> FusionEmitter::PlanElementwise(std::vector<int64_t> dims,
                                                    int64_t bytes_per_element,
                                                    std::function<absl::Status()> prologue,
                                                    IndexFn body) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t target =
      std::max<int64_t>(1, options_.target_block_bytes / std::max<int64_t>(1, bytes_per_element));
  if (rank == 0) {
    return {Segment{1, [this, prologue, body](llvm::Value*) -> absl::Status {
                      RETURN_IF_ERROR(prologue());
                      return body(IrIndex());
                    }}};
  }
  const std::vector<int64_t> outer(dims.begin(), dims.end() - 1);
  const int64_t cols = dims.back();
  const int64_t rows = Product(outer);
  if (cols == 0 || rows == 0) return {};
  const int64_t col_chunk = std::min(cols, target);
  const int64_t col_blocks = CeilDiv(cols, col_chunk);
  const int64_t rows_per_block = col_blocks == 1 ? std::max<int64_t>(1, target / cols) : 1;
  const int64_t row_blocks = CeilDiv(rows, rows_per_block);
  Segment s;
  s.blocks = row_blocks * col_blocks;
  s.emit = [=](llvm::Value* block) -> absl::Status {
    RETURN_IF_ERROR(prologue());
    llvm::Value* rb = b_.CreateUDiv(block, b_.getInt64(col_blocks));
    llvm::Value* cb = b_.CreateURem(block, b_.getInt64(col_blocks));
    llvm::Value* r0 = b_.CreateMul(rb, b_.getInt64(rows_per_block));
    llvm::Value* r1 = Min(b_.CreateAdd(r0, b_.getInt64(rows_per_block)), b_.getInt64(rows));
    llvm::Value* c0 = b_.CreateMul(cb, b_.getInt64(col_chunk));
    llvm::Value* c1 = Min(b_.CreateAdd(c0, b_.getInt64(col_chunk)), b_.getInt64(cols));
    return EmitLoop(r0, r1, "row", [&](llvm::Value* r) {
      std::vector<llvm::Value*> index = IrIndex::FromLinear(r, outer, &b_).multidim();
      return EmitLoop(c0, c1, "col", [&](llvm::Value* c) {
        std::vector<llvm::Value*> full = index;
        full.push_back(c);
        return body(IrIndex(full, dims));
      });
    });
  };
  return {s};
}

Segment FusionEmitter::PlanTiled(std::vector<int64_t> dims, int64_t tiled_dim, IndexFn body) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t tile = std::max<int64_t>(1, options_.transpose_tile);
  std::vector<int64_t> other_dims, other_sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == tiled_dim || d == rank - 1) continue;
    other_dims.push_back(d);
    other_sizes.push_back(dims[d]);
  }
  const int64_t tiles_a = CeilDiv(dims[tiled_dim], tile);
  const int64_t tiles_c = CeilDiv(dims[rank - 1], tile);
  Segment s;
  s.blocks = Product(other_sizes) * tiles_a * tiles_c;
  s.emit = [=](llvm::Value* block) -> absl::Status {
    llvm::Value* per = b_.getInt64(tiles_a * tiles_c);
    llvm::Value* o = b_.CreateUDiv(block, per);
    llvm::Value* rem = b_.CreateURem(block, per);
    llvm::Value* a0 = b_.CreateMul(b_.CreateUDiv(rem, b_.getInt64(tiles_c)), b_.getInt64(tile));
    llvm::Value* c0 = b_.CreateMul(b_.CreateURem(rem, b_.getInt64(tiles_c)), b_.getInt64(tile));
    llvm::Value* a1 = Min(b_.CreateAdd(a0, b_.getInt64(tile)), b_.getInt64(dims[tiled_dim]));
    llvm::Value* c1 = Min(b_.CreateAdd(c0, b_.getInt64(tile)), b_.getInt64(dims[rank - 1]));
    std::vector<llvm::Value*> other = IrIndex::FromLinear(o, other_sizes, &b_).multidim();
    return EmitLoop(a0, a1, "tile_a", [&](llvm::Value* a) {
      return EmitLoop(c0, c1, "tile_c", [&](llvm::Value* c) {
        std::vector<llvm::Value*> index(rank);
        for (size_t k = 0; k < other_dims.size(); ++k) index[other_dims[k]] = other[k];
        index[tiled_dim] = a;
        index[rank - 1] = c;
        return body(IrIndex(index, dims));
      });
    });
  };
  return s;
}

Segment FusionEmitter::PlanRows(int64_t kept, std::vector<int64_t> input_dims) {
  const std::vector<int64_t> row_dims(input_dims.begin(), input_dims.begin() + kept);
  const std::vector<int64_t> col_dims(input_dims.begin() + kept, input_dims.end());
  const int64_t rows = Product(row_dims);
  const int64_t cols = Product(col_dims);
  const int64_t in_bytes = ByteWidth(reduces_[0]->operand(0)->shape().element_type());
  const int64_t rows_per_block = std::max<int64_t>(
      1, options_.target_block_bytes / std::max<int64_t>(1, cols * in_bytes));
  std::vector<int64_t> row_leaves, full_leaves;
  for (size_t k = 0; k < leaves_.size(); ++k) {
    (leaves_[k].shape.dimensions() == row_dims ? row_leaves : full_leaves).push_back(k);
  }
  std::vector<const HloInstruction*> full_roots;
  for (int64_t k : full_leaves) full_roots.push_back(leaves_[k].instr);
  const HloInstruction* row_cached =
      RowCacheCandidate(reduces_, full_roots, input_dims, cols, options_.row_cache_bytes);
  Segment s;
  s.blocks = CeilDiv(rows, rows_per_block);
  s.emit = [=](llvm::Value* block) -> absl::Status {
    llvm::Value* r0 = b_.CreateMul(block, b_.getInt64(rows_per_block));
    llvm::Value* r1 = Min(b_.CreateAdd(r0, b_.getInt64(rows_per_block)), b_.getInt64(rows));
    // The row's values of `row_cached` (see RowCacheCandidate): written by
    // the last reduction as it computes them, read by the output pass.
    llvm::Type* cached_type = nullptr;
    llvm::AllocaInst* row_cache = nullptr;
    if (row_cached != nullptr) {
      cached_type = ElementIrType(row_cached->shape().element_type(), ctx_);
      row_cache = EntryAlloca(cached_type, cols, "row_cache");
    }
    // The column of an index into the row (its trailing dimensions).
    auto column = [this, kept, col_dims](const IrIndex& index) {
      std::vector<llvm::Value*> trailing(index.multidim().begin() + kept, index.multidim().end());
      return IrIndex(std::move(trailing), col_dims).Linearize(&b_);
    };
    return EmitLoop(r0, r1, "row", [&](llvm::Value* r) -> absl::Status {
      const IrIndex row = IrIndex::FromLinear(r, row_dims, &b_);
      // The row's reductions once, in dependency order; later generators
      // asked for the same row find them in the cache.
      Gen computed;
      for (const HloInstruction* reduce : reduces_) {
        if (row_cache != nullptr && reduce == reduces_.back()) {
          computed = gens_.at(row_cached);
          gens_[row_cached] = [&, computed](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
            ASSIGN_OR_RETURN(llvm::Value * v, computed(index));
            b_.CreateStore(v, b_.CreateInBoundsGEP(cached_type, row_cache, column(index)));
            return v;
          };
        }
        ASSIGN_OR_RETURN(
            std::vector<llvm::Value*> values,
            EmitLaneReduce(kEmitter, *reduce, row, gens_, elemental_, &b_,
                           ReductionLanes(*reduce, options_.reduction_vector_bytes)));
        cache_[reduce] = Cached{row.multidim(), std::move(values)};
      }
      if (row_cache != nullptr) {
        gens_[row_cached] = [&](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
          return b_.CreateLoad(cached_type,
                               b_.CreateInBoundsGEP(cached_type, row_cache, column(index)));
        };
      }
      RETURN_IF_ERROR(WriteLeaves(row_leaves, row));
      if (!full_leaves.empty()) {
        RETURN_IF_ERROR(EmitLoop(0, cols, "col", [&](llvm::Value* c) {
          std::vector<llvm::Value*> index = row.multidim();
          const IrIndex col = IrIndex::FromLinear(c, col_dims, &b_);
          index.insert(index.end(), col.multidim().begin(), col.multidim().end());
          return WriteLeaves(full_leaves, IrIndex(index, input_dims));
        }));
      }
      if (row_cache != nullptr) gens_[row_cached] = computed;
      cache_.clear();
      return absl::OkStatus();
    });
  };
  return s;
}

Segment FusionEmitter::PlanColumns(std::vector<int64_t> input_dims) {
  const bool batched = input_dims.size() == 3;
  const int64_t a_size = batched ? input_dims[0] : 1;
  const int64_t r_size = input_dims[batched ? 1 : 0];
  const int64_t c_size = input_dims.back();
  const int64_t chunk = std::max<int64_t>(1, std::min(c_size, options_.column_chunk));
  const int64_t c_blocks = CeilDiv(c_size, chunk);
  Segment s;
  s.blocks = a_size * c_blocks;
  s.emit = [=](llvm::Value* block) -> absl::Status {
    llvm::Value* a = b_.CreateUDiv(block, b_.getInt64(c_blocks));
    llvm::Value* c0 = b_.CreateMul(b_.CreateURem(block, b_.getInt64(c_blocks)), b_.getInt64(chunk));
    llvm::Value* c1 = Min(b_.CreateAdd(c0, b_.getInt64(chunk)), b_.getInt64(c_size));
    // acc[reduce][value] is an array of `chunk` accumulators along C.
    std::vector<std::vector<llvm::AllocaInst*>> acc(reduces_.size());
    std::vector<std::vector<llvm::Type*>> types(reduces_.size());
    for (size_t q = 0; q < reduces_.size(); ++q) {
      const HloInstruction* reduce = reduces_[q];
      const int64_t n = reduce->operand_count() / 2;
      for (int64_t k = 0; k < n; ++k) {
        types[q].push_back(ElementIrType(reduce->operand(n + k)->shape().element_type(), ctx_));
        acc[q].push_back(EntryAlloca(types[q].back(), chunk, "col_acc"));
        ASSIGN_OR_RETURN(llvm::Value * init, gens_.at(reduce->operand(n + k))(IrIndex()));
        llvm::AllocaInst* slot = acc[q].back();
        RETURN_IF_ERROR(EmitLoop(c0, c1, "init", [&](llvm::Value* c) -> absl::Status {
          b_.CreateStore(init, b_.CreateInBoundsGEP(types[q][k], slot, b_.CreateSub(c, c0)));
          return absl::OkStatus();
        }));
      }
    }
    RETURN_IF_ERROR(EmitLoop(0, r_size, "red", [&](llvm::Value* r) {
      return EmitLoop(c0, c1, "col", [&](llvm::Value* c) -> absl::Status {
        std::vector<llvm::Value*> in = batched ? std::vector<llvm::Value*>{a, r, c}
                                               : std::vector<llvm::Value*>{r, c};
        for (size_t q = 0; q < reduces_.size(); ++q) {
          const HloInstruction* reduce = reduces_[q];
          const int64_t n = reduce->operand_count() / 2;
          std::vector<llvm::Value*> args, slots;
          for (int64_t k = 0; k < n; ++k) {
            slots.push_back(b_.CreateInBoundsGEP(types[q][k], acc[q][k], b_.CreateSub(c, c0)));
            args.push_back(b_.CreateLoad(types[q][k], slots.back()));
          }
          for (int64_t k = 0; k < n; ++k) {
            ASSIGN_OR_RETURN(llvm::Value * x, gens_.at(reduce->operand(k))(IrIndex(in, input_dims)));
            args.push_back(x);
          }
          ASSIGN_OR_RETURN(std::vector<llvm::Value*> next,
                           EmitComputation(reduce->to_apply(), args));
          for (int64_t k = 0; k < n; ++k) b_.CreateStore(next[k], slots[k]);
        }
        return absl::OkStatus();
      });
    }));
    return EmitLoop(c0, c1, "out", [&](llvm::Value* c) -> absl::Status {
      std::vector<llvm::Value*> out =
          batched ? std::vector<llvm::Value*>{a, c} : std::vector<llvm::Value*>{c};
      for (size_t k = 0; k < leaves_.size(); ++k) {
        const size_t q = std::find(reduces_.begin(), reduces_.end(), leaves_[k].instr) -
                         reduces_.begin();
        const int64_t v = leaves_[k].value;
        llvm::Value* value = b_.CreateLoad(
            types[q][v], b_.CreateInBoundsGEP(types[q][v], acc[q][v], b_.CreateSub(c, c0)));
        OutputArray(k).EmitWriteElement(IrIndex(out, leaves_[k].shape.dimensions()), value, &b_);
      }
      return absl::OkStatus();
    });
  };
  return s;
}

absl::StatusOr<Segment> FusionEmitter::PlanScatter(bool in_place) {
  const HloInstruction* scatter = computation_->root_instruction();
  ASSIGN_OR_RETURN(const ScatterIndexing indexing, AnalyzeScatterIndexing(kEmitter, *scatter));
  Segment s;
  s.blocks = 1;
  s.emit = [=](llvm::Value*) -> absl::Status {
    const IrArray out = OutputArray(0);
    if (!in_place) {
      RETURN_IF_ERROR(EmitNestedLoops(indexing.operand_dims, [&](const IrIndex& i) -> absl::Status {
        ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(scatter->operand(0))(i));
        out.EmitWriteElement(i, v, &b_);
        return absl::OkStatus();
      }));
    }
    return EmitNestedLoops(indexing.update_dims, [&](const IrIndex& u) -> absl::Status {
      llvm::Value* inside = nullptr;
      ASSIGN_OR_RETURN(const IrIndex t, EmitScatterTarget(indexing, u, gens_, &b_, &inside));
      return EmitIf(inside, [&]() -> absl::Status {
        llvm::Value* old = out.EmitReadElement(t, &b_);
        ASSIGN_OR_RETURN(llvm::Value * update, gens_.at(scatter->operand(2))(u));
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> next,
                         EmitComputation(scatter->to_apply(), {old, update}));
        out.EmitWriteElement(t, next[0], &b_);
        return absl::OkStatus();
      });
    });
  };
  return s;
}

Segment FusionEmitter::PlanDusInPlace() {
  const HloInstruction* dus = computation_->root_instruction();
  const HloInstruction* update = dus->operand(1);
  const std::vector<int64_t> dims = dus->shape().dimensions();
  auto starts = std::make_shared<std::vector<llvm::Value*>>();
  auto prologue = [this, dus, starts]() -> absl::Status {
    ASSIGN_OR_RETURN(*starts, EmitDusStarts(*dus, gens_, &b_));
    return absl::OkStatus();
  };
  auto body = [this, update, dims, starts](const IrIndex& u) -> absl::Status {
    ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(update)(u));
    std::vector<llvm::Value*> target;
    for (size_t d = 0; d < dims.size(); ++d) target.push_back(b_.CreateAdd((*starts)[d], u[d]));
    OutputArray(0).EmitWriteElement(IrIndex(target, dims), v, &b_);
    return absl::OkStatus();
  };
  std::vector<Segment> segments = PlanElementwise(update->shape().dimensions(),
                                                  ByteWidth(dus->shape().element_type()),
                                                  prologue, body);
  return segments.empty() ? Segment{} : segments[0];
}

absl::StatusOr<Segment> FusionEmitter::PlanConvolution() {
  const HloInstruction* conv = computation_->root_instruction();
  const AttrValue* v = conv->FindAttr(AttrId::kDimLabels);
  const ConvDimLabels* labels = v == nullptr ? nullptr : std::get_if<ConvDimLabels>(v);
  if (labels == nullptr) return Unimplemented(conv, "convolution without dim_labels");
  const std::vector<int64_t> dims = leaves_[0].shape.dimensions();
  const int64_t fdim = labels->output_feature;
  if (fdim < 0 || fdim >= static_cast<int64_t>(dims.size())) {
    return Unimplemented(conv, "output feature dimension out of range");
  }
  std::vector<int64_t> pixel_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (d != fdim) pixel_dims.push_back(dims[d]);
  }
  const int64_t features = dims[fdim];
  const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(features, kConvFeatureChunk));
  const int64_t chunks = CeilDiv(features, chunk);
  Segment s;
  s.blocks = Product(pixel_dims) * chunks;
  s.emit = [=](llvm::Value* block) -> absl::Status {
    llvm::Value* pixel = b_.CreateUDiv(block, b_.getInt64(chunks));
    llvm::Value* o0 =
        b_.CreateMul(b_.CreateURem(block, b_.getInt64(chunks)), b_.getInt64(chunk));
    llvm::Value* o1 = Min(b_.CreateAdd(o0, b_.getInt64(chunk)), b_.getInt64(features));
    std::vector<llvm::Value*> index = IrIndex::FromLinear(pixel, pixel_dims, &b_).multidim();
    index.insert(index.begin() + fdim, o0);
    const IrArray out = OutputArray(0);
    return EmitConvolutionFeatureBlock(
        kEmitter, *conv, IrIndex(index, dims), o0, o1, chunk, gens_, &b_,
        [&](llvm::Value* o, llvm::Value* value) {
          std::vector<llvm::Value*> at = index;
          at[fdim] = o;
          out.EmitWriteElement(IrIndex(at, dims), value, &b_);
          return absl::OkStatus();
        });
  };
  return s;
}

absl::StatusOr<Segment> FusionEmitter::PlanSelectAndScatter() {
  const HloInstruction* sas = computation_->root_instruction();
  const HloComputation* scatter = sas->GetComputation(AttrId::kScatter);
  if (sas->operand_count() != 3 || scatter == nullptr || leaves_.size() != 1) {
    return Unimplemented(sas, "malformed select-and-scatter");
  }
  const std::vector<int64_t> out_dims = leaves_[0].shape.dimensions();
  const std::vector<int64_t> source_dims = sas->operand(1)->shape().dimensions();
  Segment s;
  s.blocks = Product(out_dims) == 0 ? 0 : 1;
  s.emit = [=](llvm::Value*) -> absl::Status {
    const IrArray out = OutputArray(0);
    ASSIGN_OR_RETURN(llvm::Value * init, gens_.at(sas->operand(2))(IrIndex()));
    RETURN_IF_ERROR(EmitNestedLoops(out_dims, [&](const IrIndex& i) -> absl::Status {
      out.EmitWriteElement(i, init, &b_);
      return absl::OkStatus();
    }));
    // Source elements in row-major order, as the evaluator applies them.
    return EmitNestedLoops(source_dims, [&](const IrIndex& si) -> absl::Status {
      return EmitSelectAndScatterSelection(
          kEmitter, *sas, si, gens_, elemental_, &b_, [&](const IrIndex& t) -> absl::Status {
            ASSIGN_OR_RETURN(llvm::Value * source, gens_.at(sas->operand(1))(si));
            ASSIGN_OR_RETURN(std::vector<llvm::Value*> next,
                             EmitComputation(scatter, {source, out.EmitReadElement(t, &b_)}));
            if (next.size() != 1) return Unimplemented(sas, "scatter must return one value");
            out.EmitWriteElement(t, next[0], &b_);
            return absl::OkStatus();
          });
    });
  };
  return s;
}

absl::StatusOr<Segment> FusionEmitter::PlanSort() {
  const HloInstruction* sort = computation_->root_instruction();
  const std::vector<int64_t>& sort_dims = sort->dimensions();
  if (sort->operand_count() < 1 || sort_dims.size() != 1 || sort->to_apply() == nullptr ||
      static_cast<int64_t>(leaves_.size()) != sort->operand_count()) {
    return Unimplemented(sort, "malformed sort");
  }
  const std::vector<int64_t> dims = sort->operand(0)->shape().dimensions();
  const int64_t dim = sort_dims[0];
  if (dim < 0 || dim >= static_cast<int64_t>(dims.size())) {
    return Unimplemented(sort, "sort dimension out of range");
  }
  for (const HloInstruction* op : sort->operands()) {
    if (op->shape().dimensions() != dims) return Unimplemented(sort, "operands of different dims");
  }
  std::vector<int64_t> line_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (d != dim) line_dims.push_back(dims[d]);
  }
  const int64_t len = dims[dim];
  const int64_t n = sort->operand_count();
  Segment s;
  s.blocks = len == 0 ? 0 : Product(line_dims);
  s.emit = [=](llvm::Value* block) -> absl::Status {
    const std::vector<llvm::Value*> line = IrIndex::FromLinear(block, line_dims, &b_).multidim();
    auto at = [&](llvm::Value* j) {
      std::vector<llvm::Value*> index = line;
      index.insert(index.begin() + dim, j);
      return IrIndex(index, dims);
    };
    std::vector<llvm::Type*> types;
    std::vector<llvm::AllocaInst*> keys;
    for (int64_t k = 0; k < n; ++k) {
      types.push_back(ElementIrType(leaves_[k].shape.element_type(), ctx_));
      keys.push_back(EntryAlloca(types.back(), 1, "sort_key"));
    }
    llvm::AllocaInst* slot = EntryAlloca(b_.getInt64Ty(), 1, "sort_slot");
    // The line into the outputs, then a stable insertion sort there.
    RETURN_IF_ERROR(EmitLoop(0, len, "sort_copy", [&](llvm::Value* j) -> absl::Status {
      for (int64_t k = 0; k < n; ++k) {
        ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(sort->operand(k))(at(j)));
        OutputArray(k).EmitWriteElement(at(j), v, &b_);
      }
      return absl::OkStatus();
    }));
    return EmitLoop(1, len, "sort_i", [&](llvm::Value* i) -> absl::Status {
      for (int64_t k = 0; k < n; ++k) {
        b_.CreateStore(OutputArray(k).EmitReadElement(at(i), &b_), keys[k]);
      }
      b_.CreateStore(i, slot);
      llvm::Function* f = b_.GetInsertBlock()->getParent();
      llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "sort_header", f);
      llvm::BasicBlock* check = llvm::BasicBlock::Create(ctx_, "sort_check", f);
      llvm::BasicBlock* shift = llvm::BasicBlock::Create(ctx_, "sort_shift", f);
      llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "sort_done", f);
      b_.CreateBr(header);
      b_.SetInsertPoint(header);
      llvm::Value* j = b_.CreateLoad(b_.getInt64Ty(), slot);
      b_.CreateCondBr(b_.CreateICmpSGT(j, b_.getInt64(0)), check, done);
      b_.SetInsertPoint(check);
      llvm::Value* prev = b_.CreateSub(j, b_.getInt64(1));
      std::vector<llvm::Value*> args;
      for (int64_t k = 0; k < n; ++k) {
        args.push_back(b_.CreateLoad(types[k], keys[k]));
        args.push_back(OutputArray(k).EmitReadElement(at(prev), &b_));
      }
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> less, EmitComputation(sort->to_apply(), args));
      if (less.size() != 1) return Unimplemented(sort, "comparator must return one pred");
      llvm::Value* lt = b_.CreateICmpNE(less[0], llvm::ConstantInt::get(less[0]->getType(), 0));
      b_.CreateCondBr(lt, shift, done);
      b_.SetInsertPoint(shift);
      for (int64_t k = 0; k < n; ++k) {
        OutputArray(k).EmitWriteElement(at(j), OutputArray(k).EmitReadElement(at(prev), &b_),
                                        &b_);
      }
      b_.CreateStore(prev, slot);
      b_.CreateBr(header);
      b_.SetInsertPoint(done);
      llvm::Value* to = b_.CreateLoad(b_.getInt64Ty(), slot);
      for (int64_t k = 0; k < n; ++k) {
        OutputArray(k).EmitWriteElement(at(to), b_.CreateLoad(types[k], keys[k]), &b_);
      }
      return absl::OkStatus();
    });
  };
  return s;
}

std::vector<Segment> FusionEmitter::PlanLoop(bool same_dims) {
  auto no_prologue = []() { return absl::OkStatus(); };
  if (!same_dims) {
    // Per output leaf, its own loop (outputs of different shapes).
    std::vector<Segment> all;
    for (size_t k = 0; k < leaves_.size(); ++k) {
      std::vector<int64_t> one = {static_cast<int64_t>(k)};
      for (Segment& s : PlanElementwise(
               leaves_[k].shape.dimensions(), ByteWidth(leaves_[k].shape.element_type()),
               no_prologue, [this, one](const IrIndex& i) { return WriteLeaves(one, i); })) {
        all.push_back(std::move(s));
      }
    }
    return all;
  }
  int64_t bytes = 0;
  for (const OutputLeaf& leaf : leaves_) bytes += ByteWidth(leaf.shape.element_type());
  return PlanElementwise(leaves_[0].shape.dimensions(), bytes, no_prologue, AllLeavesBody());
}

absl::StatusOr<std::vector<Segment>> FusionEmitter::Plan() {
  if (computation_->root_instruction()->opcode() == HloOpcode::kSort) {
    kind_ = "sort";
    ASSIGN_OR_RETURN(Segment s, PlanSort());
    if (s.blocks == 0) return std::vector<Segment>{};
    return std::vector<Segment>{s};
  }
  if (computation_->root_instruction()->opcode() == HloOpcode::kSelectAndScatter) {
    kind_ = "select_and_scatter";
    ASSIGN_OR_RETURN(Segment s, PlanSelectAndScatter());
    if (s.blocks == 0) return std::vector<Segment>{};
    return std::vector<Segment>{s};
  }
  if (computation_->root_instruction()->opcode() == HloOpcode::kConvolution &&
      leaves_.size() == 1) {
    kind_ = "convolution";
    ASSIGN_OR_RETURN(Segment s, PlanConvolution());
    if (s.blocks == 0) return std::vector<Segment>{};
    return std::vector<Segment>{s};
  }
  const FusionKernelAnalysis a =
      AnalyzeFusionKernel(*computation_, leaves_, reduces_, options_.output_aliases_operand);
  kind_ = std::string(FusionKernelKindName(a.kind));
  auto nonempty = [](Segment s) {
    return s.blocks == 0 ? std::vector<Segment>{} : std::vector<Segment>{std::move(s)};
  };
  switch (a.kind) {
    case FusionKernelKind::kScatter: {
      ASSIGN_OR_RETURN(Segment s, PlanScatter(a.in_place));
      return std::vector<Segment>{s};
    }
    case FusionKernelKind::kDusInPlace:
      return nonempty(PlanDusInPlace());
    case FusionKernelKind::kRowReduction:
    case FusionKernelKind::kRowNormalization:
    case FusionKernelKind::kWholeReduction:
      return nonempty(PlanRows(a.kept_dims, a.reduce_input_dims));
    case FusionKernelKind::kColumnReduction:
      return nonempty(PlanColumns(a.reduce_input_dims));
    case FusionKernelKind::kTranspose:
      return std::vector<Segment>{
          PlanTiled(leaves_[0].shape.dimensions(), a.transpose_dim, AllLeavesBody())};
    case FusionKernelKind::kLoop:
    case FusionKernelKind::kGenericReduction:
      break;
  }
  return PlanLoop(a.same_output_dims);  // generic: per element, loops over the reduced dims
}

absl::StatusOr<HostKernelInfo> FusionEmitter::Run(const std::string& symbol) {
  if (fusion_.opcode() != HloOpcode::kFusion) {
    return absl::InvalidArgumentError(absl::StrCat("host fusion emitter: ", fusion_.name(),
                                                   " is not a fusion instruction"));
  }
  computation_ = fusion_.GetComputation(AttrId::kCalls);
  if (computation_ == nullptr || computation_->root_instruction() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "host fusion emitter: fusion ", fusion_.name(), " has no single called computation"));
  }
  for (const HloInstruction* op : fusion_.operands()) {
    if (!op->shape().IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat("host fusion emitter: fusion ", fusion_.name(),
                                                     " has a non-array operand ", op->name()));
    }
  }
  const HloInstruction* root = computation_->root_instruction();
  if ((root->opcode() == HloOpcode::kSort || root->opcode() == HloOpcode::kReduceWindow) &&
      root->shape().IsTuple()) {
    // One output per sorted operand / reduce-window value.
    if (!fusion_.shape().IsTuple() ||
        fusion_.shape().tuple_shapes().size() != root->shape().tuple_shapes().size()) {
      return Unimplemented(root, "tuple-shaped root whose fusion shape does not match");
    }
    for (size_t k = 0; k < root->shape().tuple_shapes().size(); ++k) {
      const Shape& leaf = fusion_.shape().tuple_shapes()[k];
      if (!leaf.IsArray()) return Unimplemented(root, "nested tuple output");
      leaves_.push_back(OutputLeaf{root, static_cast<int64_t>(k), leaf});
    }
  } else {
    ASSIGN_OR_RETURN(leaves_, CollectOutputLeaves(kEmitter, fusion_, *computation_));
  }
  reduces_ = CollectReduces(*computation_);
  RETURN_IF_ERROR(CreateFunctions(symbol));
  RETURN_IF_ERROR(BuildGenerators());
  ASSIGN_OR_RETURN(std::vector<Segment> segments, Plan());

  int64_t total = 0;
  for (const Segment& s : segments) total += s.blocks;
  if (total > 0) {
    RETURN_IF_ERROR(EmitLoop(block_begin_, block_end_, "block", [&](llvm::Value* block) {
      if (segments.size() == 1) return segments[0].emit(block);
      int64_t start = 0;
      for (const Segment& s : segments) {
        llvm::Value* local = b_.CreateSub(block, b_.getInt64(start));
        RETURN_IF_ERROR(EmitIf(b_.CreateICmpULT(local, b_.getInt64(s.blocks)),
                               [&]() { return s.emit(local); }));
        start += s.blocks;
      }
      return absl::OkStatus();
    }));
  }
  b_.CreateRetVoid();
  std::string error;
  llvm::raw_string_ostream os(error);
  if (llvm::verifyFunction(*impl_, &os)) {
    return absl::InternalError(absl::StrCat("host fusion emitter produced invalid IR for ",
                                            fusion_.name(), ": ", os.str()));
  }
  HostKernelInfo info;
  info.symbol = symbol;
  info.total_blocks = total;
  info.kind = kind_;
  for (int64_t i = 0; i < fusion_.operand_count(); ++i) {
    info.args.push_back({false, i, fusion_.operand(i)->shape()});
  }
  for (size_t k = 0; k < leaves_.size(); ++k) {
    info.args.push_back({true, static_cast<int64_t>(k), leaves_[k].shape});
  }
  return info;
}

}  // namespace

absl::StatusOr<HostKernelInfo> EmitHostFusionKernel(const HloInstruction& fusion,
                                                    const std::string& symbol,
                                                    const HostEmitOptions& options,
                                                    llvm::Module* module) {
  FusionEmitter emitter(fusion, options, module);
  return emitter.Run(symbol);
}

}  // namespace xla::gpu
