#include "xla/backends/gpu/codegen/nvptx/ptxas_resource_usage.h"

#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "xla/util/subprocess.h"

namespace xla::gpu {
namespace {

// The integer just before `unit` in `line` ("12 bytes spill stores"), or -1.
int64_t NumberBefore(absl::string_view line, absl::string_view unit) {
  const size_t at = line.find(unit);
  if (at == absl::string_view::npos) return -1;
  size_t begin = at;
  while (begin > 0 && line[begin - 1] == ' ') --begin;
  size_t end = begin;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1]))) --begin;
  int64_t v = -1;
  if (!absl::SimpleAtoi(line.substr(begin, end - begin), &v)) return -1;
  return v;
}

}  // namespace

absl::StatusOr<std::vector<KernelResourceUsage>> ParsePtxasVerbose(absl::string_view output) {
  std::vector<KernelResourceUsage> result;
  bool have_registers = true;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    constexpr absl::string_view kProps = "Function properties for ";
    if (size_t at = line.find(kProps); at != absl::string_view::npos) {
      if (!have_registers) break;
      result.push_back(KernelResourceUsage{std::string(line.substr(at + kProps.size()))});
      have_registers = false;
      continue;
    }
    if (result.empty()) continue;
    KernelResourceUsage& u = result.back();
    if (int64_t v = NumberBefore(line, " bytes stack frame"); v >= 0) u.stack_frame_bytes = v;
    if (int64_t v = NumberBefore(line, " bytes spill stores"); v >= 0) u.spill_store_bytes = v;
    if (int64_t v = NumberBefore(line, " bytes spill loads"); v >= 0) u.spill_load_bytes = v;
    if (int64_t v = NumberBefore(line, " registers"); v >= 0) {
      u.registers = v;
      have_registers = true;
    }
    if (int64_t v = NumberBefore(line, " bytes smem"); v >= 0) u.shared_bytes = v;
  }
  if (!have_registers) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ptxas -v output has no 'Used N registers' line for ", result.back().function, ": ",
        output));
  }
  return result;
}

absl::StatusOr<std::vector<KernelResourceUsage>> PtxasResourceUsage(absl::string_view ptx,
                                                                    const NvptxTarget& target,
                                                                    const std::string& ptxas) {
  absl::StatusOr<std::unique_ptr<ScopedTempDir>> dir = ScopedTempDir::Create("xla_ptxas_v_");
  if (!dir.ok()) return dir.status();
  const std::string input = (*dir)->path() + "/kernels.ptx";
  if (absl::Status s = WriteFileBytes(input, ptx); !s.ok()) return s;
  absl::StatusOr<ProcessResult> run =
      RunProcess({ptxas, "-v", absl::StrCat("-arch=", target.name), "-O3", input, "-o",
                  (*dir)->path() + "/kernels.cubin"});
  if (!run.ok()) return run.status();
  if (run->exit_code != 0) {
    return absl::InternalError(absl::StrCat(ptxas, " -v rejected the PTX for ", target.name,
                                            " (exit ", run->exit_code, "): ", run->output));
  }
  return ParsePtxasVerbose(run->output);
}

}  // namespace xla::gpu
