#include "xla/backends/gpu/codegen/nvptx/nvptx_fusion_emitter.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "xla/backends/gpu/codegen/elemental_ir_emitter.h"
#include "xla/backends/gpu/codegen/fusion_kernel_analysis.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/backends/gpu/codegen/ir_loops.h"
#include "xla/backends/gpu/codegen/reduction_ir.h"
#include "xla/backends/gpu/codegen/update_index_ir.h"
#include "xla/backends/gpu/codegen/window_gather_ir.h"
#include "xla/backends/gpu/codegen/nvptx/libdevice_math.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/types/primitive_type.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

using Gen = ElementalIrEmitter::ElementGenerator;
using Values = std::vector<llvm::Value*>;
constexpr unsigned kGlobal = 1;
constexpr unsigned kShared = 3;

int64_t Product(absl::Span<const int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

constexpr absl::string_view kEmitter = "nvptx";

absl::Status Unimplemented(const HloInstruction* hlo, absl::string_view why) {
  return FusionEmitterUnimplemented(kEmitter, *hlo, why);
}

// The launch kind of each analyzed kind but scatter (atomic or serial).
struct KindPair {
  FusionKernelKind analyzed;
  NvptxKernelKind launch;
};
constexpr KindPair kLaunchKinds[] = {
    {FusionKernelKind::kLoop, NvptxKernelKind::kLoop},
    {FusionKernelKind::kTranspose, NvptxKernelKind::kTranspose},
    {FusionKernelKind::kRowReduction, NvptxKernelKind::kRowReduction},
    {FusionKernelKind::kRowNormalization, NvptxKernelKind::kRowNormalization},
    {FusionKernelKind::kWholeReduction, NvptxKernelKind::kWholeReduction},
    {FusionKernelKind::kColumnReduction, NvptxKernelKind::kColumnReduction},
    {FusionKernelKind::kGenericReduction, NvptxKernelKind::kGenericReduction},
    {FusionKernelKind::kDusInPlace, NvptxKernelKind::kDusInPlace},
    {FusionKernelKind::kScatter, NvptxKernelKind::kScatterSerial},
};

NvptxKernelKind LaunchKind(FusionKernelKind kind) {
  for (const KindPair& k : kLaunchKinds) {
    if (k.analyzed == kind) return k.launch;
  }
  return NvptxKernelKind::kLoop;
}

// The outputs of `fusion`: CollectOutputLeaves, plus one leaf per value of a
// tuple-shaped (variadic) sort or reduce-window root, as the host emitter
// takes them.
absl::StatusOr<std::vector<OutputLeaf>> CollectLeaves(const HloInstruction& fusion,
                                                      const HloComputation& computation) {
  const HloInstruction* root = computation.root_instruction();
  const bool variadic_root =
      (root->opcode() == HloOpcode::kSort || root->opcode() == HloOpcode::kReduceWindow) &&
      root->shape().IsTuple();
  if (!variadic_root) return CollectOutputLeaves(kEmitter, fusion, computation);
  const size_t n = root->shape().tuple_shapes().size();
  if (!fusion.shape().IsTuple() || fusion.shape().tuple_shapes().size() != n) {
    return Unimplemented(root, "tuple-shaped root whose fusion shape does not match");
  }
  std::vector<OutputLeaf> leaves;
  for (size_t k = 0; k < n; ++k) {
    const Shape& shape = fusion.shape().tuple_shapes()[k];
    if (!shape.IsArray()) return Unimplemented(root, "nested tuple output");
    leaves.push_back(OutputLeaf{root, static_cast<int64_t>(k), shape});
  }
  return leaves;
}

// Row-major (descending minor_to_major, or no layout).
bool IsRowMajor(const Shape& shape) {
  if (!shape.has_layout()) return true;
  const std::vector<int64_t>& m2m = shape.layout().minor_to_major;
  for (size_t i = 0; i < m2m.size(); ++i) {
    if (m2m[i] != static_cast<int64_t>(m2m.size() - 1 - i)) return false;
  }
  return true;
}

class Emitter {
 public:
  Emitter(const HloInstruction& fusion, const NvptxEmitOptions& options, llvm::Module* module)
      : fusion_(fusion),
        options_(options),
        target_(options.target),
        module_(module),
        ctx_(module->getContext()),
        b_(ctx_),
        elemental_(module, &b_, &math_) {}

  absl::StatusOr<NvptxKernelInfo> Run(const std::string& symbol);

 private:
  absl::Status CreateKernel(const std::string& symbol);
  absl::Status BuildGenerators();
  absl::Status Classify();
  bool Vectorizable() const;

  // Kernels.
  absl::Status EmitLoopKernel();
  absl::Status EmitRowKernel();
  absl::Status EmitColumnKernel();
  absl::Status EmitTransposeKernel();
  absl::Status EmitDusKernel();
  absl::Status EmitScatterKernel(bool atomic);
  absl::Status EmitSortKernel();
  absl::Status EmitSelectAndScatterKernel();
  absl::Status ClassifySort();

  // IR helpers.
  llvm::Value* Sreg(llvm::Intrinsic::ID id) {
    return b_.CreateZExt(b_.CreateIntrinsic(id, {}, {}), b_.getInt64Ty());
  }
  absl::Status EmitLoop(llvm::Value* lo, llvm::Value* hi, llvm::Value* step,
                        const std::string& name,
                        const std::function<absl::Status(llvm::Value*)>& body) {
    return EmitForLoop(&b_, lo, hi, step, name, body);
  }
  absl::Status EmitLoop(int64_t lo, int64_t hi, const std::string& name,
                        const std::function<absl::Status(llvm::Value*)>& body) {
    return EmitLoop(b_.getInt64(lo), b_.getInt64(hi), b_.getInt64(1), name, body);
  }
  absl::Status EmitIf(llvm::Value* cond, const std::function<absl::Status()>& then) {
    return EmitIfThen(&b_, cond, then);
  }
  // The thread-indexed (or grid-stride) loop over [0, n) of loop-like kinds.
  absl::Status EmitThreadLoop(int64_t n, const std::function<absl::Status(llvm::Value*)>& body);
  llvm::AllocaInst* EntryAlloca(llvm::Type* type, const std::string& name) {
    return EmitEntryAlloca(&b_, type, nullptr, name);
  }
  llvm::GlobalVariable* SharedArray(llvm::Type* type, int64_t count, const std::string& name);
  void Barrier() { b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {}); }
  llvm::Value* ShuffleXor(llvm::Value* v, int lane_mask);
  absl::StatusOr<Values> Combine(const HloInstruction* reduce, const Values& a, const Values& b) {
    return EmitReducerCombine(kEmitter, *reduce, a, b, elemental_);
  }
  // Butterfly all-reduce over the warp's lanes. `valid` (i1, or null when
  // every lane holds a partial) leaves out the lanes without one, so the
  // init value is never folded in twice.
  absl::StatusOr<Values> WarpAllReduce(const HloInstruction* reduce, Values v,
                                       llvm::Value* valid = nullptr);
  // Folds positions pos, pos + step, ... below `count` of each reduce in
  // `reduces` into its accumulators `acc` (which hold the init values on
  // entry) with `load(q, c)` giving reduce q's values at position c. Over
  // all threads the init is folded in once, as on the host and in the
  // evaluator: the thread at position 0 folds from it, every other thread
  // starts from its first element (a thread with none keeps the init and
  // must be left out of the combine that follows).
  absl::Status FoldStrided(const std::vector<const HloInstruction*>& reduces,
                           const std::vector<std::vector<llvm::AllocaInst*>>& acc,
                           llvm::Value* pos, int64_t count, int64_t step, const std::string& name,
                           const std::function<absl::StatusOr<Values>(size_t, llvm::Value*)>& load);

  // Values.
  absl::StatusOr<Values> ReduceValues(const HloInstruction* reduce, const IrIndex& index);
  absl::StatusOr<Values> Inits(const HloInstruction* reduce) {
    return EmitReduceInits(kEmitter, *reduce, gens_);
  }
  // The reduced operands' elements at `index` (one per value of `reduce`).
  absl::StatusOr<Values> ReducedElements(const HloInstruction* reduce, const IrIndex& index) {
    Values xs;
    for (int64_t k = 0; k < reduce->operand_count() / 2; ++k) {
      ASSIGN_OR_RETURN(llvm::Value * x, gens_.at(reduce->operand(k))(index));
      xs.push_back(x);
    }
    return xs;
  }
  absl::StatusOr<llvm::Value*> LeafValue(const OutputLeaf& leaf, const IrIndex& index);
  absl::Status WriteLeaves(const std::vector<int64_t>& leaves, const IrIndex& index);
  IrArray OutputArray(int64_t leaf) const {
    return IrArray(args_[fusion_.operand_count() + leaf], leaves_[leaf].shape);
  }

  const HloInstruction& fusion_;
  const NvptxEmitOptions& options_;
  const NvptxTarget target_;
  llvm::Module* module_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  NvptxMathEmitter math_;
  ElementalIrEmitter elemental_;

  const HloComputation* computation_ = nullptr;
  std::vector<OutputLeaf> leaves_;
  llvm::Function* kernel_ = nullptr;
  std::vector<llvm::Value*> args_;
  FusedGenerators gens_;
  ElementCache element_cache_{&b_};
  std::vector<const HloInstruction*> reduces_;  // post order
  // Vectorized loop: the current lane's value per fused parameter number.
  std::vector<llvm::Value*> lane_values_;

  struct Cached {
    Values index;
    Values values;
  };
  absl::flat_hash_map<const HloInstruction*, Cached> cache_;

  NvptxKernelKind kind_ = NvptxKernelKind::kLoop;
  LaunchProblem problem_;
  LaunchChoice choice_;
  int64_t kept_ = 0;            // row kinds: kept (row) dims
  int64_t transpose_dim_ = -1;  // transpose: output dim along the input's minor dim
  int64_t static_shared_ = 0;
  bool scatter_in_place_ = false;  // scatter: the output aliases operand 0
  int64_t sort_dim_ = -1;          // sort: the sorted dimension
};

