#include "xla/backends/gpu/runtime/collectives/communicator.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla::gpu {
namespace {

struct KindRow {
  ReductionKind kind;
  const char* name;
  ReductionKindProto proto;
};

constexpr KindRow kKinds[] = {
    {ReductionKind::kSum, "sum", REDUCTION_KIND_SUM},
    {ReductionKind::kProd, "prod", REDUCTION_KIND_PROD},
    {ReductionKind::kMin, "min", REDUCTION_KIND_MIN},
    {ReductionKind::kMax, "max", REDUCTION_KIND_MAX},
    {ReductionKind::kAnd, "and", REDUCTION_KIND_AND},
    {ReductionKind::kOr, "or", REDUCTION_KIND_OR},
};

const KindRow& RowOf(ReductionKind kind) {
  for (const KindRow& r : kKinds) {
    if (r.kind == kind) return r;
  }
  return kKinds[0];  // unreachable: every kind has a row
}

}  // namespace

absl::string_view ReductionKindName(ReductionKind kind) { return RowOf(kind).name; }

ReductionKindProto ReductionKindToProto(ReductionKind kind) { return RowOf(kind).proto; }

absl::StatusOr<ReductionKind> ReductionKindFromProto(int value) {
  for (const KindRow& r : kKinds) {
    if (static_cast<int>(r.proto) == value) return r.kind;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("reduction kind ", value, " is not one of sum, prod, min, max, and, or"));
}

bool IsSupportedReduction(ReductionKind kind, PrimitiveType type) {
  const bool logical = kind == ReductionKind::kAnd || kind == ReductionKind::kOr;
  if (IsPred(type)) return logical;
  if (IsInteger(type)) return BitWidth(type) >= 8;
  constexpr PrimitiveType kReducedFloats[] = {PrimitiveType::F16, PrimitiveType::BF16,
                                              PrimitiveType::F32, PrimitiveType::F64};
  for (PrimitiveType t : kReducedFloats) {
    if (t == type) return !logical;
  }
  return false;
}

std::string UnsupportedReductionMessage(ReductionKind kind, PrimitiveType type) {
  std::string hint = "collectives reduce pred (and, or), integers, f16, bf16, f32 and f64";
  if (IsFloat(type) && BitWidth(type) < 16) {
    absl::StrAppend(&hint, "; convert ", PrimitiveTypeName(type),
                    " operands to f16, bf16 or f32 before reducing them");
  }
  return absl::StrCat(ReductionKindName(kind), " is not supported for ", PrimitiveTypeName(type),
                      " (", hint, ")");
}

absl::StatusOr<CliqueKey> CliqueKey::Create(std::vector<int64_t> device_ids) {
  if (device_ids.empty()) return absl::InvalidArgumentError("a clique needs at least one device");
  std::sort(device_ids.begin(), device_ids.end());
  for (size_t i = 0; i < device_ids.size(); ++i) {
    if (device_ids[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("device id ", device_ids[i], " is negative"));
    }
    if (i > 0 && device_ids[i] == device_ids[i - 1]) {
      return absl::InvalidArgumentError(
          absl::StrCat("device id ", device_ids[i], " appears twice in a clique"));
    }
  }
  return CliqueKey(std::move(device_ids));
}

std::optional<int64_t> CliqueKey::RankOf(int64_t device_id) const {
  auto it = std::lower_bound(devices_.begin(), devices_.end(), device_id);
  if (it == devices_.end() || *it != device_id) return std::nullopt;
  return it - devices_.begin();
}

std::string CliqueKey::ToString() const {
  return absl::StrCat("devices [", absl::StrJoin(devices_, ","), "]");
}

}  // namespace xla::gpu
