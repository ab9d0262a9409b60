#include "xla/backends/gpu/compiler/kernel_timings.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace xla::gpu {
namespace {

// Where a symbol was compiled: the part and the symbol's position in it.
struct PartSlot {
  size_t part;
  size_t root;
};

// The kernel's share of its part's time: by LLVM instructions among the
// part's kernels that were emitted (roots that are variables get none), or
// an equal share when those kernels have no instructions.
double PartShare(const HostPartTiming& part, size_t root,
                 const std::map<std::string, size_t>& emitted) {
  int64_t total = 0;
  int kernels = 0;
  const size_t roots = std::min(part.roots.size(), part.root_instructions.size());
  for (size_t i = 0; i < roots; ++i) {
    if (emitted.count(part.roots[i]) == 0) continue;
    total += part.root_instructions[i];
    ++kernels;
  }
  if (total > 0) return static_cast<double>(part.root_instructions[root]) / total;
  return kernels > 0 ? 1.0 / kernels : 0.0;
}

int EmittedKernelsIn(const HostPartTiming& part, const std::map<std::string, size_t>& emitted) {
  int n = 0;
  for (const std::string& root : part.roots) n += emitted.count(root) > 0 ? 1 : 0;
  return n;
}

}  // namespace

void KernelTimings::AddKernel(KernelEmissionTiming kernel) {
  kernels_.push_back(std::move(kernel));
}

void KernelTimings::AddPart(const HostPartTiming& part) { parts_.push_back(part); }

std::vector<KernelTimingRow> KernelTimings::Rows() const {
  std::map<std::string, size_t> emitted;  // symbol -> kernel
  for (size_t k = 0; k < kernels_.size(); ++k) emitted.emplace(kernels_[k].symbol, k);
  std::map<std::string, PartSlot> slots;
  for (size_t p = 0; p < parts_.size(); ++p) {
    const size_t n = std::min(parts_[p].roots.size(), parts_[p].root_instructions.size());
    for (size_t r = 0; r < n; ++r) slots.emplace(parts_[p].roots[r], PartSlot{p, r});
  }
  std::vector<KernelTimingRow> rows;
  for (const KernelEmissionTiming& kernel : kernels_) {
    KernelTimingRow row;
    row.kernel = kernel;
    row.estimated_seconds = kernel.emit_seconds;
    auto slot = slots.find(kernel.symbol);
    if (slot != slots.end()) {
      const HostPartTiming& part = parts_[slot->second.part];
      row.part = part.index;
      row.part_kernels = EmittedKernelsIn(part, emitted);
      row.llvm_instructions = part.root_instructions[slot->second.root];
      row.part_optimize_seconds = part.optimize_seconds;
      row.part_machine_code_seconds = part.machine_code_seconds;
      row.estimated_seconds += PartShare(part, slot->second.root, emitted) *
                               (part.optimize_seconds + part.machine_code_seconds);
    }
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const KernelTimingRow& a, const KernelTimingRow& b) {
    if (a.estimated_seconds != b.estimated_seconds) return a.estimated_seconds > b.estimated_seconds;
    return a.kernel.fusion < b.kernel.fusion;
  });
  return rows;
}

std::string KernelTimings::ToText() const {
  constexpr char kRow[] = "%-40s %-18s %6d %7d %9.4f %5s %6d %11.4f %11.4f %9.4f\n";
  std::string text =
      "# One row per emitted kernel, slowest first by est_s = emit_s + the kernel's share (by\n"
      "# llvm) of its part's optimize_s + codegen_s. hlo, llvm: the kernel's HLO and LLVM\n"
      "# instructions. LLVM compiles parts, not kernels: optimize_s and codegen_s are the\n"
      "# whole part's, shared by its p_krnl kernels. total: part = parts, p_krnl = kernels.\n";
  absl::StrAppendFormat(&text, "%-40s %-18s %6s %7s %9s %5s %6s %11s %11s %9s\n", "fusion", "kind",
                        "hlo", "llvm", "emit_s", "part", "p_krnl", "optimize_s", "codegen_s",
                        "est_s");
  int64_t hlo = 0, llvm = 0;
  double emit = 0, estimated = 0;
  for (const KernelTimingRow& row : Rows()) {
    const std::string part = row.part < 0 ? "-" : absl::StrCat(row.part);
    absl::StrAppendFormat(&text, kRow, row.kernel.fusion,
                          row.kernel.kind.empty() ? "-" : row.kernel.kind,
                          row.kernel.instructions, row.llvm_instructions, row.kernel.emit_seconds,
                          part, row.part_kernels, row.part_optimize_seconds,
                          row.part_machine_code_seconds, row.estimated_seconds);
    hlo += row.kernel.instructions;
    llvm += row.llvm_instructions;
    emit += row.kernel.emit_seconds;
    estimated += row.estimated_seconds;
  }
  double optimize = 0, machine_code = 0;
  for (const HostPartTiming& part : parts_) {
    optimize += part.optimize_seconds;
    machine_code += part.machine_code_seconds;
  }
  // The total's part column counts the parts, its p_krnl column the kernels.
  absl::StrAppendFormat(&text, kRow, "total", "-", hlo, llvm,
                        emit, absl::StrCat(parts_.size()), static_cast<int>(kernels_.size()),
                        optimize, machine_code, estimated);
  return text;
}

}  // namespace xla::gpu