// ------------------------------------------------------------------ setup

absl::Status Emitter::CreateKernel(const std::string& symbol) {
  if (module_->getFunction(symbol) != nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("nvptx fusion emitter: symbol ", symbol, " already exists in the module"));
  }
  const int64_t num_args = fusion_.operand_count() + static_cast<int64_t>(leaves_.size());
  std::vector<llvm::Type*> params(num_args, llvm::PointerType::get(ctx_, kGlobal));
  kernel_ = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), params, false),
                                   llvm::Function::ExternalLinkage, symbol, module_);
  kernel_->setCallingConv(llvm::CallingConv::PTX_Kernel);
  kernel_->addFnAttr(llvm::Attribute::NoUnwind);
  for (int64_t i = 0; i < num_args; ++i) {
    const Shape& shape = i < fusion_.operand_count()
                             ? fusion_.operand(i)->shape()
                             : leaves_[i - fusion_.operand_count()].shape;
    const size_t u = static_cast<size_t>(i);
    if (u < options_.noalias.size() && options_.noalias[u]) {
      kernel_->addParamAttr(i, llvm::Attribute::NoAlias);
    }
    const int64_t align =
        std::max<int64_t>(16, u < options_.alignment.size() ? options_.alignment[u] : 16);
    kernel_->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(align)));
    std::optional<int64_t> bytes = shape.ByteSize();
    if (bytes.has_value() && *bytes > 0) kernel_->addDereferenceableParamAttr(i, *bytes);
    args_.push_back(kernel_->getArg(i));
  }
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", kernel_));
  return absl::OkStatus();
}

