#include "xla/backends/gpu/compiler/fft_emitter.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/backends/gpu/compiler/thunk_emission_util.h"
#include "xla/service/canonicalize/rewrite_util.h"
#include "xla/types/xla_data_convert.h"

namespace xla::gpu {
namespace {

struct TypeName {
  const char* hlo;
  FftTypeProto proto;
};
constexpr TypeName kTypes[] = {
    {"FFT", FFT_TYPE_FFT},
    {"IFFT", FFT_TYPE_IFFT},
    {"RFFT", FFT_TYPE_RFFT},
    {"IRFFT", FFT_TYPE_IRFFT},
};

// The real precision of an fft's element type (either side), or nullopt.
std::optional<PrimitiveType> Precision(PrimitiveType type) {
  if (type == PrimitiveType::C64 || type == PrimitiveType::F32) return PrimitiveType::F32;
  if (type == PrimitiveType::C128 || type == PrimitiveType::F64) return PrimitiveType::F64;
  return std::nullopt;
}

}  // namespace

absl::StatusOr<FftThunkProto> FftThunkConfig(const HloInstruction& fft) {
  FftThunkProto config;
  const std::string& type = fft.GetString(AttrId::kFftType);
  for (const TypeName& t : kTypes) {
    if (type == t.hlo) config.set_fft_type(t.proto);
  }
  if (config.fft_type() == FFT_TYPE_UNSPECIFIED) {
    return Unimplemented(fft, absl::StrCat("unknown fft_type '", type, "'"));
  }
  const Shape& operand = fft.operand(0)->shape();
  const std::optional<PrimitiveType> precision = Precision(operand.element_type());
  if (!precision.has_value()) {
    return Unimplemented(fft, absl::StrCat("the FFT libraries run c64/f32 or c128/f64, not ",
                                           operand.ToString()));
  }
  if (!canonicalize::IsRowMajorOrUnset(operand) ||
      !canonicalize::IsRowMajorOrUnset(fft.shape())) {
    return Unimplemented(fft, "the fft thunk needs a row-major operand and result");
  }
  const std::vector<int64_t>& lengths = fft.GetIntList(AttrId::kFftLength);
  for (int64_t n : lengths) {
    if (n < 1 || n > (int64_t{1} << 30)) {
      return Unimplemented(fft, absl::StrCat("fft_length={", absl::StrJoin(lengths, ","),
                                             "}: the FFT libraries take lengths in [1, 2^30]"));
    }
  }
  config.set_precision(PrimitiveTypeToProto(*precision));
  config.mutable_fft_length()->Add(lengths.begin(), lengths.end());
  config.mutable_input_dims()->Add(operand.dimensions().begin(), operand.dimensions().end());
  return config;
}

int64_t FftWorkspaceBound(const FftThunkProto& config) {
  if (config.fft_type() != FFT_TYPE_IRFFT) return 0;
  int64_t elements = 1;
  for (int64_t d : config.input_dims()) elements *= d;
  return elements * (config.precision() == PrimitiveTypeToProto(PrimitiveType::F32) ? 8 : 16);
}

}  // namespace xla::gpu
