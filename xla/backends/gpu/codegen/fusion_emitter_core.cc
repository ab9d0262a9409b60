#include "xla/backends/gpu/codegen/fusion_emitter_core.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "llvm/IR/Attributes.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "xla/backends/gpu/codegen/ir_loops.h"
#include "xla/backends/gpu/codegen/window_gather_ir.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

TransposeTiles::TransposeTiles(std::vector<int64_t> dims_in, int64_t tiled_in, int64_t tile_in)
    : dims(std::move(dims_in)), tiled(tiled_in), tile(tile_in) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  for (int64_t d = 0; d < rank; ++d) {
    if (d == tiled || d == rank - 1) continue;
    other_dims.push_back(d);
    other_sizes.push_back(dims[d]);
  }
  tiles_a = CeilDiv(dims[tiled], tile);
  tiles_c = CeilDiv(dims[rank - 1], tile);
}

TransposeTiles::Origin TransposeTiles::BlockOrigin(
    llvm::Value* block, llvm::IRBuilder<>* b,
    const std::function<void(llvm::Value* a0, llvm::Value* c0)>& between) const {
  llvm::Value* per = b->getInt64(tiles_a * tiles_c);
  llvm::Value* o = b->CreateUDiv(block, per);
  llvm::Value* rem = b->CreateURem(block, per);
  Origin origin;
  origin.a0 = b->CreateMul(b->CreateUDiv(rem, b->getInt64(tiles_c)), b->getInt64(tile));
  origin.c0 = b->CreateMul(b->CreateURem(rem, b->getInt64(tiles_c)), b->getInt64(tile));
  if (between) between(origin.a0, origin.c0);
  origin.batch = IrIndex::FromLinear(o, other_sizes, b).multidim();
  return origin;
}

IrIndex TransposeTiles::At(const std::vector<llvm::Value*>& batch, llvm::Value* a,
                           llvm::Value* c) const {
  std::vector<llvm::Value*> index(dims.size());
  for (size_t k = 0; k < other_dims.size(); ++k) index[other_dims[k]] = batch[k];
  index[tiled] = a;
  index[dims.size() - 1] = c;
  return IrIndex(index, dims);
}

FusionEmitterCore::FusionEmitterCore(const HloInstruction& fusion, absl::string_view emitter,
                                     llvm::Module* module, const MathEmitter* math)
    : fusion_(fusion),
      emitter_(emitter),
      module_(module),
      ctx_(module->getContext()),
      b_(ctx_),
      elemental_(module, &b_, math) {}

absl::Status FusionEmitterCore::Analyze() {
  const std::string prefix = absl::StrCat(emitter_, " fusion emitter: ");
  if (fusion_.opcode() != HloOpcode::kFusion) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, fusion_.name(), " is not a fusion instruction"));
  }
  computation_ = fusion_.GetComputation(AttrId::kCalls);
  if (computation_ == nullptr || computation_->root_instruction() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, "fusion ", fusion_.name(), " has no single called computation"));
  }
  for (const HloInstruction* op : fusion_.operands()) {
    if (!op->shape().IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat(prefix, "fusion ", fusion_.name(),
                                                     " has a non-array operand ", op->name()));
    }
  }
  ASSIGN_OR_RETURN(leaves_, CollectLeaves());
  reduces_ = CollectReduces(*computation_);
  return absl::OkStatus();
}

// CollectOutputLeaves, plus one leaf per value of a tuple-shaped (variadic)
// sort, topk or reduce-window root.
absl::StatusOr<std::vector<OutputLeaf>> FusionEmitterCore::CollectLeaves() const {
  const HloInstruction* root = computation_->root_instruction();
  const bool variadic_root =
      (root->opcode() == HloOpcode::kSort || root->opcode() == HloOpcode::kTopK ||
       root->opcode() == HloOpcode::kReduceWindow) &&
      root->shape().IsTuple();
  if (!variadic_root) return CollectOutputLeaves(emitter_, fusion_, *computation_);
  const size_t n = root->shape().tuple_shapes().size();
  if (!fusion_.shape().IsTuple() || fusion_.shape().tuple_shapes().size() != n) {
    return Unimplemented(root, "tuple-shaped root whose fusion shape does not match");
  }
  std::vector<OutputLeaf> leaves;
  for (size_t k = 0; k < n; ++k) {
    const Shape& shape = fusion_.shape().tuple_shapes()[k];
    if (!shape.IsArray()) return Unimplemented(root, "nested tuple output");
    leaves.push_back(OutputLeaf{root, static_cast<int64_t>(k), shape});
  }
  return leaves;
}

