#include "xla/tools/elided_constant_flags.h"

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla::cli {

bool ParseElidedConstantFlag(const std::string& arg, ElidedConstantFlags* flags,
                             std::string* error) {
  constexpr absl::string_view kMode = "--elided_constants=";
  constexpr absl::string_view kSeed = "--elided_constants_seed=";
  if (absl::StartsWith(arg, kMode)) {
    const std::string v = arg.substr(kMode.size());
    flags->mode = ParseElidedConstantsMode(v);
    if (!flags->mode.has_value()) {
      *error = absl::StrCat("bad --elided_constants value '", v, "' (error, zeros or random)");
    }
    return true;
  }
  if (absl::StartsWith(arg, kSeed)) {
    const std::string v = arg.substr(kSeed.size());
    uint64_t seed = 0;
    if (!absl::SimpleAtoi(v, &seed)) {
      *error = absl::StrCat("bad --elided_constants_seed value '", v, "' (an integer >= 0)");
    }
    flags->seed = seed;
    return true;
  }
  return false;
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloFileFillingElided(
    const std::string& path, ElidedConstantsMode mode, uint64_t seed,
    std::vector<std::string>* invented) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open file"));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  const std::string text = buffer.str();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, path);
  if (!module.ok()) return module.status();
  ElidedConstantsOptions options;
  options.mode = mode;
  options.seed = seed;
  options.source_name = path;
  absl::StatusOr<std::vector<std::string>> names = FillElidedConstants(module->get(), options);
  if (!names.ok()) return names.status();
  if (invented != nullptr) *invented = *std::move(names);
  return module;
}

}  // namespace xla::cli
