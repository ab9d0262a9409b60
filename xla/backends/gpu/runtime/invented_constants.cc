#include "xla/backends/gpu/runtime/invented_constants.h"

#include "absl/strings/str_cat.h"

namespace xla::gpu {
namespace {

absl::Status Invalid(absl::string_view field, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("invented_constants.", field, ": ", what));
}

}  // namespace

absl::string_view InventedConstantsModeName(InventedConstantsModeProto mode) {
  if (mode == INVENTED_CONSTANTS_MODE_ZEROS) return "zeros";
  if (mode == INVENTED_CONSTANTS_MODE_RANDOM) return "random";
  return "unknown";
}

absl::Status ValidateInventedConstants(const GpuExecutablePayloadProto& payload) {
  if (!payload.has_invented_constants()) return absl::OkStatus();
  const InventedConstantsProto& r = payload.invented_constants();
  if (r.mode() != INVENTED_CONSTANTS_MODE_ZEROS && r.mode() != INVENTED_CONSTANTS_MODE_RANDOM) {
    return Invalid("mode", absl::StrCat("unknown mode ", static_cast<int>(r.mode()),
                                        " (this runtime knows ZEROS=1 and RANDOM=2; the artifact "
                                        "is newer than this runtime or damaged)"));
  }
  if (r.count() < 1 || r.count() > kMaxInventedConstantCount) {
    return Invalid("count", absl::StrCat(r.count(), " is outside [1, ", kMaxInventedConstantCount, "]"));
  }
  if (r.names_size() > kMaxInventedConstantNames) {
    return Invalid("names", absl::StrCat(r.names_size(), " names, more than the ",
                                         kMaxInventedConstantNames, " allowed"));
  }
  if (r.names_size() > r.count()) {
    return Invalid("names", absl::StrCat(r.names_size(), " names for a count of ", r.count()));
  }
  for (int i = 0; i < r.names_size(); ++i) {
    const size_t size = r.names(i).size();
    if (size == 0 || size > kMaxInventedConstantNameBytes) {
      return Invalid(absl::StrCat("names[", i, "]"),
                     absl::StrCat(size, " bytes, outside [1, ", kMaxInventedConstantNameBytes, "]"));
    }
  }
  return absl::OkStatus();
}

std::string InventedConstantsSummary(const InventedConstantsProto& record) {
  std::string line = absl::StrCat(record.count(), " invented (", InventedConstantsModeName(record.mode()));
  if (record.mode() == INVENTED_CONSTANTS_MODE_RANDOM) absl::StrAppend(&line, ", seed ", record.seed());
  absl::StrAppend(&line, ")");
  for (int i = 0; i < record.names_size(); ++i) {
    absl::StrAppend(&line, i == 0 ? ": %" : ", %", record.names(i));
  }
  if (record.count() > record.names_size()) {
    absl::StrAppend(&line, record.names_size() == 0 ? ": " : ", ", "... (",
                    record.count() - record.names_size(), " more)");
  }
  return line;
}

}  // namespace xla::gpu
