// Per-kernel compile timings: where a compile's kernel time goes
// (kernel_timings.txt in `xla_aot compile --dump_dir`, issue 25).
//
// Two kinds of record meet here. Thunk emission reports each kernel it
// emits (KernelEmissionTiming: the fusion, the emitter's kind, its HLO
// instruction count, the wall time of emitting its LLVM IR). The host object
// compiler reports each part it compiled (HostPartTiming: the part's kernels
// and its LLVM optimization and code-generation times; LLVM works per part,
// not per kernel). KernelTimings joins them on the kernel symbol.
//
// A kernel's share of its part is an estimate: the part's time split in
// proportion to the LLVM instructions of each kernel (with the helpers it
// reaches). With --compile_parts equal to the kernel count every kernel is
// its own part and the share is measured, not estimated.
//
// NVPTX targets compile one LLVM module per kernel: each kernel is then its
// own part (AddNvptxKernel), its times are measured, not estimated, and the
// table gains a ptxas_s column (the host's table is unchanged).
//
// Thread-safety: KernelTimings is not thread-safe; the observers that fill
// it run on the compiling thread (NVPTX kernels compile on several threads,
// but their times are handed over after they all finished).
#ifndef XLA_BACKENDS_GPU_COMPILER_KERNEL_TIMINGS_H_
#define XLA_BACKENDS_GPU_COMPILER_KERNEL_TIMINGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "xla/backends/gpu/codegen/host/host_object_compiler.h"

namespace xla::gpu {

// One kernel as thunk emission emitted it (a reused kernel is not emitted
// again, so it has no second record).
struct KernelEmissionTiming {
  std::string symbol;        // the kernel's symbol (a part's root)
  std::string fusion;        // the instruction it was emitted for
  std::string kind;          // the emitter's kind ("loop", ...); "" unknown
  int64_t instructions = 0;  // HLO instructions in the fused computation
  double emit_seconds = 0;   // wall time of emitting its LLVM IR
};

// One row of the table.
struct KernelTimingRow {
  KernelEmissionTiming kernel;
  int part = -1;                 // the part that compiled it; -1: none reported
  int part_kernels = 0;          // kernels in that part
  int64_t llvm_instructions = 0; // the kernel's LLVM instructions (with helpers)
  double part_optimize_seconds = 0;
  double part_machine_code_seconds = 0;  // NVPTX: PTX code generation
  double part_ptxas_seconds = 0;         // NVPTX only: the ptxas run
  // emit_seconds + the kernel's share of its part's optimize + machine
  // code (+ ptxas) time (by LLVM instructions; an equal share when they are
  // all 0).
  double estimated_seconds = 0;
};

class KernelTimings {
 public:
  // Records one emitted kernel / one compiled part. A part's roots without
  // a kernel record (variables) take no share; a root_instructions shorter
  // than roots leaves the extra roots out. Never fails.
  void AddKernel(KernelEmissionTiming kernel);
  void AddPart(const HostPartTiming& part);
  // Records one NVPTX kernel's compilation as a part of its own (`index`,
  // the kernel's position in compile order): its LLVM instructions, LLVM
  // optimization, PTX code generation and ptxas seconds. From the first
  // call on, ToText has a ptxas_s column. Never fails.
  void AddNvptxKernel(int index, const std::string& symbol, int64_t llvm_instructions,
                      double optimize_seconds, double ptx_seconds, double ptxas_seconds);

  bool empty() const { return kernels_.empty(); }

  // One row per kernel, by estimated_seconds, largest first (ties by
  // fusion name, so the order is deterministic).
  std::vector<KernelTimingRow> Rows() const;

  // The text of kernel_timings.txt: a header, one line per row, and a
  // `total` line whose emit column is the sum of the kernels' emission
  // times (part of the thunk_emission phase) and whose optimize and codegen
  // columns are the sums over the parts (the llvm_optimize and machine_code
  // phases of compile_timings.txt; for NVPTX llvm_optimize, ptx_codegen and
  // ptxas).
  std::string ToText() const;

 private:
  std::vector<KernelEmissionTiming> kernels_;
  std::vector<HostPartTiming> parts_;
  std::vector<double> ptxas_seconds_;  // per part; 0 for host parts
  bool nvptx_ = false;                 // an NVPTX kernel was added
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_KERNEL_TIMINGS_H_