absl::Status Emitter::BuildGenerators() {
  const HloInstruction* root = computation_->root_instruction();
  lane_values_.assign(fusion_.operand_count(), nullptr);
  for (const HloInstruction* instr : computation_->MakePostOrder()) {
    const HloOpcode opcode = instr->opcode();
    if (opcode == HloOpcode::kParameter) {
      const int64_t n = instr->parameter_number();
      if (n < 0 || n >= fusion_.operand_count()) {
        return Unimplemented(instr, "fused parameter without a matching operand");
      }
      const IrArray array(args_[n], fusion_.operand(n)->shape());
      gens_[instr] = [this, array, n](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        if (lane_values_[n] != nullptr) return lane_values_[n];
        return array.EmitReadElement(index, &b_);
      };
      continue;
    }
    if (opcode == HloOpcode::kReduce) {
      if (instr->shape().IsTuple()) continue;
      gens_[instr] = [this, instr](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        ASSIGN_OR_RETURN(Values values, ReduceValues(instr, index));
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
    if (opcode == HloOpcode::kReduceWindow ||
        (opcode == HloOpcode::kGetTupleElement &&
         instr->operand(0)->opcode() == HloOpcode::kReduceWindow)) {
      if (opcode == HloOpcode::kReduceWindow && instr->shape().IsTuple()) {
        continue;  // its get-tuple-elements or the output leaves read it
      }
      const HloInstruction* rw = opcode == HloOpcode::kReduceWindow ? instr : instr->operand(0);
      const int64_t k = opcode == HloOpcode::kReduceWindow ? 0 : instr->tuple_index();
      gens_[instr] = [this, rw, k](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        ASSIGN_OR_RETURN(Values values,
                         EmitReduceWindowElement(kEmitter, *rw, index, gens_, elemental_, &b_));
        return values[k];
      };
      continue;
    }
    if (opcode == HloOpcode::kSort || opcode == HloOpcode::kSelectAndScatter) {
      if (instr == root) continue;  // EmitSortKernel / EmitSelectAndScatterKernel
      return Unimplemented(instr, "only supported as the fused root");
    }
    if (opcode == HloOpcode::kGetTupleElement) {
      const HloInstruction* op = instr->operand(0);
      if (op->opcode() != HloOpcode::kReduce) {
        return Unimplemented(instr, "get-tuple-element of anything but a variadic reduce");
      }
      const int64_t k = instr->tuple_index();
      gens_[instr] = [this, op, k](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        ASSIGN_OR_RETURN(Values values, ReduceValues(op, index));
        return values[k];
      };
      continue;
    }
    if (opcode == HloOpcode::kTuple || opcode == HloOpcode::kScatter) {
      if (instr == root) continue;
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

// Every array is a same-dims row-major f32 array (or a scalar parameter)
// and every instruction elementwise, so element i of each output depends
// only on element i of each input.
bool Emitter::Vectorizable() const {
  if (!options_.vectorize || !reduces_.empty()) return false;
  const std::vector<int64_t>& dims = leaves_[0].shape.dimensions();
  auto same_f32 = [&](const Shape& s) {
    return s.IsArray() && s.element_type() == PrimitiveType::F32 && s.dimensions() == dims &&
           IsRowMajor(s);
  };
  for (const OutputLeaf& leaf : leaves_) {
    if (!same_f32(leaf.shape)) return false;
  }
  for (const HloInstruction* op : fusion_.operands()) {
    if (!same_f32(op->shape()) && !op->shape().dimensions().empty()) return false;
  }
  for (const HloInstruction* instr : computation_->MakePostOrder()) {
    const HloOpcode opcode = instr->opcode();
    if (opcode == HloOpcode::kParameter || opcode == HloOpcode::kTuple) continue;
    if (instr->shape().dimensions().empty() && opcode == HloOpcode::kConstant) continue;
    if (opcode == HloOpcode::kBroadcast && instr->operand(0)->shape().dimensions().empty()) continue;
    if (!IsElementwise(opcode) || instr->shape().dimensions() != dims) return false;
  }
  return true;
}

absl::Status Emitter::Classify() {
  const HloInstruction* root = computation_->root_instruction();
  if (root->opcode() == HloOpcode::kSort) return ClassifySort();
  if (root->opcode() == HloOpcode::kSelectAndScatter) {
    if (root->operand_count() != 3 || root->GetComputation(AttrId::kScatter) == nullptr ||
        leaves_.size() != 1) {
      return Unimplemented(root, "malformed select-and-scatter");
    }
    kind_ = NvptxKernelKind::kSelectAndScatter;
    problem_.elements = Product(leaves_[0].shape.dimensions());
    return absl::OkStatus();
  }
  const FusionKernelAnalysis a =
      AnalyzeFusionKernel(*computation_, leaves_, reduces_, options_.output_aliases_operand);
  kind_ = LaunchKind(a.kind);
  const std::vector<int64_t>& input_dims = a.reduce_input_dims;
  const std::vector<int64_t>& dims = leaves_[0].shape.dimensions();
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t tile_bytes = 0;
  switch (a.kind) {
    case FusionKernelKind::kScatter: {
      if (root->operand_count() != 3 || root->to_apply() == nullptr) {
        return Unimplemented(root, "only single-operand scatter with to_apply is supported");
      }
      const HloInstruction* combiner = root->to_apply()->root_instruction();
      const PrimitiveType t = root->shape().element_type();
      const bool add = combiner->opcode() == HloOpcode::kAdd &&
                       combiner->operand(0)->opcode() == HloOpcode::kParameter &&
                       combiner->operand(1)->opcode() == HloOpcode::kParameter &&
                       combiner->operand(0) != combiner->operand(1);
      const bool atomic_type = t == PrimitiveType::F32 || t == PrimitiveType::F64 ||
                               t == PrimitiveType::S32 || t == PrimitiveType::U32 ||
                               t == PrimitiveType::S64 || t == PrimitiveType::U64;
      if (add && atomic_type && a.in_place) kind_ = NvptxKernelKind::kScatterAtomic;
      problem_.elements = Product(root->operand(2)->shape().dimensions());
      scatter_in_place_ = a.in_place;
      return absl::OkStatus();
    }
    case FusionKernelKind::kDusInPlace:
      problem_.elements = Product(root->operand(1)->shape().dimensions());
      return absl::OkStatus();
    case FusionKernelKind::kRowReduction:
    case FusionKernelKind::kRowNormalization:
    case FusionKernelKind::kWholeReduction:
      kept_ = a.kept_dims;
      problem_.rows = Product(std::vector<int64_t>(input_dims.begin(), input_dims.begin() + kept_));
      problem_.row_length =
          Product(std::vector<int64_t>(input_dims.begin() + kept_, input_dims.end()));
      return absl::OkStatus();
    case FusionKernelKind::kColumnReduction: {
      const int64_t in_rank = static_cast<int64_t>(input_dims.size());
      problem_.batch = in_rank == 3 ? input_dims[0] : 1;
      problem_.row_length = input_dims[in_rank - 2];
      problem_.columns = input_dims[in_rank - 1];
      return absl::OkStatus();
    }
    case FusionKernelKind::kTranspose: {
      for (const OutputLeaf& leaf : leaves_) {
        tile_bytes += 32 * 33 * ByteWidth(leaf.shape.element_type());
      }
      if (tile_bytes > target_.max_shared_memory_per_block / 2) {
        kind_ = NvptxKernelKind::kLoop;  // the tiles do not fit: a plain loop
        problem_.vectorizable = Vectorizable();
        break;
      }
      const int64_t j = a.transpose_dim;
      transpose_dim_ = j;
      problem_.rows = dims[j];
      problem_.columns = dims[rank - 1];
      problem_.batch = Product(dims) / std::max<int64_t>(1, dims[j] * dims[rank - 1]);
      if (dims[j] * dims[rank - 1] == 0) problem_.batch = 0;
      return absl::OkStatus();
    }
    case FusionKernelKind::kLoop:
      problem_.vectorizable = a.same_output_dims && Vectorizable();
      break;
    case FusionKernelKind::kGenericReduction:
      break;
  }
  int64_t n = 0;
  for (const OutputLeaf& leaf : leaves_) n = std::max(n, Product(leaf.shape.dimensions()));
  problem_.elements = n;
  return absl::OkStatus();
}

// ------------------------------------------------------------- IR helpers

absl::Status Emitter::EmitThreadLoop(int64_t n,
                                     const std::function<absl::Status(llvm::Value*)>& body) {
  llvm::Value* threads = b_.getInt64(choice_.threads_per_block);
  llvm::Value* i = b_.CreateAdd(
      b_.CreateMul(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), threads, "", true, true),
      Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x), "linear", true, true);
  if (!choice_.grid_stride) {
    return EmitIf(b_.CreateICmpSLT(i, b_.getInt64(n)), [&]() { return body(i); });
  }
  llvm::Value* stride =
      b_.CreateMul(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), threads, "", true, true);
  return EmitLoop(i, b_.getInt64(n), stride, "grid", body);
}

llvm::GlobalVariable* Emitter::SharedArray(llvm::Type* type, int64_t count,
                                           const std::string& name) {
  llvm::ArrayType* array = llvm::ArrayType::get(type, count);
  auto* global = new llvm::GlobalVariable(
      *module_, array, /*isConstant=*/false, llvm::GlobalValue::InternalLinkage,
      llvm::UndefValue::get(array), absl::StrCat(kernel_->getName().str(), ".", name), nullptr,
      llvm::GlobalValue::NotThreadLocal, kShared);
  global->setAlignment(llvm::Align(8));
  // ptxas places each array at an 8-byte boundary (the alignment above).
  static_shared_ = (static_shared_ + 7) / 8 * 8 +
                   static_cast<int64_t>(module_->getDataLayout().getTypeAllocSize(array));
  return global;
}

// A butterfly shuffle of any register type: 32-bit types directly, narrower
// ones widened, 64-bit ones as two halves.
llvm::Value* Emitter::ShuffleXor(llvm::Value* v, int lane_mask) {
  llvm::Value* full = b_.getInt32(-1);
  llvm::Value* mask = b_.getInt32(lane_mask);
  llvm::Value* clamp = b_.getInt32(0x1f);
  llvm::Type* type = v->getType();
  if (type->isFloatTy()) {
    return b_.CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_bfly_f32, {},
                              {full, v, mask, clamp});
  }
  auto shfl32 = [&](llvm::Value* x) {
    return b_.CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_bfly_i32, {}, {full, x, mask, clamp});
  };
  const unsigned bits = type->getPrimitiveSizeInBits();
  llvm::Type* int_type = b_.getIntNTy(bits);
  llvm::Value* as_int = type->isIntegerTy() ? v : b_.CreateBitCast(v, int_type);
  llvm::Value* result;
  if (bits <= 32) {
    result = b_.CreateTrunc(shfl32(b_.CreateZExt(as_int, b_.getInt32Ty())), int_type);
  } else {
    llvm::Value* lo = shfl32(b_.CreateTrunc(as_int, b_.getInt32Ty()));
    llvm::Value* hi = shfl32(b_.CreateTrunc(b_.CreateLShr(as_int, 32), b_.getInt32Ty()));
    result = b_.CreateOr(b_.CreateZExt(lo, int_type),
                         b_.CreateShl(b_.CreateZExt(hi, int_type), 32));
  }
  return type->isIntegerTy() ? result : b_.CreateBitCast(result, type);
}

absl::StatusOr<Values> Emitter::WarpAllReduce(const HloInstruction* reduce, Values v,
                                               llvm::Value* valid) {
  for (int mask = static_cast<int>(target_.warp_size) / 2; mask >= 1; mask /= 2) {
    Values other;
    for (llvm::Value* x : v) other.push_back(ShuffleXor(x, mask));
    ASSIGN_OR_RETURN(Values both, Combine(reduce, v, other));
    if (valid == nullptr) {
      v = both;
      continue;
    }
    // Both partials, else whichever exists (the invalid side's is unused).
    llvm::Value* other_valid = ShuffleXor(valid, mask);
    llvm::Value* both_valid = b_.CreateAnd(valid, other_valid);
    for (size_t k = 0; k < v.size(); ++k) {
      v[k] = b_.CreateSelect(both_valid, both[k], b_.CreateSelect(valid, v[k], other[k]));
    }
    valid = b_.CreateOr(valid, other_valid);
  }
  return v;
}

