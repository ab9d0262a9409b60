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

void KernelTimings::AddPart(const HostPartTiming& part) {
  parts_.push_back(part);
  ptxas_seconds_.push_back(0);
}

void KernelTimings::AddNvptxKernel(int index, const std::string& symbol, int64_t llvm_instructions,
                                   double optimize_seconds, double ptx_seconds,
                                   double ptxas_seconds) {
  parts_.push_back(HostPartTiming{index, {symbol}, {llvm_instructions}, optimize_seconds,
                                  ptx_seconds});
  ptxas_seconds_.push_back(ptxas_seconds);
  nvptx_ = true;
}

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
      row.part_ptxas_seconds = ptxas_seconds_[slot->second.part];
      row.estimated_seconds +=
          PartShare(part, slot->second.root, emitted) *
          (part.optimize_seconds + part.machine_code_seconds + row.part_ptxas_seconds);
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
  std::string text =
      nvptx_
          ? "# One row per emitted kernel, slowest first by est_s = emit_s + optimize_s + codegen_s\n"
            "# + ptxas_s. hlo, llvm: the kernel's HLO and LLVM instructions. NVPTX compiles one\n"
            "# module per kernel (its own part): optimize_s (libdevice link, verify, LLVM passes),\n"
            "# codegen_s (PTX) and ptxas_s (cubin) are measured per kernel, on several threads.\n"
            "# total: part = parts, p_krnl = kernels.\n"
          : "# One row per emitted kernel, slowest first by est_s = emit_s + the kernel's share (by\n"
            "# llvm) of its part's optimize_s + codegen_s. hlo, llvm: the kernel's HLO and LLVM\n"
            "# instructions. LLVM compiles parts, not kernels: optimize_s and codegen_s are the\n"
            "# whole part's, shared by its p_krnl kernels. total: part = parts, p_krnl = kernels.\n";
  if (nvptx_) {
    absl::StrAppendFormat(&text, "%-40s %-18s %6s %7s %9s %5s %6s %11s %11s %9s %9s\n", "fusion",
                          "kind", "hlo", "llvm", "emit_s", "part", "p_krnl", "optimize_s",
                          "codegen_s", "ptxas_s", "est_s");
  } else {
    absl::StrAppendFormat(&text, "%-40s %-18s %6s %7s %9s %5s %6s %11s %11s %9s\n", "fusion",
                          "kind", "hlo", "llvm", "emit_s", "part", "p_krnl", "optimize_s",
                          "codegen_s", "est_s");
  }
  // One line: the ptxas column only in the NVPTX table.
  auto append = [&](const std::string& fusion, const std::string& kind, int64_t hlo, int64_t llvm,
                    double emit, const std::string& part, int part_kernels, double optimize,
                    double machine_code, double ptxas, double estimated) {
    if (nvptx_) {
      absl::StrAppendFormat(&text, "%-40s %-18s %6d %7d %9.4f %5s %6d %11.4f %11.4f %9.4f %9.4f\n",
                            fusion, kind, hlo, llvm, emit, part, part_kernels,
                            optimize, machine_code, ptxas, estimated);
    } else {
      absl::StrAppendFormat(&text, "%-40s %-18s %6d %7d %9.4f %5s %6d %11.4f %11.4f %9.4f\n",
                            fusion, kind, hlo, llvm, emit, part, part_kernels,
                            optimize, machine_code, estimated);
    }
  };
  int64_t hlo = 0, llvm = 0;
  double emit = 0, estimated = 0;
  for (const KernelTimingRow& row : Rows()) {
    append(row.kernel.fusion, row.kernel.kind.empty() ? "-" : row.kernel.kind,
           row.kernel.instructions, row.llvm_instructions, row.kernel.emit_seconds,
           row.part < 0 ? "-" : absl::StrCat(row.part), row.part_kernels,
           row.part_optimize_seconds, row.part_machine_code_seconds, row.part_ptxas_seconds,
           row.estimated_seconds);
    hlo += row.kernel.instructions;
    llvm += row.llvm_instructions;
    emit += row.kernel.emit_seconds;
    estimated += row.estimated_seconds;
  }
  double optimize = 0, machine_code = 0, ptxas = 0;
  for (size_t p = 0; p < parts_.size(); ++p) {
    optimize += parts_[p].optimize_seconds;
    machine_code += parts_[p].machine_code_seconds;
    ptxas += ptxas_seconds_[p];
  }
  // The total's part column counts the parts, its p_krnl column the kernels.
  append("total", "-", hlo, llvm, emit, absl::StrCat(parts_.size()),
         static_cast<int>(kernels_.size()), optimize, machine_code, ptxas, estimated);
  return text;
}

}  // namespace xla::gpu
