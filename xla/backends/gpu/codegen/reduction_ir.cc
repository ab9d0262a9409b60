#include "xla/backends/gpu/codegen/reduction_ir.h"

#include <functional>

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/codegen/fusion_kernel_analysis.h"
#include "xla/backends/gpu/codegen/ir_loops.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::StatusOr<llvm::Value*> ElementCache::Get(const FusedGenerators& gens,
                                               const HloInstruction* instr,
                                               const IrIndex& index) {
  std::pair<const HloInstruction*, std::vector<llvm::Value*>> key(instr, index.multidim());
  if (auto it = values_.find(key); it != values_.end()) {
    auto* defined = llvm::dyn_cast<llvm::Instruction>(it->second);
    if (defined == nullptr || defined->getParent() == b_->GetInsertBlock()) return it->second;
  }
  ASSIGN_OR_RETURN(llvm::Value * value, gens.at(instr)(index));
  values_[std::move(key)] = value;
  return value;
}

ElementalIrEmitter::ElementGenerator ForwardingGenerator(const FusedGenerators* gens,
                                                         const HloInstruction* instr,
                                                         ElementCache* cache) {
  if (cache != nullptr) {
    return [gens, instr, cache](const IrIndex& index) { return cache->Get(*gens, instr, index); };
  }
  return [gens, instr](const IrIndex& index) { return gens->at(instr)(index); };
}

absl::StatusOr<std::vector<llvm::Value*>> EmitScalarComputation(
    absl::string_view emitter, const HloComputation& computation,
    const std::vector<llvm::Value*>& args, ElementalIrEmitter& elemental) {
  FusedGenerators local;
  const HloInstruction* root = computation.root_instruction();
  for (const HloInstruction* instr : computation.MakePostOrder()) {
    if (instr->opcode() == HloOpcode::kParameter) {
      const int64_t n = instr->parameter_number();
      if (n < 0 || n >= static_cast<int64_t>(args.size())) {
        return FusionEmitterUnimplemented(emitter, *instr,
                                          absl::StrCat("reducer parameter ", n, " has no argument"));
      }
      llvm::Value* v = args[n];
      local[instr] = [v](const IrIndex&) -> absl::StatusOr<llvm::Value*> { return v; };
      continue;
    }
    if (instr->opcode() == HloOpcode::kTuple && instr == root) continue;
    std::vector<ElementalIrEmitter::ElementGenerator> operands;
    for (const HloInstruction* op : instr->operands()) {
      operands.push_back(ForwardingGenerator(&local, op));
    }
    ASSIGN_OR_RETURN(local[instr], elemental.MakeElementGenerator(instr, operands));
  }
  std::vector<const HloInstruction*> outs;
  if (root->opcode() == HloOpcode::kTuple) {
    outs.assign(root->operands().begin(), root->operands().end());
  } else {
    outs.push_back(root);
  }
  std::vector<llvm::Value*> results;
  for (const HloInstruction* op : outs) {
    ASSIGN_OR_RETURN(llvm::Value * v, local.at(op)(IrIndex()));
    results.push_back(v);
  }
  return results;
}

absl::StatusOr<std::vector<llvm::Value*>> EmitReducerCombine(absl::string_view emitter,
                                                             const HloInstruction& hlo,
                                                             const std::vector<llvm::Value*>& acc,
                                                             const std::vector<llvm::Value*>& x,
                                                             ElementalIrEmitter& elemental) {
  std::vector<llvm::Value*> args = acc;
  args.insert(args.end(), x.begin(), x.end());
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> next,
                   EmitScalarComputation(emitter, *hlo.to_apply(), args, elemental));
  if (next.size() != acc.size()) {
    return FusionEmitterUnimplemented(emitter, hlo,
                                      "reducer result count does not match the inputs");
  }
  return next;
}

absl::StatusOr<std::vector<llvm::Value*>> EmitReduceInits(absl::string_view emitter,
                                                          const HloInstruction& reduce,
                                                          const FusedGenerators& gens) {
  const int64_t n = reduce.operand_count() / 2;
  if (n < 1 || reduce.operand_count() != 2 * n || reduce.to_apply() == nullptr) {
    return FusionEmitterUnimplemented(emitter, reduce,
                                      "malformed reduce (needs N inputs, N inits and to_apply)");
  }
  std::vector<llvm::Value*> inits;
  for (int64_t k = 0; k < n; ++k) {
    ASSIGN_OR_RETURN(llvm::Value * v, gens.at(reduce.operand(n + k))(IrIndex()));
    inits.push_back(v);
  }
  return inits;
}

absl::StatusOr<std::vector<llvm::Value*>> EmitSequentialReduce(absl::string_view emitter,
                                                               const HloInstruction& reduce,
                                                               const IrIndex& index,
                                                               const FusedGenerators& gens,
                                                               ElementalIrEmitter& elemental,
                                                               llvm::IRBuilder<>* b) {
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> inits, EmitReduceInits(emitter, reduce, gens));
  const size_t n = inits.size();
  const std::vector<int64_t>& in_dims = reduce.operand(0)->shape().dimensions();
  const std::vector<int64_t> red = SortedReduceDims(reduce);
  std::vector<bool> reduced(in_dims.size(), false);
  for (int64_t d : red) {
    if (d < 0 || d >= static_cast<int64_t>(in_dims.size())) {
      return FusionEmitterUnimplemented(emitter, reduce, "reduced dimension out of range");
    }
    reduced[d] = true;
  }
  std::vector<llvm::Value*> in_index(in_dims.size(), nullptr);
  size_t next_kept = 0;
  for (size_t d = 0; d < in_dims.size(); ++d) {
    if (!reduced[d]) in_index[d] = index[next_kept++];
  }
  std::vector<llvm::AllocaInst*> acc;
  for (size_t k = 0; k < n; ++k) {
    acc.push_back(EmitEntryAlloca(b, inits[k]->getType(), nullptr, "acc"));
    b->CreateStore(inits[k], acc[k]);
  }
  auto load_all = [&]() {
    std::vector<llvm::Value*> values;
    for (size_t k = 0; k < n; ++k) values.push_back(b->CreateLoad(inits[k]->getType(), acc[k]));
    return values;
  };
  std::function<absl::Status(size_t)> level = [&](size_t p) -> absl::Status {
    if (p == red.size()) {
      std::vector<llvm::Value*> xs;
      const std::vector<llvm::Value*> cur = load_all();
      for (size_t k = 0; k < n; ++k) {
        ASSIGN_OR_RETURN(llvm::Value * x, gens.at(reduce.operand(k))(IrIndex(in_index, in_dims)));
        xs.push_back(x);
      }
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> next,
                       EmitReducerCombine(emitter, reduce, cur, xs, elemental));
      for (size_t k = 0; k < n; ++k) b->CreateStore(next[k], acc[k]);
      return absl::OkStatus();
    }
    const int64_t d = red[p];
    return EmitForLoop(b, b->getInt64(0), b->getInt64(in_dims[d]), b->getInt64(1),
                       absl::StrCat("r", d), [&](llvm::Value* i) {
                         in_index[d] = i;
                         return level(p + 1);
                       });
  };
  RETURN_IF_ERROR(level(0));
  return load_all();
}

}  // namespace xla::gpu