absl::Status Emitter::FoldStrided(
    const std::vector<const HloInstruction*>& reduces,
    const std::vector<std::vector<llvm::AllocaInst*>>& acc, llvm::Value* pos, int64_t count,
    int64_t step, const std::string& name,
    const std::function<absl::StatusOr<Values>(size_t, llvm::Value*)>& load) {
  llvm::Value* first = b_.CreateICmpEQ(pos, b_.getInt64(0));
  llvm::Value* has_one = b_.CreateICmpULT(pos, b_.getInt64(count));
  RETURN_IF_ERROR(EmitIf(b_.CreateAnd(b_.CreateNot(first), has_one), [&]() -> absl::Status {
    for (size_t q = 0; q < reduces.size(); ++q) {
      ASSIGN_OR_RETURN(Values xs, load(q, pos));
      for (size_t k = 0; k < xs.size(); ++k) b_.CreateStore(xs[k], acc[q][k]);
    }
    return absl::OkStatus();
  }));
  llvm::Value* start = b_.CreateSelect(first, pos, b_.CreateAdd(pos, b_.getInt64(step)));
  return EmitLoop(start, b_.getInt64(count), b_.getInt64(step), name,
                  [&](llvm::Value* c) -> absl::Status {
                    for (size_t q = 0; q < reduces.size(); ++q) {
                      Values cur;
                      for (llvm::AllocaInst* a : acc[q]) {
                        cur.push_back(b_.CreateLoad(a->getAllocatedType(), a));
                      }
                      ASSIGN_OR_RETURN(Values xs, load(q, c));
                      ASSIGN_OR_RETURN(Values next, Combine(reduces[q], cur, xs));
                      for (size_t k = 0; k < next.size(); ++k) b_.CreateStore(next[k], acc[q][k]);
                    }
                    return absl::OkStatus();
                  });
}

// ------------------------------------------------------------------ values

absl::StatusOr<Values> Emitter::ReduceValues(const HloInstruction* reduce, const IrIndex& index) {
  auto it = cache_.find(reduce);
  if (it != cache_.end() && it->second.index == index.multidim()) return it->second.values;
  return EmitSequentialReduce(kEmitter, *reduce, index, gens_, elemental_, &b_);
}

absl::StatusOr<llvm::Value*> Emitter::LeafValue(const OutputLeaf& leaf, const IrIndex& index) {
  if (leaf.instr->opcode() == HloOpcode::kReduce && leaf.instr->shape().IsTuple()) {
    ASSIGN_OR_RETURN(Values values, ReduceValues(leaf.instr, index));
    return values[leaf.value];
  }
  if (leaf.instr->opcode() == HloOpcode::kReduceWindow && leaf.instr->shape().IsTuple()) {
    ASSIGN_OR_RETURN(Values values, EmitReduceWindowElement(kEmitter, *leaf.instr, index, gens_,
                                                            elemental_, &b_));
    return values[leaf.value];
  }
  return gens_.at(leaf.instr)(index);
}

absl::Status Emitter::WriteLeaves(const std::vector<int64_t>& leaves, const IrIndex& index) {
  for (int64_t k : leaves) {
    ASSIGN_OR_RETURN(llvm::Value * v, LeafValue(leaves_[k], index));
    OutputArray(k).EmitWriteElement(index, v, &b_);
  }
  return absl::OkStatus();
}

// ----------------------------------------------------------------- kernels

absl::Status Emitter::EmitLoopKernel() {
  const std::vector<int64_t>& dims = leaves_[0].shape.dimensions();
  bool same_dims = true;
  for (const OutputLeaf& leaf : leaves_) same_dims = same_dims && leaf.shape.dimensions() == dims;
  std::vector<int64_t> all;
  for (size_t k = 0; k < leaves_.size(); ++k) all.push_back(static_cast<int64_t>(k));
  const int64_t vw = choice_.vector_width;
  return EmitThreadLoop(problem_.elements / vw, [&](llvm::Value* i) -> absl::Status {
    if (vw == 1 && same_dims) return WriteLeaves(all, IrIndex::FromLinear(i, dims, &b_));
    if (vw == 1) {
      for (int64_t k : all) {
        const std::vector<int64_t>& leaf_dims = leaves_[k].shape.dimensions();
        RETURN_IF_ERROR(EmitIf(b_.CreateICmpSLT(i, b_.getInt64(Product(leaf_dims))), [&]() {
          return WriteLeaves({k}, IrIndex::FromLinear(i, leaf_dims, &b_));
        }));
      }
      return absl::OkStatus();
    }
    // 4 consecutive elements: <4 x float> loads and stores, align 16.
    llvm::Type* f32 = b_.getFloatTy();
    llvm::Type* v4 = llvm::FixedVectorType::get(f32, 4);
    llvm::Value* base = b_.CreateMul(i, b_.getInt64(4), "", true, true);
    Values vectors(fusion_.operand_count(), nullptr);
    for (int64_t p = 0; p < fusion_.operand_count(); ++p) {
      if (fusion_.operand(p)->shape().dimensions().empty()) continue;
      vectors[p] = b_.CreateAlignedLoad(v4, b_.CreateInBoundsGEP(f32, args_[p], base),
                                        llvm::Align(16));
    }
    Values outs(leaves_.size(), llvm::PoisonValue::get(v4));
    for (int64_t lane = 0; lane < 4; ++lane) {
      for (size_t p = 0; p < vectors.size(); ++p) {
        lane_values_[p] = vectors[p] == nullptr ? nullptr : b_.CreateExtractElement(vectors[p], lane);
      }
      const IrIndex index = IrIndex::FromLinear(b_.CreateAdd(base, b_.getInt64(lane)), dims, &b_);
      for (int64_t k : all) {
        ASSIGN_OR_RETURN(llvm::Value * v, LeafValue(leaves_[k], index));
        outs[k] = b_.CreateInsertElement(outs[k], v, lane);
      }
    }
    std::fill(lane_values_.begin(), lane_values_.end(), nullptr);
    for (int64_t k : all) {
      b_.CreateAlignedStore(
          outs[k], b_.CreateInBoundsGEP(f32, args_[fusion_.operand_count() + k], base),
          llvm::Align(16));
    }
    return absl::OkStatus();
  });
}

