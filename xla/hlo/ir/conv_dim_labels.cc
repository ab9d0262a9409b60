#include "xla/hlo/ir/conv_dim_labels.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace xla {
namespace {

// Parses one part. `a`/`b` are the two letters (b,f or i,o); their positions
// are stored in *first/*second, spatial positions by spatial number.
absl::Status ParsePart(absl::string_view part, char a, char b, int64_t* first, int64_t* second,
                       std::vector<int64_t>* spatial, absl::string_view text) {
  *first = *second = -1;
  std::vector<int64_t> by_number(part.size(), -1);
  int64_t spatial_count = 0;
  for (size_t i = 0; i < part.size(); ++i) {
    char c = part[i];
    int64_t* slot = c == a ? first : c == b ? second : nullptr;
    if (slot != nullptr) {
      if (*slot != -1) {
        return absl::InvalidArgumentError(
            absl::StrCat("dim_labels '", text, "': '", std::string(1, c), "' appears twice"));
      }
      *slot = static_cast<int64_t>(i);
      continue;
    }
    if (c < '0' || c > '9' || static_cast<size_t>(c - '0') >= part.size()) {
      return absl::InvalidArgumentError(absl::StrCat("dim_labels '", text,
                                                     "': unexpected character '",
                                                     std::string(1, c), "' in '", part, "'"));
    }
    int64_t n = c - '0';
    if (by_number[n] != -1) {
      return absl::InvalidArgumentError(
          absl::StrCat("dim_labels '", text, "': spatial dimension ", n, " appears twice"));
    }
    by_number[n] = static_cast<int64_t>(i);
    ++spatial_count;
  }
  if (*first == -1 || *second == -1) {
    return absl::InvalidArgumentError(absl::StrCat("dim_labels '", text, "': '", part,
                                                   "' must contain '", std::string(1, a),
                                                   "' and '", std::string(1, b), "'"));
  }
  spatial->clear();
  for (int64_t n = 0; n < spatial_count; ++n) {
    if (by_number[n] == -1) {
      return absl::InvalidArgumentError(
          absl::StrCat("dim_labels '", text, "': spatial dimension ", n, " is missing"));
    }
    spatial->push_back(by_number[n]);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ConvDimLabels> ParseConvDimLabels(absl::string_view text) {
  std::vector<absl::string_view> io = absl::StrSplit(text, "->");
  std::vector<absl::string_view> in =
      io.size() == 2 ? absl::StrSplit(io[0], '_') : std::vector<absl::string_view>{};
  if (io.size() != 2 || in.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dim_labels '", text, "' is not of the form <input>_<kernel>-><output>, e.g. b01f_01io->b01f"));
  }
  ConvDimLabels l;
  l.text = std::string(text);
  absl::Status s = ParsePart(in[0], 'b', 'f', &l.input_batch, &l.input_feature,
                             &l.input_spatial, text);
  if (!s.ok()) return s;
  s = ParsePart(in[1], 'i', 'o', &l.kernel_input_feature, &l.kernel_output_feature,
                &l.kernel_spatial, text);
  if (!s.ok()) return s;
  s = ParsePart(io[1], 'b', 'f', &l.output_batch, &l.output_feature, &l.output_spatial, text);
  if (!s.ok()) return s;
  if (l.input_spatial.size() != l.kernel_spatial.size() ||
      l.input_spatial.size() != l.output_spatial.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("dim_labels '", text, "': input, kernel and output ranks differ"));
  }
  return l;
}

}  // namespace xla
