#include "xla/stream_executor/fft.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace stream_executor {
namespace {

absl::Status Bad(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("fft: ", what));
}

bool IsComplexInput(FftType type) { return type != FftType::kRfft; }
bool IsComplexOutput(FftType type) { return type != FftType::kIrfft; }

int64_t RealBytes(FftPrecision p) { return p == FftPrecision::kF32 ? 4 : 8; }

int64_t Product(const std::vector<int64_t>& dims, int64_t batch) {
  int64_t n = batch;
  for (int64_t d : dims) n *= d;
  return n;
}

// `dims` with the last one halved as the complex side of a real FFT keeps it.
std::vector<int64_t> HalfSpectrum(std::vector<int64_t> dims) {
  if (!dims.empty()) dims.back() = dims.back() / 2 + 1;
  return dims;
}

bool Overlap(const DeviceMemoryBase& a, const DeviceMemoryBase& b) {
  const auto* pa = static_cast<const char*>(a.opaque);
  const auto* pb = static_cast<const char*>(b.opaque);
  return a.size > 0 && b.size > 0 && pa < pb + b.size && pb < pa + a.size;
}

absl::Status CheckHolds(absl::string_view name, const DeviceMemoryBase& buffer, int64_t bytes) {
  if (static_cast<uint64_t>(bytes) <= buffer.size) return absl::OkStatus();
  return Bad(absl::StrCat("the ", name, " needs ", bytes, " bytes but its buffer has ",
                          buffer.size));
}

}  // namespace

absl::string_view FftTypeName(FftType type) {
  switch (type) {
    case FftType::kFft:
      return "FFT";
    case FftType::kIfft:
      return "IFFT";
    case FftType::kRfft:
      return "RFFT";
    case FftType::kIrfft:
      return "IRFFT";
  }
  return "?";
}

absl::string_view FftPrecisionName(FftPrecision precision) {
  return precision == FftPrecision::kF32 ? "f32" : "f64";
}

std::vector<int64_t> FftInputDims(const FftConfig& c) {
  return c.type == FftType::kIrfft ? HalfSpectrum(c.lengths) : c.lengths;
}

std::vector<int64_t> FftOutputDims(const FftConfig& c) {
  return c.type == FftType::kRfft ? HalfSpectrum(c.lengths) : c.lengths;
}

int64_t FftInputElements(const FftConfig& c) { return Product(FftInputDims(c), c.batch); }
int64_t FftOutputElements(const FftConfig& c) { return Product(FftOutputDims(c), c.batch); }

int64_t FftInputElementBytes(const FftConfig& c) {
  return RealBytes(c.precision) * (IsComplexInput(c.type) ? 2 : 1);
}

int64_t FftOutputElementBytes(const FftConfig& c) {
  return RealBytes(c.precision) * (IsComplexOutput(c.type) ? 2 : 1);
}

int64_t FftWorkspaceBytes(const FftConfig& c) {
  if (c.type != FftType::kIrfft) return 0;
  return FftInputElements(c) * FftInputElementBytes(c);
}

absl::Status CheckFftConfig(const FftConfig& c) {
  if (c.lengths.empty() || c.lengths.size() > 3) {
    return Bad(absl::StrCat("lengths [", absl::StrJoin(c.lengths, ","),
                            "] must have 1 to 3 entries"));
  }
  for (int64_t n : c.lengths) {
    if (n < 1 || n > kMaxFftLength) {
      return Bad(absl::StrCat("lengths [", absl::StrJoin(c.lengths, ","), "] has ", n,
                              ", outside [1, ", kMaxFftLength, "]"));
    }
  }
  if (c.batch < 0 || c.batch > kMaxFftBatch) {
    return Bad(absl::StrCat("batch ", c.batch, " is outside [0, ", kMaxFftBatch, "]"));
  }
  __int128 elements = c.batch;
  for (int64_t n : c.lengths) elements *= n;
  if (elements >= (static_cast<__int128>(1) << 58)) {
    return Bad(absl::StrCat(FftConfigToString(c), " has too many elements"));
  }
  return absl::OkStatus();
}

absl::Status CheckFftBuffers(const FftConfig& c, const DeviceMemoryBase& input,
                             const DeviceMemoryBase& output, const DeviceMemoryBase& workspace) {
  if (absl::Status s = CheckFftConfig(c); !s.ok()) return s;
  if (absl::Status s = CheckHolds("input", input, FftInputElements(c) * FftInputElementBytes(c));
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckHolds("output", output, FftOutputElements(c) * FftOutputElementBytes(c));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckHolds("workspace", workspace, FftWorkspaceBytes(c)); !s.ok()) {
    return s;
  }
  if (Overlap(output, input)) return Bad("the output overlaps the input");
  if (Overlap(output, workspace)) return Bad("the output overlaps the workspace");
  if (Overlap(input, workspace)) return Bad("the input overlaps the workspace");
  return absl::OkStatus();
}

std::string FftConfigToString(const FftConfig& c) {
  return absl::StrCat(FftTypeName(c.type), " ", FftPrecisionName(c.precision),
                      " batch=", c.batch, " lengths=", absl::StrJoin(c.lengths, ","));
}

}  // namespace stream_executor
