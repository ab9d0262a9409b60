#include "xla/backends/gpu/codegen/host/host_module_split.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

namespace xla::gpu {
namespace {

using GlobalSet = std::set<const llvm::GlobalValue*>;

// Adds the global values inside constant `c` (itself, or operands of
// constant expressions and aggregates) to `out`.
void CollectFromConstant(const llvm::Constant* c, std::set<const llvm::Constant*>* seen,
                         GlobalSet* out) {
  if (const auto* g = llvm::dyn_cast<llvm::GlobalValue>(c)) {
    out->insert(g);
    return;
  }
  if (!seen->insert(c).second) return;
  for (const llvm::Use& op : c->operands()) {
    if (const auto* operand = llvm::dyn_cast<llvm::Constant>(op.get())) {
      CollectFromConstant(operand, seen, out);
    }
  }
}

// The global values `gv`'s definition refers to directly.
GlobalSet DirectReferences(const llvm::GlobalValue& gv) {
  GlobalSet out;
  std::set<const llvm::Constant*> seen;
  if (const auto* f = llvm::dyn_cast<llvm::Function>(&gv)) {
    for (const llvm::BasicBlock& block : *f) {
      for (const llvm::Instruction& inst : block) {
        for (const llvm::Use& op : inst.operands()) {
          if (const auto* c = llvm::dyn_cast<llvm::Constant>(op.get())) {
            CollectFromConstant(c, &seen, &out);
          }
        }
      }
    }
  } else if (const auto* v = llvm::dyn_cast<llvm::GlobalVariable>(&gv)) {
    if (v->hasInitializer()) CollectFromConstant(v->getInitializer(), &seen, &out);
  } else if (const auto* a = llvm::dyn_cast<llvm::GlobalAlias>(&gv)) {
    CollectFromConstant(a->getAliasee(), &seen, &out);
  }
  return out;
}

int64_t Instructions(const llvm::GlobalValue& gv) {
  if (const auto* f = llvm::dyn_cast<llvm::Function>(&gv)) {
    return static_cast<int64_t>(f->getInstructionCount());
  }
  return 0;
}

// Every definition in the module, in module order (functions, then global
// variables, then aliases).
std::vector<const llvm::GlobalValue*> Definitions(const llvm::Module& module) {
  std::vector<const llvm::GlobalValue*> out;
  for (const llvm::Function& f : module) {
    if (!f.isDeclaration()) out.push_back(&f);
  }
  for (const llvm::GlobalVariable& v : module.globals()) {
    if (!v.isDeclaration()) out.push_back(&v);
  }
  for (const llvm::GlobalAlias& a : module.aliases()) out.push_back(&a);
  return out;
}

// Removes declarations nothing refers to (left over from definitions that
// went to other parts).
void DropUnusedDeclarations(llvm::Module& module) {
  for (llvm::Function& f : llvm::make_early_inc_range(module)) {
    if (f.isDeclaration() && f.use_empty()) f.eraseFromParent();
  }
  for (llvm::GlobalVariable& v : llvm::make_early_inc_range(module.globals())) {
    if (v.isDeclaration() && v.use_empty()) v.eraseFromParent();
  }
}

// A root (a definition with non-local linkage) with the local definitions
// it reaches, transitively, and their instructions.
struct Root {
  const llvm::GlobalValue* value;
  GlobalSet closure;  // the root and the local definitions it reaches
  int64_t cost = 0;
};

// The module's roots, in module order.
std::vector<Root> FindRoots(const llvm::Module& module) {
  const std::vector<const llvm::GlobalValue*> definitions = Definitions(module);
  std::map<const llvm::GlobalValue*, GlobalSet> references;
  for (const llvm::GlobalValue* gv : definitions) references[gv] = DirectReferences(*gv);
  std::vector<Root> roots;
  for (const llvm::GlobalValue* gv : definitions) {
    if (gv->hasLocalLinkage()) continue;
    Root root{gv, {gv}, 0};
    std::vector<const llvm::GlobalValue*> work = {gv};
    while (!work.empty()) {
      const llvm::GlobalValue* current = work.back();
      work.pop_back();
      root.cost += Instructions(*current);
      auto it = references.find(current);
      if (it == references.end()) continue;  // a declaration
      for (const llvm::GlobalValue* next : it->second) {
        if (!next->hasLocalLinkage() || next->isDeclaration()) continue;
        if (root.closure.insert(next).second) work.push_back(next);
      }
    }
    roots.push_back(std::move(root));
  }
  return roots;
}

}  // namespace

std::vector<std::pair<std::string, int64_t>> HostModuleRoots(const llvm::Module& module) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const Root& root : FindRoots(module)) {
    out.emplace_back(root.value->getName().str(), root.cost);
  }
  return out;
}

int64_t CountLlvmInstructions(const llvm::Module& module) {
  int64_t n = 0;
  for (const llvm::Function& f : module) n += static_cast<int64_t>(f.getInstructionCount());
  return n;
}

int AutomaticHostPartCount(const llvm::Module& module, int64_t instructions_per_part,
                           int max_parts) {
  int64_t roots = 0;
  for (const llvm::GlobalValue* gv : Definitions(module)) roots += gv->hasLocalLinkage() ? 0 : 1;
  const int64_t per_part = std::max<int64_t>(1, instructions_per_part);
  const int64_t wanted = (CountLlvmInstructions(module) + per_part - 1) / per_part;
  return static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>({wanted, roots, std::max(1, max_parts)})));
}

absl::StatusOr<std::vector<HostModulePart>> SplitHostModule(const llvm::Module& module,
                                                            int parts) {
  if (parts < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("a host module splits into at least 1 part, got ", parts));
  }
  const std::vector<Root> roots = FindRoots(module);

  const int count = std::max<int>(1, std::min<int>(parts, static_cast<int>(roots.size())));
  std::vector<size_t> order(roots.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return roots[a].cost > roots[b].cost; });
  std::vector<int64_t> load(count, 0);
  std::vector<GlobalSet> keep(count);
  std::vector<std::vector<size_t>> members(count);
  for (size_t r : order) {
    const int part =
        static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    load[part] += std::max<int64_t>(1, roots[r].cost);
    keep[part].insert(roots[r].closure.begin(), roots[r].closure.end());
    members[part].push_back(r);
  }

  std::vector<HostModulePart> out(count);
  for (int p = 0; p < count; ++p) {
    std::sort(members[p].begin(), members[p].end());  // module order
    for (size_t r : members[p]) {
      out[p].roots.push_back(roots[r].value->getName().str());
      out[p].root_instructions.push_back(roots[r].cost);
    }
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> clone =
        llvm::CloneModule(module, map, [&](const llvm::GlobalValue* gv) {
          // With no roots at all (an empty module) the one part keeps all.
          return roots.empty() || keep[p].count(gv) > 0;
        });
    DropUnusedDeclarations(*clone);
    out[p].instructions = CountLlvmInstructions(*clone);
    llvm::raw_string_ostream stream(out[p].bitcode);
    llvm::WriteBitcodeToFile(*clone, stream);
    stream.flush();
  }
  return out;
}

}  // namespace xla::gpu
