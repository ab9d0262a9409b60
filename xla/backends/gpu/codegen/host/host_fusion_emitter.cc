#include "xla/backends/gpu/codegen/host/host_fusion_emitter.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "llvm/IR/Attributes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "xla/backends/gpu/codegen/elemental_ir_emitter.h"
#include "xla/backends/gpu/codegen/ir_array.h"
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

absl::Status Unimplemented(const HloInstruction* hlo, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat("host fusion emitter: ", hlo->name(), " (",
                                               HloOpcodeName(hlo->opcode()), "): ", why));
}

std::vector<int64_t> SortedDims(const HloInstruction* reduce) {
  std::vector<int64_t> dims = reduce->dimensions();
  std::sort(dims.begin(), dims.end());
  return dims;
}

// A kernel output: the leaf's value is value `value` of `instr` (non-zero
// only for a tuple-shaped variadic reduce).
struct OutputLeaf {
  const HloInstruction* instr;
  int64_t value;
  Shape shape;  // the output buffer's shape
};

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
        elemental_(module, &b_) {}

  absl::StatusOr<HostKernelInfo> Run(const std::string& symbol);

 private:
  // Setup.
  absl::Status CollectOutputs();
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
  absl::StatusOr<std::vector<Segment>> PlanLoop();

  // IR helpers.
  absl::Status EmitLoop(llvm::Value* lo, llvm::Value* hi, const std::string& name,
                        const std::function<absl::Status(llvm::Value*)>& body);
  absl::Status EmitLoop(int64_t lo, int64_t hi, const std::string& name,
                        const std::function<absl::Status(llvm::Value*)>& body) {
    return EmitLoop(b_.getInt64(lo), b_.getInt64(hi), name, body);
  }
  absl::Status EmitNestedLoops(const std::vector<int64_t>& dims, const IndexFn& body);
  absl::Status EmitIf(llvm::Value* cond, const std::function<absl::Status()>& then);
  llvm::AllocaInst* EntryAlloca(llvm::Type* type, int64_t count, const std::string& name);
  llvm::Value* Min(llvm::Value* a, llvm::Value* b) {
    return b_.CreateSelect(b_.CreateICmpSLT(a, b), a, b);
  }

  // Values.
  absl::StatusOr<std::vector<llvm::Value*>> EmitComputation(
      const HloComputation* computation, const std::vector<llvm::Value*>& args);
  absl::StatusOr<std::vector<llvm::Value*>> ReduceValues(const HloInstruction* reduce,
                                                         const IrIndex& index);
  absl::StatusOr<std::vector<llvm::Value*>> EmitGenericReduce(const HloInstruction* reduce,
                                                              const IrIndex& index);
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
  absl::flat_hash_map<const HloInstruction*, Gen> gens_;
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

absl::Status FusionEmitter::CollectOutputs() {
  const HloInstruction* root = computation_->root_instruction();
  std::vector<Shape> shapes;
  if (fusion_.shape().IsTuple()) {
    shapes = fusion_.shape().tuple_shapes();
  } else {
    shapes.push_back(fusion_.shape());
  }
  if (root->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* op : root->operands()) leaves_.push_back({op, 0, Shape()});
  } else if (root->shape().IsTuple() && root->opcode() == HloOpcode::kReduce) {
    for (int64_t k = 0; k < root->shape().tuple_shapes_size(); ++k) {
      leaves_.push_back({root, k, Shape()});
    }
  } else if (root->shape().IsTuple() && root->opcode() == HloOpcode::kScatter) {
    return Unimplemented(root, "variadic scatter is not supported");
  } else {
    leaves_.push_back({root, 0, Shape()});
  }
  if (leaves_.size() != shapes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("host fusion emitter: ", fusion_.name(), " has ", shapes.size(),
                     " output leaves but its fused root yields ", leaves_.size()));
  }
  for (size_t k = 0; k < leaves_.size(); ++k) {
    if (!shapes[k].IsArray()) {
      return Unimplemented(&fusion_, absl::StrCat("output ", k, " is not an array (nested tuple)"));
    }
    leaves_[k].shape = shapes[k];
  }
  return absl::OkStatus();
}

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
      reduces_.push_back(instr);
      if (instr->shape().IsTuple()) continue;
      gens_[instr] = [this, instr](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> values, ReduceValues(instr, index));
        return values[0];
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
      auto it = gens_.find(op);
      if (it == gens_.end()) return Unimplemented(instr, "operand without a generator");
      operands.push_back(it->second);
    }
    ASSIGN_OR_RETURN(gens_[instr], elemental_.MakeElementGenerator(instr, operands));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- IR helpers

