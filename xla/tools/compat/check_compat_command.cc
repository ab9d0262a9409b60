#include "xla/tools/compat/check_compat_command.h"

#include "xla/backends/gpu/runtime/feature_registry.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "xla/tools/exit_codes.h"

namespace xla::cli {

const char kCheckCompatHelp[] =
    "usage: xla_aot check-compat --baseline=OLD.pb --current=NEW.pb\n"
    "\n"
    "Compares two artifact schemas (binary FileDescriptorSets written by\n"
    "`protoc --include_imports --descriptor_set_out=FILE`) and prints one line\n"
    "per difference reachable from xla.gpu.GpuExecutableProto, starting with\n"
    "FORBIDDEN, BREAKING_BACKWARD, STAGED_ROLLOUT or SAFE. Exits 1 when any\n"
    "line is a violation (FORBIDDEN, BREAKING_BACKWARD, or an ungated\n"
    "STAGED_ROLLOUT) or a file cannot be read.\n"
    "\n"
    "  --baseline=FILE   the released schema (tests/aot_compatibility/gpu/schemas/vN.pb)\n"
    "  --current=FILE    the schema being built\n";

namespace {

absl::StatusOr<google::protobuf::FileDescriptorSet> ReadSet(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the file"));
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return compat::ParseDescriptorSet(bytes.str(), path);
}

// Parses the flags into `baseline` and `current`; false (after printing the
// reason to `err`) on a bad command line.
bool ParseFlags(const std::vector<std::string>& args, std::string& baseline, std::string& current,
                std::ostream& err) {
  for (const std::string& a : args) {
    if (absl::StartsWith(a, "--baseline=")) {
      baseline = a.substr(std::string("--baseline=").size());
    } else if (absl::StartsWith(a, "--current=")) {
      current = a.substr(std::string("--current=").size());
    } else {
      err << "xla_aot check-compat: unexpected argument '" << a << "'\n" << kCheckCompatHelp;
      return false;
    }
  }
  if (baseline.empty() || current.empty()) {
    err << "xla_aot check-compat: both --baseline and --current are required\n" << kCheckCompatHelp;
    return false;
  }
  return true;
}

}  // namespace

compat::GatePredicate FeatureRegistryGate() {
  return [](const std::string& construct) {
    for (const gpu::RuntimeFeature& f : gpu::RuntimeFeatureRegistry()) {
      // A registry construct names one field or several ("M.a, M.b").
      const std::vector<std::string> fields = absl::StrSplit(f.construct, ", ");
      if (std::find(fields.begin(), fields.end(), construct) == fields.end()) continue;
      if (f.compiler_flag[0] == '\0') return false;  // ungated: first-format constructs only
      if (!f.flag_default) return true;              // stage 1: emission off
      absl::StatusOr<int64_t> on = gpu::ParseIsoDate(f.emission_on);
      absl::StatusOr<int64_t> support = gpu::ParseIsoDate(f.runtime_support);
      return on.ok() && support.ok() && *on - *support >= gpu::kForwardWindowDays;
    }
    return false;
  };
}

int RunCheckCompat(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return RunCheckCompatWithGate(args, FeatureRegistryGate(), out, err);
}

int RunCheckCompatWithGate(const std::vector<std::string>& args, const compat::GatePredicate& is_gated,
                           std::ostream& out, std::ostream& err) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      out << kCheckCompatHelp;
      return kExitOk;
    }
  }
  std::string baseline_path, current_path;
  if (!ParseFlags(args, baseline_path, current_path, err)) return kExitUsage;
  absl::StatusOr<google::protobuf::FileDescriptorSet> baseline = ReadSet(baseline_path);
  absl::StatusOr<google::protobuf::FileDescriptorSet> current = ReadSet(current_path);
  for (const auto* s : {&baseline, &current}) {
    if (!s->ok()) {
      err << "xla_aot check-compat: " << s->status().message() << "\n";
      return kExitBadInput;
    }
  }
  absl::StatusOr<std::vector<compat::SchemaDifference>> diffs = compat::DiffSchemas(*baseline, *current);
  if (!diffs.ok()) {
    err << "xla_aot check-compat: " << diffs.status().message() << "\n";
    return kExitBadInput;
  }
  int violations = 0;
  for (const compat::SchemaDifference& d : *diffs) {
    out << d.ToString();
    if (d.verdict == compat::Verdict::kStagedRollout) out << (IsViolation(d, is_gated) ? " [not gated]" : " [gated]");
    out << "\n";
    violations += IsViolation(d, is_gated) ? 1 : 0;
  }
  out << diffs->size() << " difference(s), " << violations << " violation(s) against " << baseline_path << "\n";
  if (violations == 0) return kExitOk;
  err << "xla_aot check-compat: " << violations
      << " violation(s): see docs/aot_compatibility.md for how to make the change compatibly\n";
  return kExitBadInput;
}

}  // namespace xla::cli