absl::Status FusionEmitterCore::CheckSymbolIsNew(const std::string& symbol) const {
  if (module_->getFunction(symbol) == nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(emitter_, " fusion emitter: symbol ", symbol, " already exists in the module"));
}

int64_t FusionEmitterCore::NumArgs() const {
  return fusion_.operand_count() + static_cast<int64_t>(leaves_.size());
}

const Shape& FusionEmitterCore::ArgShape(int64_t i) const {
  return i < fusion_.operand_count() ? fusion_.operand(i)->shape()
                                     : leaves_[i - fusion_.operand_count()].shape;
}

void FusionEmitterCore::AddBufferParamAttrs(llvm::Function* kernel, int64_t i,
                                            const std::vector<bool>& noalias,
                                            const std::vector<int64_t>& alignment) const {
  const size_t u = static_cast<size_t>(i);
  if (u < noalias.size() && noalias[u]) kernel->addParamAttr(i, llvm::Attribute::NoAlias);
  const int64_t align = std::max<int64_t>(16, u < alignment.size() ? alignment[u] : 16);
  kernel->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(align)));
  std::optional<int64_t> bytes = ArgShape(i).ByteSize();
  if (bytes.has_value() && *bytes > 0) kernel->addDereferenceableParamAttr(i, *bytes);
}

// ------------------------------------------------------------- generators

absl::Status FusionEmitterCore::BuildGenerators() {
  parameter_values_.assign(fusion_.operand_count(), nullptr);
  for (const HloInstruction* instr : computation_->MakePostOrder()) {
    RETURN_IF_ERROR(AddGenerator(instr));
  }
  return absl::OkStatus();
}

// The generator of one fused instruction, its operands' already built.
absl::Status FusionEmitterCore::AddGenerator(const HloInstruction* instr) {
  const HloOpcode opcode = instr->opcode();
  const bool is_root = instr == computation_->root_instruction();
  if (opcode == HloOpcode::kParameter) {
    const int64_t n = instr->parameter_number();
    if (n < 0 || n >= fusion_.operand_count()) {
      return Unimplemented(instr, "fused parameter without a matching array operand");
    }
    const IrArray array(args_[n], fusion_.operand(n)->shape());
    gens_[instr] = [this, array, n](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      if (parameter_values_[n] != nullptr) return parameter_values_[n];
      return array.EmitReadElement(index, &b_);
    };
    return absl::OkStatus();
  }
  const bool of_reduce_window = opcode == HloOpcode::kGetTupleElement &&
                                instr->operand(0)->opcode() == HloOpcode::kReduceWindow;
  if (opcode == HloOpcode::kReduce || (opcode == HloOpcode::kGetTupleElement && !of_reduce_window)) {
    const HloInstruction* reduce = opcode == HloOpcode::kReduce ? instr : instr->operand(0);
    if (opcode == HloOpcode::kReduce && instr->shape().IsTuple()) return absl::OkStatus();
    if (reduce->opcode() != HloOpcode::kReduce) {
      return Unimplemented(instr, "get-tuple-element of anything but a variadic reduce");
    }
    const int64_t k = opcode == HloOpcode::kReduce ? 0 : instr->tuple_index();
    gens_[instr] = [this, reduce, k](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      ASSIGN_OR_RETURN(Values values, ReduceValues(reduce, index));
      return values[k];
    };
    return absl::OkStatus();
  }
  if (opcode == HloOpcode::kReduceWindow || of_reduce_window) {
    // A tuple-shaped reduce-window: its get-tuple-elements or the output
    // leaves read it.
    if (opcode == HloOpcode::kReduceWindow && instr->shape().IsTuple()) return absl::OkStatus();
    const HloInstruction* rw = of_reduce_window ? instr->operand(0) : instr;
    const int64_t k = of_reduce_window ? instr->tuple_index() : 0;
    gens_[instr] = [this, rw, k](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      ASSIGN_OR_RETURN(Values values,
                       EmitReduceWindowElement(emitter_, *rw, index, gens_, elemental_, &b_));
      return values[k];
    };
    return absl::OkStatus();
  }
  if (opcode == HloOpcode::kConvolution) {
    gens_[instr] = [this, instr](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      return EmitConvolutionElement(emitter_, *instr, index, gens_, &b_);
    };
    return absl::OkStatus();
  }
  if (opcode == HloOpcode::kGather) {
    gens_[instr] = [this, instr](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      return EmitGatherElement(emitter_, *instr, index, gens_, &b_);
    };
    return absl::OkStatus();
  }
  if (opcode == HloOpcode::kSort || opcode == HloOpcode::kTopK ||
      opcode == HloOpcode::kSelectAndScatter || opcode == HloOpcode::kRngGetAndUpdateState ||
      opcode == HloOpcode::kTuple || opcode == HloOpcode::kScatter) {
    if (is_root) return absl::OkStatus();  // the outputs, or the kind emits it
    return Unimplemented(instr, "only supported as the fused root");
  }
  std::vector<ElementalIrEmitter::ElementGenerator> operands;
  for (const HloInstruction* op : instr->operands()) {
    if (!gens_.contains(op)) return Unimplemented(instr, "operand without a generator");
    operands.push_back(ForwardingGenerator(&gens_, op, &element_cache_));
  }
  ASSIGN_OR_RETURN(gens_[instr], elemental_.MakeElementGenerator(instr, operands));
  return absl::OkStatus();
}

