#include "xla/tools/tensor_io.h"

#include <filesystem>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "xla/types/npy.h"

namespace xla::cli {

bool ParseTensorIoFlag(const std::string& arg, TensorIoFlags* flags, std::string* error) {
  auto value = [&arg](absl::string_view flag) -> std::optional<std::string> {
    if (!absl::StartsWith(arg, flag)) return std::nullopt;
    return arg.substr(flag.size());
  };
  error->clear();
  if (auto v = value("--input=")) {
    flags->inputs.push_back(*v);
  } else if (auto v = value("--output_dir=")) {
    flags->output_dir = *v;
  } else if (auto v = value("--seed=")) {
    if (!absl::SimpleAtoi(*v, &flags->seed)) *error = absl::StrCat("bad --seed value '", *v, "'");
  } else if (arg == "--random_inputs") {
    flags->random_inputs = true;
  } else if (arg == "--print") {
    flags->print = true;
  } else {
    return false;
  }
  return true;
}

std::string CheckTensorIoFlags(const TensorIoFlags& flags) {
  if (flags.random_inputs && !flags.inputs.empty()) {
    return "give --input files or --random_inputs, not both";
  }
  return "";
}

absl::Status EmitResults(const TensorIoFlags& flags, const std::vector<const Literal*>& leaves,
                         std::ostream& out) {
  if (!flags.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(flags.output_dir, ec);
    for (size_t i = 0; i < leaves.size(); ++i) {
      absl::Status s = WriteNpyFile(absl::StrCat(flags.output_dir, "/out", i, ".npy"), *leaves[i]);
      if (!s.ok()) return s;
    }
  }
  if (flags.print || flags.output_dir.empty()) {
    for (size_t i = 0; i < leaves.size(); ++i) {
      out << "out" << i << ": " << leaves[i]->shape().ToString(false) << " " << leaves[i]->ToString()
          << "\n";
    }
  }
  return absl::OkStatus();
}

std::vector<const Literal*> FlattenLeaves(const Literal& value) {
  if (value.shape().IsToken()) return {};
  if (!value.shape().IsTuple()) return {&value};
  std::vector<const Literal*> out;
  for (const Literal& e : value.tuple_elements()) {
    std::vector<const Literal*> inner = FlattenLeaves(e);
    out.insert(out.end(), inner.begin(), inner.end());
  }
  return out;
}

}  // namespace xla::cli