absl::Status FusionEmitter::EmitLoop(llvm::Value* lo, llvm::Value* hi, const std::string& name,
                                     const std::function<absl::Status(llvm::Value*)>& body) {
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::Function* fn = pre->getParent();
  llvm::BasicBlock* body_bb = llvm::BasicBlock::Create(ctx_, name + ".body", fn);
  llvm::BasicBlock* exit_bb = llvm::BasicBlock::Create(ctx_, name + ".exit", fn);
  b_.CreateCondBr(b_.CreateICmpSLT(lo, hi), body_bb, exit_bb);
  b_.SetInsertPoint(body_bb);
  llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, name);
  i->addIncoming(lo, pre);
  RETURN_IF_ERROR(body(i));
  llvm::Value* next = b_.CreateAdd(i, b_.getInt64(1), name + ".next", /*HasNUW=*/true,
                                   /*HasNSW=*/true);
  i->addIncoming(next, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpSLT(next, hi), body_bb, exit_bb);
  b_.SetInsertPoint(exit_bb);
  return absl::OkStatus();
}

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

absl::Status FusionEmitter::EmitIf(llvm::Value* cond, const std::function<absl::Status()>& then) {
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "then", fn);
  llvm::BasicBlock* cont_bb = llvm::BasicBlock::Create(ctx_, "cont", fn);
  b_.CreateCondBr(cond, then_bb, cont_bb);
  b_.SetInsertPoint(then_bb);
  RETURN_IF_ERROR(then());
  b_.CreateBr(cont_bb);
  b_.SetInsertPoint(cont_bb);
  return absl::OkStatus();
}

llvm::AllocaInst* FusionEmitter::EntryAlloca(llvm::Type* type, int64_t count,
                                             const std::string& name) {
  llvm::IRBuilder<> entry(&impl_->getEntryBlock(), impl_->getEntryBlock().begin());
  return entry.CreateAlloca(type, entry.getInt64(count), name);
}

// ---------------------------------------------------------------- values

absl::StatusOr<std::vector<llvm::Value*>> FusionEmitter::EmitComputation(
    const HloComputation* computation, const std::vector<llvm::Value*>& args) {
  absl::flat_hash_map<const HloInstruction*, Gen> local;
  const HloInstruction* root = computation->root_instruction();
  for (const HloInstruction* instr : computation->MakePostOrder()) {
    if (instr->opcode() == HloOpcode::kParameter) {
      const int64_t n = instr->parameter_number();
      if (n < 0 || n >= static_cast<int64_t>(args.size())) {
        return Unimplemented(instr, absl::StrCat("reducer parameter ", n, " has no argument"));
      }
      llvm::Value* v = args[n];
      local[instr] = [v](const IrIndex&) -> absl::StatusOr<llvm::Value*> { return v; };
      continue;
    }
    if (instr->opcode() == HloOpcode::kTuple && instr == root) continue;
    std::vector<Gen> operands;
    for (const HloInstruction* op : instr->operands()) operands.push_back(local.at(op));
    ASSIGN_OR_RETURN(local[instr], elemental_.MakeElementGenerator(instr, operands));
  }
  std::vector<llvm::Value*> results;
  if (root->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* op : root->operands()) {
      ASSIGN_OR_RETURN(llvm::Value * v, local.at(op)(IrIndex()));
      results.push_back(v);
    }
  } else {
    ASSIGN_OR_RETURN(llvm::Value * v, local.at(root)(IrIndex()));
    results.push_back(v);
  }
  return results;
}

absl::StatusOr<std::vector<llvm::Value*>> FusionEmitter::ReduceValues(const HloInstruction* reduce,
                                                                      const IrIndex& index) {
  auto it = cache_.find(reduce);
  if (it != cache_.end() && it->second.index == index.multidim()) return it->second.values;
  return EmitGenericReduce(reduce, index);
}

