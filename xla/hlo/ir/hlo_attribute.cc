#include "xla/hlo/ir/hlo_attribute.h"

#include <array>
#include <cstdio>
#include <cstdlib>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/hlo/ir/mesh_replica_groups.h"
#include "xla/hlo/ir/hlo_computation.h"

namespace xla {
namespace {

struct AttrInfo {
  absl::string_view name;
  AttrKind kind;
  absl::string_view allowed;
};

constexpr AttrInfo kAttrs[] = {
#define XLA_HLO_ATTR_INFO_(e, name, kind, allowed) {name, AttrKind::kind, allowed},
    XLA_HLO_ATTRIBUTES(XLA_HLO_ATTR_INFO_)
#undef XLA_HLO_ATTR_INFO_
};
constexpr int kAttrCount = sizeof(kAttrs) / sizeof(kAttrs[0]);

std::string Braced(const std::vector<int64_t>& v) {
  return absl::StrCat("{", absl::StrJoin(v, ","), "}");
}

std::string ShortestDouble(double v) {
  for (int p = 1; p <= 17; ++p) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*g", p, v);
    if (std::strtod(buf, nullptr) == v) return buf;
  }
  return absl::StrCat(v);
}

// Joins the per-dimension values of a window field with 'x'.
template <typename F>
std::string JoinDims(const Window& w, F field) {
  std::vector<std::string> parts;
  for (const WindowDim& d : w.dims) parts.push_back(field(d));
  return absl::StrJoin(parts, "x");
}

}  // namespace

absl::string_view AttrName(AttrId id) { return kAttrs[static_cast<int>(id)].name; }
AttrKind AttrKindOf(AttrId id) { return kAttrs[static_cast<int>(id)].kind; }
absl::string_view AttrAllowedValues(AttrId id) { return kAttrs[static_cast<int>(id)].allowed; }

std::optional<AttrId> AttrFromName(absl::string_view name) {
  static const auto* by_name = [] {
    auto* m = new absl::flat_hash_map<absl::string_view, AttrId>();
    for (int i = 0; i < kAttrCount; ++i) m->emplace(kAttrs[i].name, static_cast<AttrId>(i));
    return m;
  }();
  auto it = by_name->find(name);
  if (it == by_name->end()) return std::nullopt;
  return it->second;
}

std::vector<std::vector<int64_t>> ReplicaGroups::Expand() const {
  if (!raw.empty()) return ExpandMeshReplicaGroups(raw);
  if (!iota) return groups;
  // Devices 0..N-1 laid out in reshape_dims, transposed, then read in order
  // and cut into group_dims[0] groups of group_dims[1].
  constexpr int64_t kMaxDevices = int64_t{1} << 20;
  int64_t total = 1;
  for (int64_t d : reshape_dims) {
    if (d <= 0 || total > kMaxDevices / d) return {};
    total *= d;
  }
  const size_t rank = reshape_dims.size();
  std::vector<int64_t> perm = transpose;
  if (perm.empty()) {
    for (size_t i = 0; i < rank; ++i) perm.push_back(static_cast<int64_t>(i));
  }
  std::vector<bool> seen(rank, false);
  if (perm.size() != rank) return {};
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p]) return {};
    seen[p] = true;
  }
  if (group_dims.size() != 2 || group_dims[0] <= 0 || group_dims[1] <= 0 ||
      group_dims[0] * group_dims[1] != total) {
    return {};
  }
  std::vector<int64_t> permuted_dims(rank);
  for (size_t i = 0; i < rank; ++i) permuted_dims[i] = reshape_dims[perm[i]];
  std::vector<int64_t> order;
  order.reserve(total);
  std::vector<int64_t> index(rank, 0);
  for (int64_t n = 0; n < total; ++n) {
    // Index in the transposed array -> index in the original -> linear id.
    std::vector<int64_t> original(rank);
    for (size_t i = 0; i < rank; ++i) original[perm[i]] = index[i];
    int64_t linear = 0;
    for (size_t i = 0; i < rank; ++i) linear = linear * reshape_dims[i] + original[i];
    order.push_back(linear);
    for (int64_t i = static_cast<int64_t>(rank) - 1; i >= 0; --i) {
      if (++index[i] < permuted_dims[i]) break;
      index[i] = 0;
    }
  }
  std::vector<std::vector<int64_t>> out;
  const int64_t num_groups = group_dims.empty() ? 1 : group_dims[0];
  const int64_t group_size = num_groups == 0 ? 0 : total / num_groups;
  for (int64_t g = 0; g < num_groups; ++g) {
    out.emplace_back(order.begin() + g * group_size, order.begin() + (g + 1) * group_size);
  }
  return out;
}

