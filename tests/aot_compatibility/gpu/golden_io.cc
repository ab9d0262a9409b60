#include "tests/aot_compatibility/gpu/golden_io.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "google/protobuf/text_format.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/evaluator/replicated_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/tools/stacked_literals.h"
#include "xla/types/npy.h"
#include "xla/util/status_macros.h"

namespace xla::golden {
namespace fs = std::filesystem;

absl::StatusOr<std::vector<int>> ListVersions(const std::string& target_dir) {
  std::error_code ec;
  if (!fs::is_directory(target_dir, ec)) {
    return absl::NotFoundError(absl::StrCat(target_dir, " is not a directory"));
  }
  std::vector<int> versions;
  for (const fs::directory_entry& e : fs::directory_iterator(target_dir, ec)) {
    const std::string name = e.path().filename().string();
    int n = 0;
    if (name.size() < 2 || name[0] != 'v' || !absl::SimpleAtoi(name.substr(1), &n) || n < 1) continue;
    if (e.is_directory()) versions.push_back(n);
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

std::vector<int> VersionsToCheck(const std::vector<int>& versions, bool all) {
  if (all || versions.size() <= 1) return versions;
  std::vector<int> out = {versions.front()};
  const int second_newest = versions[versions.size() - 2];
  if (second_newest != out.front()) out.push_back(second_newest);
  return out;
}

absl::StatusOr<std::vector<std::string>> ListModules(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return absl::NotFoundError(absl::StrCat(dir, " is not a directory"));
  std::vector<std::string> modules;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory()) modules.push_back(e.path().filename().string());
  }
  std::sort(modules.begin(), modules.end());
  return modules;
}

absl::StatusOr<std::vector<Literal>> ReadNumberedNpy(const std::string& dir,
                                                     const std::string& prefix) {
  std::vector<Literal> out;
  for (int i = 0;; ++i) {
    const std::string path = absl::StrCat(dir, "/", prefix, i, ".npy");
    std::error_code ec;
    if (!fs::exists(path, ec)) return out;
    ASSIGN_OR_RETURN(Literal value, ReadNpyFile(path));
    out.push_back(std::move(value));
  }
}

namespace {

void Flatten(const Literal& value, std::vector<const Literal*>* out) {
  if (!value.shape().IsTuple()) {
    out->push_back(&value);
    return;
  }
  for (const Literal& e : value.tuple_elements()) Flatten(e, out);
}

}  // namespace

absl::Status WriteInputsAndExpected(const std::string& module_path, uint64_t seed,
                                    const std::string& out_dir) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModuleFile(module_path));
  if (absl::Status v = VerifyModule(*module); !v.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(module_path, ": verifier: ", v.message()));
  }
  ASSIGN_OR_RETURN(std::vector<Literal> inputs, MakeRandomInputs(*module, seed));
  absl::StatusOr<Literal> result = HloEvaluator().Evaluate(*module, inputs);
  if (!result.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(module_path, ": evaluator: ", result.status().message()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    RETURN_IF_ERROR(WriteNpyFile(absl::StrCat(out_dir, "/input_", i, ".npy"), inputs[i]));
  }
  std::vector<const Literal*> leaves;
  Flatten(*result, &leaves);
  for (size_t i = 0; i < leaves.size(); ++i) {
    RETURN_IF_ERROR(WriteNpyFile(absl::StrCat(out_dir, "/expected_", i, ".npy"), *leaves[i]));
  }
  return absl::OkStatus();
}

int64_t ReplicaCountOfTarget(const std::string& target) {
  constexpr absl::string_view kPrefix = "host_", kSuffix = "dev";
  absl::string_view t = target;
  if (!absl::ConsumePrefix(&t, kPrefix) || !absl::ConsumeSuffix(&t, kSuffix)) return 0;
  if (t.empty() || t.find_first_not_of("0123456789") != absl::string_view::npos) return 0;
  int64_t n = 0;
  if (!absl::SimpleAtoi(t, &n) || n < 1) return 0;
  return n;
}

namespace {

// Splits "sm_XX" or "sm_XX_<N>gpu" into the arch and N (0 for the first
// form); false for anything else.
bool ParseGpuTarget(absl::string_view target, std::string* arch, int64_t* gpus) {
  if (!absl::StartsWith(target, "sm_")) return false;
  const size_t digits_end = target.find_first_not_of("0123456789", 3);
  const absl::string_view number = target.substr(3, digits_end == absl::string_view::npos
                                                        ? absl::string_view::npos
                                                        : digits_end - 3);
  if (number.empty()) return false;
  *arch = std::string(target.substr(0, 3 + number.size()));
  absl::string_view rest = target.substr(arch->size());
  if (rest.empty()) {
    *gpus = 0;
    return true;
  }
  if (!absl::ConsumePrefix(&rest, "_") || !absl::ConsumeSuffix(&rest, "gpu") || rest.empty() ||
      rest.find_first_not_of("0123456789") != absl::string_view::npos) {
    return false;
  }
  return absl::SimpleAtoi(rest, gpus) && *gpus >= 1;
}

}  // namespace

std::string GpuArchOfTarget(const std::string& target) {
  std::string arch;
  int64_t gpus = 0;
  return ParseGpuTarget(target, &arch, &gpus) ? arch : "";
}

int64_t GpuCountOfTarget(const std::string& target) {
  std::string arch;
  int64_t gpus = 0;
  return ParseGpuTarget(target, &arch, &gpus) ? gpus : 0;
}