absl::StatusOr<std::vector<llvm::Value*>> FusionEmitter::EmitGenericReduce(
    const HloInstruction* reduce, const IrIndex& index) {
  const int64_t n = reduce->operand_count() / 2;
  if (n < 1 || reduce->operand_count() != 2 * n || reduce->to_apply() == nullptr) {
    return Unimplemented(reduce, "malformed reduce (needs N inputs, N inits and to_apply)");
  }
  const std::vector<int64_t>& in_dims = reduce->operand(0)->shape().dimensions();
  const std::vector<int64_t> red = SortedDims(reduce);
  std::vector<bool> reduced(in_dims.size(), false);
  for (int64_t d : red) {
    if (d < 0 || d >= static_cast<int64_t>(in_dims.size())) {
      return Unimplemented(reduce, "reduced dimension out of range");
    }
    reduced[d] = true;
  }
  std::vector<llvm::Value*> in_index(in_dims.size(), nullptr);
  size_t next_kept = 0;
  for (size_t d = 0; d < in_dims.size(); ++d) {
    if (!reduced[d]) in_index[d] = index[next_kept++];
  }
  std::vector<llvm::AllocaInst*> acc;
  std::vector<llvm::Type*> types;
  for (int64_t k = 0; k < n; ++k) {
    types.push_back(ElementIrType(reduce->operand(n + k)->shape().element_type(), ctx_));
    acc.push_back(EntryAlloca(types.back(), 1, "acc"));
    ASSIGN_OR_RETURN(llvm::Value * init, gens_.at(reduce->operand(n + k))(IrIndex()));
    b_.CreateStore(init, acc.back());
  }
  std::function<absl::Status(size_t)> level = [&](size_t p) -> absl::Status {
    if (p == red.size()) {
      std::vector<llvm::Value*> args;
      for (int64_t k = 0; k < n; ++k) args.push_back(b_.CreateLoad(types[k], acc[k]));
      for (int64_t k = 0; k < n; ++k) {
        ASSIGN_OR_RETURN(llvm::Value * x, gens_.at(reduce->operand(k))(IrIndex(in_index, in_dims)));
        args.push_back(x);
      }
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> next, EmitComputation(reduce->to_apply(), args));
      if (static_cast<int64_t>(next.size()) != n) {
        return Unimplemented(reduce, "reducer result count does not match the inputs");
      }
      for (int64_t k = 0; k < n; ++k) b_.CreateStore(next[k], acc[k]);
      return absl::OkStatus();
    }
    const int64_t d = red[p];
    return EmitLoop(0, in_dims[d], absl::StrCat("r", d), [&](llvm::Value* i) {
      in_index[d] = i;
      return level(p + 1);
    });
  };
  RETURN_IF_ERROR(level(0));
  std::vector<llvm::Value*> values;
  for (int64_t k = 0; k < n; ++k) values.push_back(b_.CreateLoad(types[k], acc[k]));
  return values;
}