absl::Status Emitter::EmitRowKernel() {
  const std::vector<int64_t> input_dims = reduces_[0]->operand(0)->shape().dimensions();
  const std::vector<int64_t> row_dims(input_dims.begin(), input_dims.begin() + kept_);
  const std::vector<int64_t> col_dims(input_dims.begin() + kept_, input_dims.end());
  const int64_t rows = Product(row_dims);
  const int64_t cols = Product(col_dims);
  std::vector<int64_t> row_leaves, full_leaves;
  for (size_t k = 0; k < leaves_.size(); ++k) {
    (leaves_[k].shape.dimensions() == row_dims ? row_leaves : full_leaves).push_back(k);
  }
  const int64_t warp = target_.warp_size;
  const int64_t threads = choice_.threads_per_block;
  const int64_t nwarps = threads / warp;
  llvm::Value* tid = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* block = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value* lane = b_.CreateURem(tid, b_.getInt64(warp), "lane");
  llvm::Value* warp_id = b_.CreateUDiv(tid, b_.getInt64(warp), "warp");
  llvm::Value* row = choice_.warp_per_row
                         ? b_.CreateAdd(b_.CreateMul(block, b_.getInt64(choice_.rows_per_block)),
                                        warp_id, "row")
                         : block;
  llvm::Value* pos = choice_.warp_per_row ? lane : tid;
  llvm::Value* step = b_.getInt64(choice_.warp_per_row ? warp : threads);

  auto cols_index = [&](const IrIndex& r, llvm::Value* c) {
    Values index = r.multidim();
    const IrIndex col = IrIndex::FromLinear(c, col_dims, &b_);
    index.insert(index.end(), col.multidim().begin(), col.multidim().end());
    return IrIndex(index, input_dims);
  };
  // Positions 0 .. positions-1 fold a row; those at or past `cols` hold no
  // partial (FoldStrided), and warps at or past `live_warps` publish none.
  const int64_t positions = choice_.warp_per_row ? warp : threads;
  const int64_t live_warps = std::max<int64_t>(1, std::min(nwarps, CeilDiv(cols, warp)));
  auto body = [&]() -> absl::Status {
    const IrIndex r = IrIndex::FromLinear(row, row_dims, &b_);
    for (const HloInstruction* reduce : reduces_) {
      ASSIGN_OR_RETURN(Values inits, Inits(reduce));
      const size_t n = inits.size();
      std::vector<llvm::AllocaInst*> acc;
      for (size_t k = 0; k < n; ++k) {
        acc.push_back(EntryAlloca(inits[k]->getType(), "acc"));
        b_.CreateStore(inits[k], acc[k]);
      }
      RETURN_IF_ERROR(FoldStrided({reduce}, {acc}, pos, cols, positions, "col",
                                  [&](size_t, llvm::Value* c) {
                                    return ReducedElements(reduce, cols_index(r, c));
                                  }));
      Values v;
      for (size_t k = 0; k < n; ++k) v.push_back(b_.CreateLoad(inits[k]->getType(), acc[k]));
      llvm::Value* valid = cols >= positions
                               ? nullptr
                               : b_.CreateOr(b_.CreateICmpEQ(pos, b_.getInt64(0)),
                                             b_.CreateICmpULT(pos, b_.getInt64(cols)));
      ASSIGN_OR_RETURN(v, WarpAllReduce(reduce, v, valid));
      if (!choice_.warp_per_row && nwarps > 1) {
        // Across warps: lane 0 of each warp publishes, then every warp
        // reduces the published partials, so every thread has the result.
        std::vector<llvm::GlobalVariable*> shared;
        for (size_t k = 0; k < n; ++k) {
          shared.push_back(SharedArray(v[k]->getType(), nwarps, "partials"));
        }
        RETURN_IF_ERROR(EmitIf(b_.CreateICmpEQ(lane, b_.getInt64(0)), [&]() {
          for (size_t k = 0; k < n; ++k) {
            b_.CreateStore(v[k], b_.CreateInBoundsGEP(shared[k]->getValueType(), shared[k],
                                                      {b_.getInt64(0), warp_id}));
          }
          return absl::OkStatus();
        }));
        Barrier();
        llvm::Value* published = b_.CreateICmpULT(lane, b_.getInt64(live_warps));
        llvm::Value* slot = b_.CreateSelect(published, lane, b_.getInt64(0));
        for (size_t k = 0; k < n; ++k) {
          v[k] = b_.CreateLoad(
              v[k]->getType(),
              b_.CreateInBoundsGEP(shared[k]->getValueType(), shared[k], {b_.getInt64(0), slot}));
        }
        ASSIGN_OR_RETURN(v, WarpAllReduce(reduce, v, live_warps >= warp ? nullptr : published));
      }
      cache_[reduce] = Cached{r.multidim(), v};
    }
    if (!row_leaves.empty()) {
      RETURN_IF_ERROR(EmitIf(b_.CreateICmpEQ(pos, b_.getInt64(0)),
                             [&]() { return WriteLeaves(row_leaves, r); }));
    }
    if (!full_leaves.empty()) {
      RETURN_IF_ERROR(EmitLoop(pos, b_.getInt64(cols), step, "out", [&](llvm::Value* c) {
        return WriteLeaves(full_leaves, cols_index(r, c));
      }));
    }
    cache_.clear();
    return absl::OkStatus();
  };
  if (!choice_.warp_per_row) return body();
  // Warp-uniform: whole warps skip rows past the end.
  return EmitIf(b_.CreateICmpULT(row, b_.getInt64(rows)), body);
}

absl::Status Emitter::EmitColumnKernel() {
  const std::vector<int64_t> input_dims = reduces_[0]->operand(0)->shape().dimensions();
  const bool batched = input_dims.size() == 3;
  const int64_t r_size = problem_.row_length;
  const int64_t c_size = problem_.columns;
  const int64_t tile = choice_.tile;
  const int64_t trows = choice_.tile_rows;
  const int64_t c_blocks = CeilDiv(c_size, tile);
  llvm::Value* tid = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* block = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value* tx = b_.CreateURem(tid, b_.getInt64(tile), "tx");
  llvm::Value* ty = b_.CreateUDiv(tid, b_.getInt64(tile), "ty");
  llvm::Value* a = b_.CreateUDiv(block, b_.getInt64(c_blocks));
  llvm::Value* c = b_.CreateAdd(
      b_.CreateMul(b_.CreateURem(block, b_.getInt64(c_blocks)), b_.getInt64(tile)), tx, "c");
  llvm::Value* c_ok = b_.CreateICmpULT(c, b_.getInt64(c_size));
  std::vector<Values> inits(reduces_.size());
  std::vector<std::vector<llvm::AllocaInst*>> acc(reduces_.size());
  for (size_t q = 0; q < reduces_.size(); ++q) {
    ASSIGN_OR_RETURN(inits[q], Inits(reduces_[q]));
    for (llvm::Value* init : inits[q]) {
      acc[q].push_back(EntryAlloca(init->getType(), "acc"));
      b_.CreateStore(init, acc[q].back());
    }
  }
  // Thread (tx, ty) folds rows ty, ty + 8, ... of column c: a warp reads 32
  // consecutive columns of one row (coalesced).
  // Rows ty >= r_size fold nothing, so only the first min(trows, r_size)
  // partials (at least row 0's, which holds the init) are combined below.
  RETURN_IF_ERROR(EmitIf(c_ok, [&]() {
    return FoldStrided(reduces_, acc, ty, r_size, trows, "red", [&](size_t q, llvm::Value* r) {
      return ReducedElements(reduces_[q],
                             IrIndex(batched ? Values{a, r, c} : Values{r, c}, input_dims));
    });
  }));
  // Partials through a [8][33] shared tile per value; row 0 folds them.
  const int64_t pitch = tile + 1;
  llvm::Value* mine = b_.CreateAdd(b_.CreateMul(ty, b_.getInt64(pitch)), tx);
  std::vector<std::vector<llvm::GlobalVariable*>> shared(reduces_.size());
  for (size_t q = 0; q < reduces_.size(); ++q) {
    for (size_t k = 0; k < inits[q].size(); ++k) {
      llvm::Type* t = inits[q][k]->getType();
      shared[q].push_back(SharedArray(t, trows * pitch, "column_tile"));
      b_.CreateStore(b_.CreateLoad(t, acc[q][k]),
                     b_.CreateInBoundsGEP(shared[q][k]->getValueType(), shared[q][k],
                                          {b_.getInt64(0), mine}));
    }
  }
  Barrier();
  return EmitIf(b_.CreateAnd(c_ok, b_.CreateICmpEQ(ty, b_.getInt64(0))), [&]() -> absl::Status {
    std::vector<Values> final_values(reduces_.size());
    for (size_t q = 0; q < reduces_.size(); ++q) {
      auto load_row = [&](int64_t j) {
        Values v;
        for (size_t k = 0; k < inits[q].size(); ++k) {
          llvm::Value* at = b_.CreateAdd(b_.getInt64(j * pitch), tx);
          v.push_back(b_.CreateLoad(inits[q][k]->getType(),
                                    b_.CreateInBoundsGEP(shared[q][k]->getValueType(),
                                                         shared[q][k], {b_.getInt64(0), at})));
        }
        return v;
      };
      Values v = load_row(0);
      for (int64_t j = 1; j < std::min(trows, r_size); ++j) {
        ASSIGN_OR_RETURN(v, Combine(reduces_[q], v, load_row(j)));
      }
      final_values[q] = v;
    }
    for (size_t k = 0; k < leaves_.size(); ++k) {
      const size_t q = std::find(reduces_.begin(), reduces_.end(), leaves_[k].instr) -
                       reduces_.begin();
      const IrIndex out(batched ? Values{a, c} : Values{c}, leaves_[k].shape.dimensions());
      OutputArray(k).EmitWriteElement(out, final_values[q][leaves_[k].value], &b_);
    }
    return absl::OkStatus();
  });
}