std::string WindowToString(const Window& w) {
  if (w.dims.empty()) return "{}";
  std::vector<std::string> parts;
  parts.push_back("size=" + JoinDims(w, [](const WindowDim& d) { return absl::StrCat(d.size); }));
  auto any = [&](auto pred) {
    for (const WindowDim& d : w.dims) {
      if (pred(d)) return true;
    }
    return false;
  };
  if (any([](const WindowDim& d) { return d.stride != 1; })) {
    parts.push_back("stride=" +
                    JoinDims(w, [](const WindowDim& d) { return absl::StrCat(d.stride); }));
  }
  if (any([](const WindowDim& d) { return d.pad_low != 0 || d.pad_high != 0; })) {
    parts.push_back("pad=" + JoinDims(w, [](const WindowDim& d) {
                      return absl::StrCat(d.pad_low, "_", d.pad_high);
                    }));
  }
  if (any([](const WindowDim& d) { return d.lhs_dilate != 1; })) {
    parts.push_back("lhs_dilate=" +
                    JoinDims(w, [](const WindowDim& d) { return absl::StrCat(d.lhs_dilate); }));
  }
  if (any([](const WindowDim& d) { return d.rhs_dilate != 1; })) {
    parts.push_back("rhs_dilate=" +
                    JoinDims(w, [](const WindowDim& d) { return absl::StrCat(d.rhs_dilate); }));
  }
  if (any([](const WindowDim& d) { return d.reversal; })) {
    parts.push_back("rhs_reversal=" +
                    JoinDims(w, [](const WindowDim& d) { return d.reversal ? "1" : "0"; }));
  }
  return absl::StrCat("{", absl::StrJoin(parts, " "), "}");
}

std::string PaddingToString(const std::vector<PaddingDim>& p) {
  bool interior = false;
  for (const PaddingDim& d : p) interior |= d.interior != 0;
  std::vector<std::string> parts;
  for (const PaddingDim& d : p) {
    parts.push_back(interior ? absl::StrCat(d.low, "_", d.high, "_", d.interior)
                             : absl::StrCat(d.low, "_", d.high));
  }
  return absl::StrJoin(parts, "x");
}

std::string SliceToString(const std::vector<SliceDim>& s) {
  std::vector<std::string> parts;
  for (const SliceDim& d : s) {
    parts.push_back(d.stride == 1 ? absl::StrCat("[", d.start, ":", d.limit, "]")
                                  : absl::StrCat("[", d.start, ":", d.limit, ":", d.stride, "]"));
  }
  return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
}