absl::Status WriteReplicatedInputsAndExpected(const std::string& module_path, uint64_t seed,
                                              int64_t num_replicas, const std::string& out_dir) {
  if (num_replicas < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(module_path, ": replica count must be >= 1, got ", num_replicas));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModuleFile(module_path));
  if (absl::Status v = VerifyModule(*module); !v.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(module_path, ": verifier: ", v.message()));
  }
  std::vector<std::vector<Literal>> args;
  for (int64_t r = 0; r < num_replicas; ++r) {
    ASSIGN_OR_RETURN(std::vector<Literal> drawn, MakeRandomInputs(*module, ParticipantSeed(seed, r)));
    args.push_back(std::move(drawn));
  }
  ReplicatedEvaluatorOptions options;
  options.num_replicas = num_replicas;
  absl::StatusOr<std::vector<Literal>> results = EvaluateReplicated(*module, args, options);
  if (!results.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        module_path, ": replicated evaluator (", num_replicas,
        " replicas): ", results.status().message()));
  }
  if (static_cast<int64_t>(results->size()) != num_replicas) {
    return absl::InvalidArgumentError(absl::StrCat(
        module_path, ": the module has partitions (", results->size(), " participants for ",
        num_replicas, " replicas); host_<N>dev goldens take replicas only"));
  }
  const size_t num_params = args[0].size();
  for (size_t i = 0; i < num_params; ++i) {
    std::vector<const Literal*> parts;
    for (const std::vector<Literal>& a : args) parts.push_back(&a[i]);
    ASSIGN_OR_RETURN(Literal stacked,
                     tools::StackLeading(absl::MakeConstSpan(parts), absl::StrCat("input ", i)));
    RETURN_IF_ERROR(WriteNpyFile(absl::StrCat(out_dir, "/input_", i, ".npy"), stacked));
  }
  std::vector<std::vector<const Literal*>> leaves(results->size());
  for (size_t r = 0; r < results->size(); ++r) Flatten((*results)[r], &leaves[r]);
  for (size_t k = 0; k < leaves[0].size(); ++k) {
    std::vector<const Literal*> parts;
    for (const std::vector<const Literal*>& l : leaves) parts.push_back(l[k]);
    ASSIGN_OR_RETURN(Literal stacked,
                     tools::StackLeading(absl::MakeConstSpan(parts), absl::StrCat("output ", k)));
    RETURN_IF_ERROR(WriteNpyFile(absl::StrCat(out_dir, "/expected_", k, ".npy"), stacked));
  }
  return absl::OkStatus();
}

absl::Status CompareOutput(const Literal& want, const Literal& got) {
  return CompareOutputLeaf(want, got);
}

std::string StructuralText(const gpu::GpuExecutableProto& artifact) {
  gpu::GpuExecutableProto copy = artifact;
  gpu::ArtifactHeaderProto* header = copy.mutable_header();
  header->clear_compiler_version();
  header->clear_production_date();
  header->clear_payload_checksum();
  header->clear_toolchain_requirements();
  gpu::GpuExecutablePayloadProto* payload = copy.mutable_payload();
  payload->clear_host_shared_object();
  for (gpu::HostObjectVariantProto& v : *payload->mutable_host_object_variants()) v.clear_shared_object();
  payload->clear_optimized_hlo_text();
  for (gpu::KernelProto& kernel : *payload->mutable_kernels()) {
    if (kernel.has_ptx()) kernel.mutable_ptx()->clear_ptx();
    if (kernel.has_cubin()) kernel.mutable_cubin()->clear_cubin();
    if (kernel.has_cubin_with_ptx()) {
      kernel.mutable_cubin_with_ptx()->clear_cubin();
      kernel.mutable_cubin_with_ptx()->clear_ptx();
    }
  }
  std::string text;
  google::protobuf::TextFormat::Printer printer;
  printer.PrintToString(copy, &text);
  return text;
}

std::string LineDiff(const std::string& want, const std::string& got) {
  if (want == got) return "";
  const std::vector<std::string> a = absl::StrSplit(want, '\n');
  const std::vector<std::string> b = absl::StrSplit(got, '\n');
  const size_t n = a.size(), m = b.size();
  // lcs[i][j]: length of the longest common subsequence of a[i:] and b[j:].
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  struct Line {
    char tag;
    const std::string* text;
  };
  std::vector<Line> script;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      script.push_back({' ', &a[i++]});
      ++j;
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      script.push_back({'-', &a[i++]});
    } else {
      script.push_back({'+', &b[j++]});
    }
  }
  // Print changes with 3 lines of context; "..." where lines are skipped.
  constexpr int kContext = 3;
  std::vector<bool> show(script.size(), false);
  for (size_t k = 0; k < script.size(); ++k) {
    if (script[k].tag == ' ') continue;
    const size_t lo = k >= kContext ? k - kContext : 0;
    const size_t hi = std::min(script.size(), k + kContext + 1);
    for (size_t s = lo; s < hi; ++s) show[s] = true;
  }
  std::string out;
  bool skipped = false;
  for (size_t k = 0; k < script.size(); ++k) {
    if (!show[k]) {
      skipped = true;
      continue;
    }
    if (skipped) out += "  ...\n";
    skipped = false;
    absl::StrAppend(&out, std::string(1, script[k].tag), " ", *script[k].text, "\n");
  }
  return out;
}

}  // namespace xla::golden