absl::Status Emitter::EmitTransposeKernel() {
  const std::vector<int64_t>& dims = leaves_[0].shape.dimensions();
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t j = transpose_dim_;
  const int64_t tile = choice_.tile;
  const int64_t trows = choice_.tile_rows;
  const int64_t pitch = tile + 1;  // padding: column reads hit 32 banks
  std::vector<int64_t> other_dims, other_sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == j || d == rank - 1) continue;
    other_dims.push_back(d);
    other_sizes.push_back(dims[d]);
  }
  const int64_t tiles_a = CeilDiv(dims[j], tile);
  const int64_t tiles_c = CeilDiv(dims[rank - 1], tile);
  llvm::Value* tid = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* block = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value* tx = b_.CreateURem(tid, b_.getInt64(tile), "tx");
  llvm::Value* ty = b_.CreateUDiv(tid, b_.getInt64(tile), "ty");
  llvm::Value* per = b_.getInt64(tiles_a * tiles_c);
  llvm::Value* o = b_.CreateUDiv(block, per);
  llvm::Value* rem = b_.CreateURem(block, per);
  llvm::Value* a0 = b_.CreateMul(b_.CreateUDiv(rem, b_.getInt64(tiles_c)), b_.getInt64(tile));
  llvm::Value* c0 = b_.CreateMul(b_.CreateURem(rem, b_.getInt64(tiles_c)), b_.getInt64(tile));
  const Values other = IrIndex::FromLinear(o, other_sizes, &b_).multidim();
  auto index_of = [&](llvm::Value* a, llvm::Value* c) {
    Values index(rank);
    for (size_t k = 0; k < other_dims.size(); ++k) index[other_dims[k]] = other[k];
    index[j] = a;
    index[rank - 1] = c;
    return IrIndex(index, dims);
  };
  std::vector<llvm::GlobalVariable*> tiles;
  for (const OutputLeaf& leaf : leaves_) {
    tiles.push_back(SharedArray(ElementIrType(leaf.shape.element_type(), ctx_), tile * pitch,
                                "transpose_tile"));
  }
  auto in_range = [&](llvm::Value* a, llvm::Value* c) {
    return b_.CreateAnd(b_.CreateICmpULT(a, b_.getInt64(dims[j])),
                        b_.CreateICmpULT(c, b_.getInt64(dims[rank - 1])));
  };
  // Phase 1: consecutive threads take consecutive `a` (the input's minor
  // dimension): tile[c - c0][a - a0] = value(a, c).
  for (int64_t k = 0; k < tile / trows; ++k) {
    llvm::Value* row = b_.CreateAdd(ty, b_.getInt64(k * trows));
    llvm::Value* a = b_.CreateAdd(a0, tx);
    llvm::Value* c = b_.CreateAdd(c0, row);
    RETURN_IF_ERROR(EmitIf(in_range(a, c), [&]() -> absl::Status {
      llvm::Value* at = b_.CreateAdd(b_.CreateMul(row, b_.getInt64(pitch)), tx);
      for (size_t l = 0; l < leaves_.size(); ++l) {
        ASSIGN_OR_RETURN(llvm::Value * v, LeafValue(leaves_[l], index_of(a, c)));
        b_.CreateStore(v, b_.CreateInBoundsGEP(tiles[l]->getValueType(), tiles[l],
                                               {b_.getInt64(0), at}));
      }
      return absl::OkStatus();
    }));
  }
  Barrier();
  // Phase 2: consecutive threads take consecutive `c` (the output's minor
  // dimension), reading a tile column (stride 33: no bank conflicts).
  for (int64_t k = 0; k < tile / trows; ++k) {
    llvm::Value* row = b_.CreateAdd(ty, b_.getInt64(k * trows));
    llvm::Value* a = b_.CreateAdd(a0, row);
    llvm::Value* c = b_.CreateAdd(c0, tx);
    RETURN_IF_ERROR(EmitIf(in_range(a, c), [&]() -> absl::Status {
      llvm::Value* at = b_.CreateAdd(b_.CreateMul(tx, b_.getInt64(pitch)), row);
      for (size_t l = 0; l < leaves_.size(); ++l) {
        llvm::Value* v = b_.CreateLoad(
            ElementIrType(leaves_[l].shape.element_type(), ctx_),
            b_.CreateInBoundsGEP(tiles[l]->getValueType(), tiles[l], {b_.getInt64(0), at}));
        OutputArray(l).EmitWriteElement(index_of(a, c), v, &b_);
      }
      return absl::OkStatus();
    }));
  }
  return absl::OkStatus();
}

absl::Status Emitter::EmitDusKernel() {
  const HloInstruction* dus = computation_->root_instruction();
  const HloInstruction* update = dus->operand(1);
  const std::vector<int64_t>& dims = dus->shape().dimensions();
  const std::vector<int64_t>& update_dims = update->shape().dimensions();
  return EmitThreadLoop(problem_.elements, [&](llvm::Value* i) -> absl::Status {
    const IrIndex u = IrIndex::FromLinear(i, update_dims, &b_);
    ASSIGN_OR_RETURN(Values target, EmitDusStarts(*dus, gens_, &b_));
    for (size_t d = 0; d < dims.size(); ++d) target[d] = b_.CreateAdd(target[d], u[d]);
    ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(update)(u));
    OutputArray(0).EmitWriteElement(IrIndex(target, dims), v, &b_);
    return absl::OkStatus();
  });
}

absl::Status Emitter::EmitScatterKernel(bool atomic) {
  const HloInstruction* scatter = computation_->root_instruction();
  const HloInstruction* updates = scatter->operand(2);
  const std::vector<int64_t>& update_dims = updates->shape().dimensions();
  const IrArray out = OutputArray(0);
  ASSIGN_OR_RETURN(const ScatterIndexing indexing, AnalyzeScatterIndexing(kEmitter, *scatter));
  auto one_update = [&](llvm::Value* i) -> absl::Status {
    const IrIndex u = IrIndex::FromLinear(i, update_dims, &b_);
    llvm::Value* inside = nullptr;
    ASSIGN_OR_RETURN(IrIndex t, EmitScatterTarget(indexing, u, gens_, &b_, &inside));
    return EmitIf(inside, [&]() -> absl::Status {
      ASSIGN_OR_RETURN(llvm::Value * update, gens_.at(updates)(u));
      if (atomic) {
        const bool is_float = update->getType()->isFloatingPointTy();
        b_.CreateAtomicRMW(is_float ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add,
                           out.EmitElementAddress(t, &b_), update,
                           llvm::MaybeAlign(ByteWidth(scatter->shape().element_type())),
                           llvm::AtomicOrdering::Monotonic);
        return absl::OkStatus();
      }
      llvm::Value* old = out.EmitReadElement(t, &b_);
      ASSIGN_OR_RETURN(Values next, Combine(scatter, {old}, {update}));
      out.EmitWriteElement(t, next[0], &b_);
      return absl::OkStatus();
    });
  };
  if (atomic) return EmitThreadLoop(problem_.elements, one_update);
  // Serial: one thread copies the operand (unless in place), then applies
  // the updates in order, so duplicates combine deterministically.
  if (!scatter_in_place_) {
    const std::vector<int64_t>& dims = scatter->shape().dimensions();
    RETURN_IF_ERROR(EmitLoop(0, Product(dims), "copy", [&](llvm::Value* i) -> absl::Status {
      const IrIndex index = IrIndex::FromLinear(i, dims, &b_);
      ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(scatter->operand(0))(index));
      out.EmitWriteElement(index, v, &b_);
      return absl::OkStatus();
    }));
  }
  return EmitLoop(0, problem_.elements, "update", one_update);
}