// ------------------------------------------------------------------ values

absl::StatusOr<FusionEmitterCore::Values> FusionEmitterCore::ReduceValues(
    const HloInstruction* reduce, const IrIndex& index) {
  auto it = cache_.find(reduce);
  if (it != cache_.end() && it->second.index == index.multidim()) return it->second.values;
  return EmitSequentialReduce(emitter_, *reduce, index, gens_, elemental_, &b_);
}

void FusionEmitterCore::CacheReduceValues(const HloInstruction* reduce, const IrIndex& index,
                                          Values values) {
  cache_[reduce] = Cached{index.multidim(), std::move(values)};
}

absl::StatusOr<FusionEmitterCore::Values> FusionEmitterCore::Inits(const HloInstruction* reduce) {
  return EmitReduceInits(emitter_, *reduce, gens_);
}

absl::StatusOr<FusionEmitterCore::Values> FusionEmitterCore::ReducedElements(
    const HloInstruction* reduce, const IrIndex& index) {
  Values xs;
  for (int64_t k = 0; k < reduce->operand_count() / 2; ++k) {
    ASSIGN_OR_RETURN(llvm::Value * x, gens_.at(reduce->operand(k))(index));
    xs.push_back(x);
  }
  return xs;
}

absl::StatusOr<FusionEmitterCore::Values> FusionEmitterCore::Combine(const HloInstruction* reduce,
                                                                     const Values& a,
                                                                     const Values& b) {
  return EmitReducerCombine(emitter_, *reduce, a, b, elemental_);
}

absl::StatusOr<FusionEmitterCore::Values> FusionEmitterCore::EmitComputation(
    const HloComputation* computation, const Values& args) {
  return EmitScalarComputation(emitter_, *computation, args, elemental_);
}

absl::StatusOr<llvm::Value*> FusionEmitterCore::LeafValue(const OutputLeaf& leaf,
                                                          const IrIndex& index) {
  const bool tuple = leaf.instr->shape().IsTuple();
  if (leaf.instr->opcode() == HloOpcode::kReduce && tuple) {
    ASSIGN_OR_RETURN(Values values, ReduceValues(leaf.instr, index));
    return values[leaf.value];
  }
  if (leaf.instr->opcode() == HloOpcode::kReduceWindow && tuple) {
    ASSIGN_OR_RETURN(Values values, EmitReduceWindowElement(emitter_, *leaf.instr, index, gens_,
                                                            elemental_, &b_));
    return values[leaf.value];
  }
  return gens_.at(leaf.instr)(index);
}