namespace {

std::string ReplicaGroupsToString(const ReplicaGroups& g) {
  if (!g.raw.empty()) return g.raw;
  if (g.iota) {
    std::string out = absl::StrCat("[", absl::StrJoin(g.group_dims, ","), "]<=[",
                                   absl::StrJoin(g.reshape_dims, ","), "]");
    if (!g.transpose.empty()) absl::StrAppend(&out, "T(", absl::StrJoin(g.transpose, ","), ")");
    return out;
  }
  std::vector<std::string> parts;
  for (const auto& group : g.groups) parts.push_back(Braced(group));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

struct ValuePrinter {
  AttrId id;
  std::string operator()(int64_t v) const { return absl::StrCat(v); }
  std::string operator()(double v) const { return ShortestDouble(v); }
  std::string operator()(bool v) const { return v ? "true" : "false"; }
  std::string operator()(const std::vector<int64_t>& v) const { return Braced(v); }
  std::string operator()(const std::vector<bool>& v) const {
    std::vector<std::string> parts;
    for (bool b : v) parts.push_back(b ? "true" : "false");
    return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
  }
  std::string operator()(const std::string& v) const {
    if (AttrKindOf(id) == AttrKind::kString) return absl::StrCat("\"", absl::CEscape(v), "\"");
    return v;  // identifiers and raw text
  }
  std::string operator()(const std::vector<std::string>& v) const {
    return absl::StrCat("{", absl::StrJoin(v, ","), "}");
  }
  std::string operator()(const std::vector<SliceDim>& v) const { return SliceToString(v); }
  std::string operator()(const Window& v) const { return WindowToString(v); }
  std::string operator()(const ConvDimLabels& v) const { return v.text; }
  std::string operator()(const std::vector<PaddingDim>& v) const { return PaddingToString(v); }
  std::string operator()(HloComputation* c) const { return c->name(); }
  std::string operator()(const std::vector<HloComputation*>& v) const {
    if (v.size() == 1 && id == AttrId::kCalls) return v[0]->name();
    std::vector<std::string> names;
    for (HloComputation* c : v) names.push_back(c->name());
    return absl::StrCat("{", absl::StrJoin(names, ", "), "}");
  }
  std::string operator()(const ReplicaGroups& v) const { return ReplicaGroupsToString(v); }
  std::string operator()(const std::vector<std::vector<int64_t>>& v) const {
    std::vector<std::string> parts;
    for (const auto& p : v) parts.push_back(Braced(p));
    return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
  }
  std::string operator()(const Shape& v) const { return v.ToString(); }
  std::string operator()(const std::vector<Shape>& v) const {
    std::vector<std::string> parts;
    for (const Shape& s : v) parts.push_back(s.ToString());
    return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
  }
};

}  // namespace

bool AttrValueMatchesKind(AttrId id, const AttrValue& value) {
  switch (AttrKindOf(id)) {
    case AttrKind::kInt:
      return std::holds_alternative<int64_t>(value);
    case AttrKind::kFloat:
      return std::holds_alternative<double>(value);
    case AttrKind::kBool:
      return std::holds_alternative<bool>(value);
    case AttrKind::kIntList:
      return std::holds_alternative<std::vector<int64_t>>(value);
    case AttrKind::kBoolList:
      return std::holds_alternative<std::vector<bool>>(value);
    case AttrKind::kIdent:
    case AttrKind::kString:
    case AttrKind::kRaw:
      return std::holds_alternative<std::string>(value);
    case AttrKind::kIdentList:
      return std::holds_alternative<std::vector<std::string>>(value);
    case AttrKind::kSlice:
      return std::holds_alternative<std::vector<SliceDim>>(value);
    case AttrKind::kWindow:
      return std::holds_alternative<Window>(value);
    case AttrKind::kDimLabels:
      return std::holds_alternative<ConvDimLabels>(value);
    case AttrKind::kPadding:
      return std::holds_alternative<std::vector<PaddingDim>>(value);
    case AttrKind::kComputation:
      return std::holds_alternative<HloComputation*>(value);
    case AttrKind::kComputationList:
      return std::holds_alternative<std::vector<HloComputation*>>(value);
    case AttrKind::kReplicaGroups:
      return std::holds_alternative<ReplicaGroups>(value);
    case AttrKind::kIntListList:
      return std::holds_alternative<std::vector<std::vector<int64_t>>>(value);
    case AttrKind::kShape:
      return std::holds_alternative<Shape>(value);
    case AttrKind::kShapeList:
      return std::holds_alternative<std::vector<Shape>>(value);
  }
  return false;
}

std::string AttrValueToString(AttrId id, const AttrValue& value) {
  return std::visit(ValuePrinter{id}, value);
}

}  // namespace xla