// Sort: one block per line along sort_dim_ (see EmitSortKernel). The
// shared-memory path needs each operand's line plus the i32 original
// positions, each array 8-byte aligned as SharedArray places them.
absl::Status Emitter::ClassifySort() {
  const HloInstruction* sort = computation_->root_instruction();
  const std::vector<int64_t>& sort_dims = sort->dimensions();
  if (sort->operand_count() < 1 || sort_dims.size() != 1 || sort->to_apply() == nullptr ||
      static_cast<int64_t>(leaves_.size()) != sort->operand_count()) {
    return Unimplemented(sort, "malformed sort: expected one sort dimension, a comparator "
                               "and one output per operand");
  }
  const std::vector<int64_t>& dims = sort->operand(0)->shape().dimensions();
  sort_dim_ = sort_dims[0];
  if (sort_dim_ < 0 || sort_dim_ >= static_cast<int64_t>(dims.size())) {
    return Unimplemented(sort, "sort dimension out of range");
  }
  for (int64_t k = 0; k < sort->operand_count(); ++k) {
    if (sort->operand(k)->shape().dimensions() != dims || leaves_[k].shape.dimensions() != dims) {
      return Unimplemented(sort, "sort operands and outputs of different dimensions");
    }
  }
  kind_ = NvptxKernelKind::kSort;
  const int64_t len = dims[sort_dim_];
  problem_.row_length = len;
  problem_.rows = len == 0 ? 0 : Product(dims) / len;
  const llvm::DataLayout& layout = module_->getDataLayout();
  int64_t bytes = 0;
  auto add = [&](llvm::Type* type) {
    bytes = (bytes + 7) / 8 * 8 + len * static_cast<int64_t>(layout.getTypeAllocSize(type));
  };
  for (const OutputLeaf& leaf : leaves_) add(ElementIrType(leaf.shape.element_type(), ctx_));
  add(b_.getInt32Ty());
  // Longer lines could not index positions in i32: force the global path.
  problem_.sort_shared_bytes =
      len > std::numeric_limits<int32_t>::max() ? std::numeric_limits<int64_t>::max() : bytes;
  return absl::OkStatus();
}

// One block per sort line (block b: line b of the dims without sort_dim_).
//   Shared (choice_.sort_in_shared): the line's values and original
//   positions are loaded into shared memory, sorted by a bitonic network
//   and written out. The network is the variant with a mirrored first step
//   per merge, where every compare-exchange puts the earlier element at the
//   lower position; positions >= len then behave as +infinity padding, so
//   the line needs no padding and compares reaching past it are skipped.
//   Ties (neither element before the other under the comparator) are
//   ordered by original position, which makes the order total: the result
//   is the unique stable sort, the host's and the evaluator's, whatever
//   is_stable says (cost: a second comparator call per compare-exchange).
//   Global (longer lines): the line is copied to the outputs and sorted
//   there by odd-even transposition (len phases of adjacent
//   compare-exchanges, bar.sync between phases). It swaps only strictly
//   out-of-order neighbours, so it is stable too, but takes O(len) phases:
//   correct, slow for very long lines.
// The comparator is the sort's to_apply through the elemental emitter on
// (lhs_0, rhs_0, lhs_1, rhs_1, ...); it must be a strict weak order.
absl::Status Emitter::EmitSortKernel() {
  const HloInstruction* sort = computation_->root_instruction();
  const std::vector<int64_t>& dims = sort->operand(0)->shape().dimensions();
  const int64_t len = problem_.row_length;
  const int64_t n = sort->operand_count();
  const bool shared = choice_.sort_in_shared;
  std::vector<int64_t> line_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (d != sort_dim_) line_dims.push_back(dims[d]);
  }
  llvm::Value* tid = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* threads = b_.getInt64(choice_.threads_per_block);
  const Values line =
      IrIndex::FromLinear(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), line_dims, &b_)
          .multidim();
  auto at = [&](llvm::Value* j) {
    Values index = line;
    index.insert(index.begin() + sort_dim_, j);
    return IrIndex(index, dims);
  };
  std::vector<llvm::Type*> types;
  std::vector<llvm::GlobalVariable*> arrays;
  llvm::GlobalVariable* positions = nullptr;
  for (int64_t k = 0; k < n; ++k) {
    types.push_back(ElementIrType(leaves_[k].shape.element_type(), ctx_));
    if (shared) arrays.push_back(SharedArray(types[k], len, "sort_values"));
  }
  if (shared) positions = SharedArray(b_.getInt32Ty(), len, "sort_positions");
  auto slot = [&](llvm::GlobalVariable* array, llvm::Value* j) {
    return b_.CreateInBoundsGEP(array->getValueType(), array, {b_.getInt64(0), j});
  };
  auto load = [&](int64_t k, llvm::Value* j) -> llvm::Value* {
    if (shared) return b_.CreateLoad(types[k], slot(arrays[k], j));
    return OutputArray(k).EmitReadElement(at(j), &b_);
  };
  auto store = [&](int64_t k, llvm::Value* j, llvm::Value* v) {
    if (shared) {
      b_.CreateStore(v, slot(arrays[k], j));
    } else {
      OutputArray(k).EmitWriteElement(at(j), v, &b_);
    }
  };
  auto strided = [&](int64_t end, const std::string& name,
                     const std::function<absl::Status(llvm::Value*)>& body) {
    return EmitLoop(tid, b_.getInt64(end), threads, name, body);
  };
  // The line, read through the fused operands' generators (all operands
  // before any store, in case an output shares an operand's buffer).
  RETURN_IF_ERROR(strided(len, "sort_load", [&](llvm::Value* j) -> absl::Status {
    Values values;
    for (int64_t k = 0; k < n; ++k) {
      ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(sort->operand(k))(at(j)));
      values.push_back(v);
    }
    for (int64_t k = 0; k < n; ++k) store(k, j, values[k]);
    if (shared) b_.CreateStore(b_.CreateTrunc(j, b_.getInt32Ty()), slot(positions, j));
    return absl::OkStatus();
  }));
  Barrier();
  // True when the element `a` comes strictly before `b` under the comparator.
  auto before = [&](const Values& a, const Values& b) -> absl::StatusOr<llvm::Value*> {
    Values args;
    for (int64_t k = 0; k < n; ++k) {
      args.push_back(a[k]);
      args.push_back(b[k]);
    }
    ASSIGN_OR_RETURN(Values result,
                     EmitScalarComputation(kEmitter, *sort->to_apply(), args, elemental_));
    if (result.size() != 1) return Unimplemented(sort, "the comparator must return one pred");
    return b_.CreateICmpNE(result[0], llvm::ConstantInt::get(result[0]->getType(), 0));
  };
  // Positions i < l: afterwards the element at l does not come before i's.
  auto exchange = [&](llvm::Value* i, llvm::Value* l) -> absl::Status {
    Values x, y;
    for (int64_t k = 0; k < n; ++k) {
      x.push_back(load(k, i));
      y.push_back(load(k, l));
    }
    ASSIGN_OR_RETURN(llvm::Value * swap, before(y, x));
    llvm::Value* pi = nullptr;
    llvm::Value* pl = nullptr;
    if (shared) {
      pi = b_.CreateLoad(b_.getInt32Ty(), slot(positions, i));
      pl = b_.CreateLoad(b_.getInt32Ty(), slot(positions, l));
      ASSIGN_OR_RETURN(llvm::Value * x_first, before(x, y));
      swap = b_.CreateOr(swap, b_.CreateAnd(b_.CreateNot(x_first), b_.CreateICmpUGT(pi, pl)));
    }
    return EmitIf(swap, [&]() {
      for (int64_t k = 0; k < n; ++k) {
        store(k, i, y[k]);
        store(k, l, x[k]);
      }
      if (shared) {
        b_.CreateStore(pl, slot(positions, i));
        b_.CreateStore(pi, slot(positions, l));
      }
      return absl::OkStatus();
    });
  };
  if (!shared) {
    // Phase q compares (2p + q % 2, 2p + q % 2 + 1).
    return EmitLoop(0, len, "sort_phase", [&](llvm::Value* q) -> absl::Status {
      llvm::Value* odd = b_.CreateAnd(q, b_.getInt64(1));
      RETURN_IF_ERROR(strided(len / 2, "sort_pair", [&](llvm::Value* p) {
        llvm::Value* i = b_.CreateAdd(b_.CreateShl(p, 1), odd);
        llvm::Value* l = b_.CreateAdd(i, b_.getInt64(1));
        return EmitIf(b_.CreateICmpULT(l, b_.getInt64(len)), [&]() { return exchange(i, l); });
      }));
      Barrier();
      return absl::OkStatus();
    });
  }
  int64_t log_p = 0;
  while ((int64_t{1} << log_p) < len) ++log_p;
  const int64_t pairs = (int64_t{1} << log_p) / 2;
  // Stage s merges sorted runs of 2^(s-1) into runs of 2^s: step 0 compares
  // mirrored positions of each 2^s block, step u > 0 positions 2^(s-1-u)
  // apart. bar.sync after every step (the loop bounds are block-uniform).
  RETURN_IF_ERROR(EmitLoop(1, log_p + 1, "sort_stage", [&](llvm::Value* s) {
    return EmitLoop(b_.getInt64(0), s, b_.getInt64(1), "sort_step",
                    [&](llvm::Value* u) -> absl::Status {
      llvm::Value* shift = b_.CreateSub(b_.CreateSub(s, b_.getInt64(1)), u);
      llvm::Value* dist = b_.CreateShl(b_.getInt64(1), shift);
      llvm::Value* mirrored = b_.CreateICmpEQ(u, b_.getInt64(0));
      RETURN_IF_ERROR(strided(pairs, "sort_pair", [&](llvm::Value* p) {
        // Pair p: offset r in its group of `dist` pairs, group base g * 2dist.
        llvm::Value* base =
            b_.CreateShl(b_.CreateLShr(p, shift), b_.CreateAdd(shift, b_.getInt64(1)));
        llvm::Value* r = b_.CreateAnd(p, b_.CreateSub(dist, b_.getInt64(1)));
        llvm::Value* i = b_.CreateAdd(base, r);
        llvm::Value* mirror = b_.CreateSub(
            b_.CreateAdd(base, b_.CreateSub(b_.CreateShl(dist, 1), b_.getInt64(1))), r);
        llvm::Value* l = b_.CreateSelect(mirrored, mirror, b_.CreateAdd(i, dist));
        return EmitIf(b_.CreateICmpULT(l, b_.getInt64(len)), [&]() { return exchange(i, l); });
      }));
      Barrier();
      return absl::OkStatus();
    });
  }));
  return strided(len, "sort_store", [&](llvm::Value* j) -> absl::Status {
    for (int64_t k = 0; k < n; ++k) OutputArray(k).EmitWriteElement(at(j), load(k, j), &b_);
    return absl::OkStatus();
  });
}

