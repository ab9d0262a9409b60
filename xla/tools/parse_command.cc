#include "xla/tools/parse_command.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/ir/collective_device_counts.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/tools/exit_codes.h"

namespace xla::cli {

const char kParseHelp[] =
    "usage: xla_aot parse [--no_verify] FILE\n"
    "       xla_aot parse --check [--no_verify] FILE...\n"
    "       xla_aot parse --device_counts FILE\n"
    "\n"
    "Parses HLO text (as XLA, JAX and TensorFlow print it), runs the verifier\n"
    "and prints the canonical text. Errors name file:line:col.\n"
    "\n"
    "  --check       parse many files; print one line per failure and a final\n"
    "                count instead of the text\n"
    "  --no_verify   only parse; skip shape and structure verification\n"
    "  --device_counts  print, instead of the text, the compile flags that give\n"
    "                the module the device counts its collectives need\n"
    "                (`--num_replicas=N --num_partitions=P`: the header's counts,\n"
    "                raised until every replica group and source_target_pair\n"
    "                names a device in range)\n";

namespace {

absl::StatusOr<std::unique_ptr<HloModule>> Load(const std::string& path, bool verify) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModuleFile(path);
  if (!module.ok() || !verify) return module;
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) {
    return absl::InvalidArgumentError(verified.message());
  }
  return module;
}

}  // namespace

int RunParse(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  bool check = false;
  bool verify = true;
  bool device_counts = false;
  std::vector<std::string> files;
  for (const std::string& arg : args) {
    if (arg == "--check") {
      check = true;
    } else if (arg == "--device_counts") {
      device_counts = true;
    } else if (arg == "--no_verify") {
      verify = false;
    } else if (arg == "--help" || arg == "-h") {
      out << kParseHelp;
      return kExitOk;
    } else if (absl::StartsWith(arg, "-")) {
      err << "xla_aot parse: unknown flag '" << arg << "'\n" << kParseHelp;
      return kExitUsage;
    } else {
      files.push_back(arg);
    }
  }
  if (files.empty() || (!check && files.size() != 1)) {
    err << "xla_aot parse: " << (files.empty() ? "no input file" : "give one file, or use --check")
        << "\n" << kParseHelp;
    return kExitUsage;
  }
  if (check && device_counts) {
    err << "xla_aot parse: --device_counts takes one file, not --check\n" << kParseHelp;
    return kExitUsage;
  }
  if (!check) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = Load(files[0], verify);
    if (!module.ok()) {
      err << module.status().message() << "\n";
      return kExitBadInput;
    }
    if (!device_counts) {
      out << PrintModule(**module);
      return kExitOk;
    }
    absl::StatusOr<DeviceCounts> counts = DeviceCountsForCollectives(**module);
    if (!counts.ok()) {
      err << files[0] << ": " << counts.status().message() << "\n";
      return kExitBadInput;
    }
    out << "--num_replicas=" << counts->num_replicas << " --num_partitions=" << counts->num_partitions
        << "\n";
    return kExitOk;
  }
  int failures = 0;
  for (const std::string& path : files) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = Load(path, verify);
    if (!module.ok()) {
      ++failures;
      out << "FAIL " << module.status().message() << "\n";
    }
  }
  out << (files.size() - failures) << " of " << files.size() << " files OK, " << failures
      << " failed\n";
  return failures == 0 ? kExitOk : kExitBadInput;
}

}  // namespace xla::cli