absl::StatusOr<llvm::Value*> FusionEmitter::LeafValue(const OutputLeaf& leaf,
                                                      const IrIndex& index) {
  if (leaf.instr->opcode() == HloOpcode::kReduce && leaf.instr->shape().IsTuple()) {
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> values, ReduceValues(leaf.instr, index));
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
  Segment s;
  s.blocks = CeilDiv(rows, rows_per_block);
  s.emit = [=](llvm::Value* block) -> absl::Status {
    llvm::Value* r0 = b_.CreateMul(block, b_.getInt64(rows_per_block));
    llvm::Value* r1 = Min(b_.CreateAdd(r0, b_.getInt64(rows_per_block)), b_.getInt64(rows));
    return EmitLoop(r0, r1, "row", [&](llvm::Value* r) -> absl::Status {
      const IrIndex row = IrIndex::FromLinear(r, row_dims, &b_);
      // The row's reductions once, in dependency order; later generators
      // asked for the same row find them in the cache.
      for (const HloInstruction* reduce : reduces_) {
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> values, EmitGenericReduce(reduce, row));
        cache_[reduce] = Cached{row.multidim(), std::move(values)};
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
  if (scatter->operand_count() != 3 || scatter->to_apply() == nullptr) {
    return Unimplemented(scatter, "only single-operand scatter with to_apply is supported");
  }
  if (!scatter->GetIntList(AttrId::kInputBatchingDims).empty()) {
    return Unimplemented(scatter, "scatter with batching dims is not supported");
  }
  const HloInstruction* indices = scatter->operand(1);
  const HloInstruction* updates = scatter->operand(2);
  const std::vector<int64_t> operand_dims = scatter->operand(0)->shape().dimensions();
  const std::vector<int64_t> update_dims = updates->shape().dimensions();
  const std::vector<int64_t> index_dims = indices->shape().dimensions();
  const PrimitiveType index_type = indices->shape().element_type();
  const int64_t ivd = scatter->GetInt(AttrId::kIndexVectorDim);
  const std::vector<int64_t> uwd = scatter->GetIntList(AttrId::kUpdateWindowDims);
  const std::vector<int64_t> inserted = scatter->GetIntList(AttrId::kInsertedWindowDims);
  const std::vector<int64_t> to_operand = scatter->GetIntList(AttrId::kScatterDimsToOperandDims);
  const int64_t rank = static_cast<int64_t>(operand_dims.size());
  const int64_t index_rank = static_cast<int64_t>(index_dims.size());
  if (ivd < 0 || ivd > index_rank) return Unimplemented(scatter, "index_vector_dim out of range");
  const int64_t vector_size = ivd < index_rank ? index_dims[ivd] : 1;
  if (static_cast<int64_t>(to_operand.size()) != vector_size) {
    return Unimplemented(scatter, "scatter_dims_to_operand_dims does not match the indices");
  }
  std::vector<int64_t> window_dims;  // operand dims that the update window covers
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(inserted.begin(), inserted.end(), d) == inserted.end()) window_dims.push_back(d);
  }
  if (window_dims.size() != uwd.size()) {
    return Unimplemented(scatter, "update_window_dims does not match the operand");
  }
  std::vector<int64_t> window_size(rank, 1);
  for (size_t k = 0; k < uwd.size(); ++k) window_size[window_dims[k]] = update_dims[uwd[k]];
  std::vector<int64_t> update_scatter_dims, index_batch_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(update_dims.size()); ++d) {
    if (std::find(uwd.begin(), uwd.end(), d) == uwd.end()) update_scatter_dims.push_back(d);
  }
  for (int64_t d = 0; d < index_rank; ++d) {
    if (d != ivd) index_batch_dims.push_back(d);
  }
  if (update_scatter_dims.size() != index_batch_dims.size()) {
    return Unimplemented(scatter, "updates' scatter dims do not match the indices' batch dims");
  }
  Segment s;
  s.blocks = 1;
  s.emit = [=](llvm::Value*) -> absl::Status {
    const IrArray out = OutputArray(0);
    if (!in_place) {
      RETURN_IF_ERROR(EmitNestedLoops(operand_dims, [&](const IrIndex& i) -> absl::Status {
        ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(scatter->operand(0))(i));
        out.EmitWriteElement(i, v, &b_);
        return absl::OkStatus();
      }));
    }
    return EmitNestedLoops(update_dims, [&](const IrIndex& u) -> absl::Status {
      std::vector<llvm::Value*> start(rank, b_.getInt64(0));
      for (int64_t k = 0; k < vector_size; ++k) {
        std::vector<llvm::Value*> at(index_rank, nullptr);
        for (size_t j = 0; j < index_batch_dims.size(); ++j) {
          at[index_batch_dims[j]] = u[update_scatter_dims[j]];
        }
        if (ivd < index_rank) at[ivd] = b_.getInt64(k);
        ASSIGN_OR_RETURN(llvm::Value * raw, gens_.at(indices)(IrIndex(at, index_dims)));
        start[to_operand[k]] = IsSignedInt(index_type) ? b_.CreateSExt(raw, b_.getInt64Ty())
                                                       : b_.CreateZExt(raw, b_.getInt64Ty());
      }
      llvm::Value* inside = b_.getTrue();
      for (int64_t d = 0; d < rank; ++d) {
        inside = b_.CreateAnd(inside, b_.CreateICmpSGE(start[d], b_.getInt64(0)));
        inside = b_.CreateAnd(
            inside, b_.CreateICmpSLE(start[d], b_.getInt64(operand_dims[d] - window_size[d])));
      }
      return EmitIf(inside, [&]() -> absl::Status {
        std::vector<llvm::Value*> target = start;
        for (size_t k = 0; k < uwd.size(); ++k) {
          target[window_dims[k]] = b_.CreateAdd(target[window_dims[k]], u[uwd[k]]);
        }
        const IrIndex t(target, operand_dims);
        llvm::Value* old = out.EmitReadElement(t, &b_);
        ASSIGN_OR_RETURN(llvm::Value * update, gens_.at(updates)(u));
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
  const std::vector<int64_t> update_dims = update->shape().dimensions();
  auto starts = std::make_shared<std::vector<llvm::Value*>>();
  auto prologue = [this, dus, dims, update_dims, starts]() -> absl::Status {
    starts->clear();
    for (size_t d = 0; d < dims.size(); ++d) {
      const HloInstruction* op = dus->operand(2 + d);
      ASSIGN_OR_RETURN(llvm::Value * raw, gens_.at(op)(IrIndex()));
      const bool is_signed = IsSignedInt(op->shape().element_type());
      llvm::Value* s = is_signed ? b_.CreateSExt(raw, b_.getInt64Ty())
                                 : b_.CreateZExt(raw, b_.getInt64Ty());
      const int64_t limit = dims[d] - update_dims[d];
      // Same clamping as the elemental emitter: negative -> 0 (signed) or
      // the limit (an unsigned value above INT64_MAX), then at most limit.
      s = b_.CreateSelect(b_.CreateICmpSLT(s, b_.getInt64(0)), b_.getInt64(is_signed ? 0 : limit),
                          s);
      s = b_.CreateSelect(b_.CreateICmpSGT(s, b_.getInt64(limit)), b_.getInt64(limit), s);
      starts->push_back(s);
    }
    return absl::OkStatus();
  };
  auto body = [this, update, dims, starts](const IrIndex& u) -> absl::Status {
    ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(update)(u));
    std::vector<llvm::Value*> target;
    for (size_t d = 0; d < dims.size(); ++d) target.push_back(b_.CreateAdd((*starts)[d], u[d]));
    OutputArray(0).EmitWriteElement(IrIndex(target, dims), v, &b_);
    return absl::OkStatus();
  };
  std::vector<Segment> segments =
      PlanElementwise(update_dims, ByteWidth(dus->shape().element_type()), prologue, body);
  return segments.empty() ? Segment{} : segments[0];
}

absl::StatusOr<std::vector<Segment>> FusionEmitter::PlanLoop() {
  const std::vector<int64_t>& dims = leaves_[0].shape.dimensions();
  bool same_dims = true;
  int64_t bytes = 0;
  for (const OutputLeaf& leaf : leaves_) {
    same_dims = same_dims && leaf.shape.dimensions() == dims;
    bytes += ByteWidth(leaf.shape.element_type());
  }
  auto no_prologue = []() { return absl::OkStatus(); };
  if (!same_dims) {
    // Per output leaf, its own loop (outputs of different shapes).
    kind_ = reduces_.empty() ? "loop" : "generic_reduction";
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
  std::vector<int64_t> all_leaves;
  for (size_t k = 0; k < leaves_.size(); ++k) all_leaves.push_back(k);
  IndexFn body = [this, all_leaves](const IrIndex& i) { return WriteLeaves(all_leaves, i); };
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (reduces_.empty() && rank >= 2) {
    for (const HloInstruction* instr : computation_->MakePostOrder()) {
      if (instr->opcode() != HloOpcode::kTranspose || instr->shape().dimensions() != dims) continue;
      const std::vector<int64_t>& perm = instr->dimensions();
      const int64_t j = std::find(perm.begin(), perm.end(), rank - 1) - perm.begin();
      if (j >= rank - 1) continue;
      kind_ = "transpose";
      return std::vector<Segment>{PlanTiled(dims, j, body)};
    }
  }
  kind_ = reduces_.empty() ? "loop" : "generic_reduction";
  return PlanElementwise(dims, bytes, no_prologue, body);
}

absl::StatusOr<std::vector<Segment>> FusionEmitter::Plan() {
  const HloInstruction* root = computation_->root_instruction();
  auto aliases = [&](int64_t operand) {
    return !options_.output_aliases_operand.empty() &&
           options_.output_aliases_operand[0] == operand;
  };
  // The fused parameter `p` feeding operand 0 of the root, when the output
  // shares its buffer and nothing else reads it.
  auto in_place = [&]() {
    const HloInstruction* p = root->operand(0);
    if (p->opcode() != HloOpcode::kParameter || !aliases(p->parameter_number())) return false;
    if (p->users().size() != 1) return false;
    for (int64_t i = 1; i < root->operand_count(); ++i) {
      if (root->operand(i) == p) return false;
    }
    return true;
  };
  if (root->opcode() == HloOpcode::kScatter) {
    kind_ = "scatter";
    ASSIGN_OR_RETURN(Segment s, PlanScatter(in_place()));
    return std::vector<Segment>{s};
  }
  if (root->opcode() == HloOpcode::kDynamicUpdateSlice && leaves_.size() == 1 && in_place()) {
    kind_ = "dus_in_place";
    Segment s = PlanDusInPlace();
    if (s.blocks == 0) return std::vector<Segment>{};
    return std::vector<Segment>{s};
  }
  if (reduces_.empty()) return PlanLoop();

  // Row form: every reduce reduces the trailing dims of the same input dims.
  const std::vector<int64_t> input_dims = reduces_[0]->operand(0)->shape().dimensions();
  const int64_t rank = static_cast<int64_t>(input_dims.size());
  const int64_t kept = rank - static_cast<int64_t>(reduces_[0]->dimensions().size());
  bool row_form = true;
  for (const HloInstruction* r : reduces_) {
    std::vector<int64_t> trailing;
    for (int64_t d = kept; d < rank; ++d) trailing.push_back(d);
    row_form = row_form && r->operand(0)->shape().dimensions() == input_dims &&
               SortedDims(r) == trailing;
  }
  const std::vector<int64_t> row_dims(input_dims.begin(), input_dims.begin() + std::max<int64_t>(kept, 0));
  bool any_full = false;
  for (const OutputLeaf& leaf : leaves_) {
    const bool is_row = leaf.shape.dimensions() == row_dims;
    const bool is_full = leaf.shape.dimensions() == input_dims;
    row_form = row_form && (is_row || is_full);
    any_full = any_full || (is_full && !is_row);
  }
  if (row_form && kept >= 0) {
    kind_ = any_full ? "row_normalization" : (kept == 0 ? "whole_reduction" : "row_reduction");
    Segment s = PlanRows(kept, input_dims);
    if (s.blocks == 0) return std::vector<Segment>{};
    return std::vector<Segment>{s};
  }

  // Column form: every output is a reduce of [R,C] dims={0} or [A,R,C]
  // dims={1}, and there is no other reduce.
  bool column_form = (rank == 2 && SortedDims(reduces_[0]) == std::vector<int64_t>{0}) ||
                     (rank == 3 && SortedDims(reduces_[0]) == std::vector<int64_t>{1});
  for (const HloInstruction* r : reduces_) {
    column_form = column_form && r->operand(0)->shape().dimensions() == input_dims &&
                  SortedDims(r) == SortedDims(reduces_[0]);
    column_form = column_form && std::any_of(leaves_.begin(), leaves_.end(),
                                             [&](const OutputLeaf& l) { return l.instr == r; });
  }
  for (const OutputLeaf& leaf : leaves_) {
    column_form = column_form && leaf.instr->opcode() == HloOpcode::kReduce;
  }
  if (column_form) {
    kind_ = "column_reduction";
    Segment s = PlanColumns(input_dims);
    if (s.blocks == 0) return std::vector<Segment>{};
    return std::vector<Segment>{s};
  }
  return PlanLoop();  // generic: per element, loops over the reduced dims
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
  RETURN_IF_ERROR(CollectOutputs());
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