// One thread, the host's order exactly: the output set to init, then per
// source element (row-major) the shared window selection and
// output[selected] = scatter(source, output[selected]). Serial because
// overlapping windows make later updates depend on earlier ones for any
// scatter computation (an atomic variant for add is future work).
absl::Status Emitter::EmitSelectAndScatterKernel() {
  const HloInstruction* sas = computation_->root_instruction();
  const HloComputation* scatter = sas->GetComputation(AttrId::kScatter);
  const std::vector<int64_t>& out_dims = leaves_[0].shape.dimensions();
  const std::vector<int64_t>& source_dims = sas->operand(1)->shape().dimensions();
  const IrArray out = OutputArray(0);
  ASSIGN_OR_RETURN(llvm::Value * init, gens_.at(sas->operand(2))(IrIndex()));
  RETURN_IF_ERROR(EmitLoop(0, Product(out_dims), "init", [&](llvm::Value* i) {
    out.EmitWriteElement(IrIndex::FromLinear(i, out_dims, &b_), init, &b_);
    return absl::OkStatus();
  }));
  return EmitLoop(0, Product(source_dims), "source", [&](llvm::Value* i) -> absl::Status {
    const IrIndex si = IrIndex::FromLinear(i, source_dims, &b_);
    return EmitSelectAndScatterSelection(
        kEmitter, *sas, si, gens_, elemental_, &b_, [&](const IrIndex& t) -> absl::Status {
          ASSIGN_OR_RETURN(llvm::Value * source, gens_.at(sas->operand(1))(si));
          ASSIGN_OR_RETURN(Values next, EmitScalarComputation(
                                            kEmitter, *scatter, {source, out.EmitReadElement(t, &b_)},
                                            elemental_));
          if (next.size() != 1) return Unimplemented(sas, "scatter must return one value");
          out.EmitWriteElement(t, next[0], &b_);
          return absl::OkStatus();
        });
  });
}

absl::StatusOr<NvptxKernelInfo> Emitter::Run(const std::string& symbol) {
  if (fusion_.opcode() != HloOpcode::kFusion) {
    return absl::InvalidArgumentError(absl::StrCat("nvptx fusion emitter: ", fusion_.name(),
                                                   " is not a fusion instruction"));
  }
  computation_ = fusion_.GetComputation(AttrId::kCalls);
  if (computation_ == nullptr || computation_->root_instruction() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "nvptx fusion emitter: fusion ", fusion_.name(), " has no single called computation"));
  }
  for (const HloInstruction* op : fusion_.operands()) {
    if (!op->shape().IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat("nvptx fusion emitter: fusion ",
                                                     fusion_.name(), " has a non-array operand ",
                                                     op->name()));
    }
  }
  ASSIGN_OR_RETURN(leaves_, CollectLeaves(fusion_, *computation_));
  reduces_ = CollectReduces(*computation_);
  RETURN_IF_ERROR(CreateKernel(symbol));
  RETURN_IF_ERROR(BuildGenerators());
  RETURN_IF_ERROR(Classify());
  problem_.kind = kind_;
  ASSIGN_OR_RETURN(choice_, ChooseLaunchDimensions(problem_, target_));
  if (choice_.blocks > 0) {
    switch (kind_) {
      case NvptxKernelKind::kLoop:
      case NvptxKernelKind::kGenericReduction:
        RETURN_IF_ERROR(EmitLoopKernel());
        break;
      case NvptxKernelKind::kRowReduction:
      case NvptxKernelKind::kRowNormalization:
      case NvptxKernelKind::kWholeReduction:
        RETURN_IF_ERROR(EmitRowKernel());
        break;
      case NvptxKernelKind::kColumnReduction:
        RETURN_IF_ERROR(EmitColumnKernel());
        break;
      case NvptxKernelKind::kTranspose:
        RETURN_IF_ERROR(EmitTransposeKernel());
        break;
      case NvptxKernelKind::kDusInPlace:
        RETURN_IF_ERROR(EmitDusKernel());
        break;
      case NvptxKernelKind::kScatterAtomic:
      case NvptxKernelKind::kScatterSerial:
        RETURN_IF_ERROR(EmitScatterKernel(kind_ == NvptxKernelKind::kScatterAtomic));
        break;
      case NvptxKernelKind::kSort:
        RETURN_IF_ERROR(EmitSortKernel());
        break;
      case NvptxKernelKind::kSelectAndScatter:
        RETURN_IF_ERROR(EmitSelectAndScatterKernel());
        break;
    }
  }
  b_.CreateRetVoid();
  llvm::NamedMDNode* annotations = module_->getOrInsertNamedMetadata("nvvm.annotations");
  annotations->addOperand(llvm::MDNode::get(
      ctx_, {llvm::ValueAsMetadata::get(kernel_), llvm::MDString::get(ctx_, "maxntidx"),
             llvm::ValueAsMetadata::get(b_.getInt32(choice_.threads_per_block))}));
  std::string error;
  llvm::raw_string_ostream os(error);
  if (llvm::verifyFunction(*kernel_, &os)) {
    return absl::InternalError(absl::StrCat("nvptx fusion emitter produced invalid IR for ",
                                            fusion_.name(), ": ", os.str()));
  }
  NvptxKernelInfo info;
  info.symbol = symbol;
  info.kind = std::string(NvptxKernelKindName(kind_));
  info.choice = choice_;
  info.launch.grid_x = choice_.blocks;
  info.launch.block_x = choice_.threads_per_block;
  info.static_shared_bytes = static_shared_;
  for (int64_t i = 0; i < fusion_.operand_count(); ++i) {
    info.args.push_back({false, i, fusion_.operand(i)->shape()});
  }
  for (size_t k = 0; k < leaves_.size(); ++k) {
    info.args.push_back({true, static_cast<int64_t>(k), leaves_[k].shape});
  }
  return info;
}

}  // namespace

absl::StatusOr<NvptxKernelInfo> EmitNvptxFusionKernel(const HloInstruction& fusion,
                                                      const std::string& symbol,
                                                      const NvptxEmitOptions& options,
                                                      llvm::Module* module) {
  Emitter emitter(fusion, options, module);
  return emitter.Run(symbol);
}

}  // namespace xla::gpu
