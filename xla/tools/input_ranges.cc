#include "xla/tools/input_ranges.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "xla/types/random_literal.h"
#include "xla/util/status_macros.h"

namespace xla::cli {
namespace {

constexpr char kFlag[] = "--input_ranges=";

// One "params" entry: null, or {"low": L, "high": H}.
absl::StatusOr<std::optional<InputRange>> ParseEntry(const google::protobuf::Value& v,
                                                     const std::string& where) {
  if (v.kind_case() == google::protobuf::Value::kNullValue) return std::nullopt;
  if (v.kind_case() != google::protobuf::Value::kStructValue) {
    return absl::InvalidArgumentError(absl::StrCat(where, " is neither null nor {\"low\": L, \"high\": H}"));
  }
  const auto& fields = v.struct_value().fields();
  InputRange range;
  for (const auto& [key, out] : {std::pair<const char*, double*>{"low", &range.low},
                                 std::pair<const char*, double*>{"high", &range.high}}) {
    auto it = fields.find(key);
    if (it == fields.end() || it->second.kind_case() != google::protobuf::Value::kNumberValue) {
      return absl::InvalidArgumentError(absl::StrCat(where, " has no number \"", key, "\""));
    }
    *out = it->second.number_value();
  }
  if (!(range.low < range.high)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " has low ", range.low, " >= high ", range.high));
  }
  return range;
}

std::string Stem(const std::string& path) {
  const std::filesystem::path p(path);
  return (p.parent_path() / p.stem()).string();
}

}  // namespace

bool ParseInputRangesFlag(const std::string& arg, std::string* value, std::string* error) {
  if (!absl::StartsWith(arg, kFlag)) return false;
  *value = arg.substr(sizeof(kFlag) - 1);
  if (value->empty()) *error = "--input_ranges needs a .json file or `none`";
  return true;
}

absl::StatusOr<InputRanges> ReadInputRanges(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read input ranges ", path));
  std::stringstream text;
  text << in.rdbuf();
  google::protobuf::Struct doc;
  if (auto s = google::protobuf::util::JsonStringToMessage(text.str(), &doc); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a JSON object: ", std::string(s.message())));
  }
  auto params = doc.fields().find("params");
  if (params == doc.fields().end() ||
      params->second.kind_case() != google::protobuf::Value::kListValue) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": no \"params\" list ({\"params\": [null, {\"low\": L, \"high\": H}, ...]})"));
  }
  InputRanges ranges;
  for (const google::protobuf::Value& v : params->second.list_value().values()) {
    ASSIGN_OR_RETURN(std::optional<InputRange> r,
                     ParseEntry(v, absl::StrCat(path, ": params[", ranges.size(), "]")));
    ranges.push_back(r);
  }
  return ranges;
}

std::string FindInputRangesFile(const std::string& flag, const std::vector<std::string>& modules) {
  if (flag == "none") return "";
  if (!flag.empty()) return flag;
  for (const std::string& m : modules) {
    if (m.empty()) continue;
    const std::string candidate = Stem(m) + ".inputs.json";
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
  }
  return "";
}

absl::Status ApplyInputRanges(const InputRanges& ranges, const std::string& path, uint64_t seed,
                              std::vector<Literal>* inputs) {
  if (ranges.size() != inputs->size()) {
    return absl::InvalidArgumentError(absl::StrCat(path, " gives ", ranges.size(),
                                                   " parameter ranges but the program takes ",
                                                   inputs->size(), " parameters"));
  }
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (!ranges[i].has_value()) continue;
    const Shape shape = (*inputs)[i].shape();
    absl::StatusOr<Literal> drawn =
        MakeRandomLiteralInRange(shape, seed * 1000003 + i, ranges[i]->low, ranges[i]->high);
    if (!drawn.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": params[", i, "] for parameter ", i,
                                                     " (", shape.ToString(false),
                                                     "): ", drawn.status().message()));
    }
    (*inputs)[i] = *std::move(drawn);
  }
  return absl::OkStatus();
}

absl::Status ApplyInputRangesFor(const std::string& flag, const std::vector<std::string>& modules,
                                 uint64_t seed, std::vector<Literal>* inputs, std::ostream& log) {
  const std::string path = FindInputRangesFile(flag, modules);
  if (path.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(const InputRanges ranges, ReadInputRanges(path));
  RETURN_IF_ERROR(ApplyInputRanges(ranges, path, seed, inputs));
  if (flag.empty()) log << "random inputs: ranges from " << path << " (--input_ranges=none: off)\n";
  return absl::OkStatus();
}

}  // namespace xla::cli