absl::Status FusionEmitterCore::WriteLeaves(const std::vector<int64_t>& leaves,
                                            const IrIndex& index) {
  // Every value first, then the stores: a multi-output loop fusion may
  // write a result over an operand that another result still reads at this
  // index (in_place.h, CanShareOperandBufferAt).
  std::vector<llvm::Value*> values;
  values.reserve(leaves.size());
  for (int64_t k : leaves) {
    ASSIGN_OR_RETURN(llvm::Value * v, LeafValue(leaves_[k], index));
    values.push_back(v);
  }
  for (size_t j = 0; j < leaves.size(); ++j) {
    OutputArray(leaves[j]).EmitWriteElement(index, values[j], &b_);
  }
  return absl::OkStatus();
}

std::vector<int64_t> FusionEmitterCore::AllLeaves() const {
  std::vector<int64_t> all;
  for (size_t k = 0; k < leaves_.size(); ++k) all.push_back(static_cast<int64_t>(k));
  return all;
}

IrArray FusionEmitterCore::OutputArray(int64_t leaf) const {
  return IrArray(args_[fusion_.operand_count() + leaf], leaves_[leaf].shape);
}

absl::Status FusionEmitterCore::ScatterSourceElement(const HloInstruction& sas,
                                                     const IrArray& out, const IrIndex& source) {
  const HloComputation* scatter = sas.GetComputation(AttrId::kScatter);
  return EmitSelectAndScatterSelection(
      emitter_, sas, source, gens_, elemental_, &b_, [&](const IrIndex& t) -> absl::Status {
        ASSIGN_OR_RETURN(llvm::Value * value, gens_.at(sas.operand(1))(source));
        ASSIGN_OR_RETURN(Values next,
                         EmitComputation(scatter, {value, out.EmitReadElement(t, &b_)}));
        if (next.size() != 1) return Unimplemented(&sas, "scatter must return one value");
        out.EmitWriteElement(t, next[0], &b_);
        return absl::OkStatus();
      });
}

// -------------------------------------------------------------------- IR

absl::Status FusionEmitterCore::EmitLoop(llvm::Value* lo, llvm::Value* hi, llvm::Value* step,
                                         const std::string& name, const LoopBody& body) {
  return EmitForLoop(&b_, lo, hi, step, name, body);
}

absl::Status FusionEmitterCore::EmitLoop(int64_t lo, int64_t hi, const std::string& name,
                                         const LoopBody& body) {
  return EmitLoop(b_.getInt64(lo), b_.getInt64(hi), b_.getInt64(1), name, body);
}

absl::Status FusionEmitterCore::EmitIf(llvm::Value* cond,
                                       const std::function<absl::Status()>& then) {
  return EmitIfThen(&b_, cond, then);
}

absl::Status FusionEmitterCore::Verify(const llvm::Function& kernel) const {
  std::string error;
  llvm::raw_string_ostream os(error);
  if (!llvm::verifyFunction(kernel, &os)) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(emitter_, " fusion emitter produced invalid IR for ",
                                          fusion_.name(), ": ", os.str()));
}

std::vector<FusionKernelArg> FusionEmitterCore::KernelArgs() const {
  std::vector<FusionKernelArg> args;
  for (int64_t i = 0; i < fusion_.operand_count(); ++i) {
    args.push_back({false, i, fusion_.operand(i)->shape()});
  }
  for (size_t k = 0; k < leaves_.size(); ++k) {
    args.push_back({true, static_cast<int64_t>(k), leaves_[k].shape});
  }
  return args;
}

absl::Status FusionEmitterCore::Unimplemented(const HloInstruction* hlo,
                                              absl::string_view why) const {
  return FusionEmitterUnimplemented(emitter_, *hlo, why);
}

}  // namespace xla::gpu
