#include "xla/hlo/proto/hlo_attribute_convert.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "xla/hlo/ir/conv_dim_labels.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/logging.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

using ValueCase = HloAttributeProto::ValueCase;

absl::Status Invalid(absl::string_view field, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", what));
}

// The oneof case that holds values of `kind` (the table in hlo.proto).
ValueCase CaseForKind(AttrKind kind) {
  switch (kind) {
    case AttrKind::kInt:
      return HloAttributeProto::kIntValue;
    case AttrKind::kFloat:
      return HloAttributeProto::kFloatValue;
    case AttrKind::kBool:
      return HloAttributeProto::kBoolValue;
    case AttrKind::kIntList:
      return HloAttributeProto::kInts;
    case AttrKind::kBoolList:
      return HloAttributeProto::kBools;
    case AttrKind::kIdent:
      return HloAttributeProto::kIdent;
    case AttrKind::kIdentList:
      return HloAttributeProto::kIdents;
    case AttrKind::kString:
      return HloAttributeProto::kStr;
    case AttrKind::kSlice:
      return HloAttributeProto::kSlice;
    case AttrKind::kWindow:
      return HloAttributeProto::kWindow;
    case AttrKind::kDimLabels:
      return HloAttributeProto::kDimLabels;
    case AttrKind::kPadding:
      return HloAttributeProto::kPadding;
    case AttrKind::kComputation:
      return HloAttributeProto::kComputation;
    case AttrKind::kComputationList:
      return HloAttributeProto::kComputations;
    case AttrKind::kReplicaGroups:
      return HloAttributeProto::kReplicaGroups;
    case AttrKind::kIntListList:
      return HloAttributeProto::kIntLists;
    case AttrKind::kShape:
      return HloAttributeProto::kShape;
    case AttrKind::kShapeList:
      return HloAttributeProto::kShapes;
    case AttrKind::kRaw:
      return HloAttributeProto::kRaw;
  }
  return HloAttributeProto::VALUE_NOT_SET;
}

// The proto field name of a oneof case, for messages.
std::string CaseName(ValueCase value_case) {
  if (value_case == HloAttributeProto::VALUE_NOT_SET) return "no value";
  const auto* field = HloAttributeProto::descriptor()->FindFieldByNumber(value_case);
  return field == nullptr ? absl::StrCat("field ", static_cast<int>(value_case))
                          : std::string(field->name());
}

// The value of attribute `id` as alternative T; a mismatch is a bug in
// whoever built the IR.
template <typename T>
const T& As(const AttrValue& value, AttrId id) {
  const T* typed = std::get_if<T>(&value);
  XLA_CHECK(typed != nullptr) << "attribute " << AttrName(id)
                              << " holds a value of the wrong type for its kind";
  return *typed;
}

int64_t ComputationId(const HloComputation* c, const ComputationIdMap& ids, AttrId id) {
  auto it = ids.find(c);
  XLA_CHECK(it != ids.end()) << "attribute " << AttrName(id)
                             << " names a computation outside the module";
  return it->second;
}

void IntsToProto(const std::vector<int64_t>& values, IntListProto* proto) {
  for (int64_t v : values) proto->add_values(v);
}

std::vector<int64_t> IntsFromProto(const IntListProto& proto) {
  return std::vector<int64_t>(proto.values().begin(), proto.values().end());
}

void ReplicaGroupsToProto(const ReplicaGroups& groups, ReplicaGroupsProto* proto) {
  proto->set_iota(groups.iota);
  for (const auto& g : groups.groups) IntsToProto(g, proto->add_groups());
  for (int64_t d : groups.group_dims) proto->add_group_dims(d);
  for (int64_t d : groups.reshape_dims) proto->add_reshape_dims(d);
  for (int64_t d : groups.transpose) proto->add_transpose(d);
  proto->set_raw(groups.raw);
}

void WindowToProto(const Window& window, WindowProto* proto) {
  for (const WindowDim& d : window.dims) {
    WindowProto::Dim* p = proto->add_dims();
    p->set_size(d.size);
    p->set_stride(d.stride);
    p->set_pad_low(d.pad_low);
    p->set_pad_high(d.pad_high);
    p->set_lhs_dilate(d.lhs_dilate);
    p->set_rhs_dilate(d.rhs_dilate);
    p->set_reversal(d.reversal);
  }
}

Window WindowFromProto(const WindowProto& proto) {
  Window window;
  for (const WindowProto::Dim& p : proto.dims()) {
    WindowDim d;
    d.size = p.size();
    d.stride = p.stride();
    d.pad_low = p.pad_low();
    d.pad_high = p.pad_high();
    d.lhs_dilate = p.lhs_dilate();
    d.rhs_dilate = p.rhs_dilate();
    d.reversal = p.reversal();
    window.dims.push_back(d);
  }
  return window;
}

absl::StatusOr<ReplicaGroups> ReplicaGroupsFromProto(const ReplicaGroupsProto& proto,
                                                     absl::string_view field) {
  ReplicaGroups groups;
  groups.iota = proto.iota();
  if (!proto.raw().empty()) {
    if (proto.iota() || !proto.groups().empty() || !proto.group_dims().empty() ||
        !proto.reshape_dims().empty() || !proto.transpose().empty()) {
      return Invalid(field, absl::StrCat("verbatim replica groups \"", proto.raw(),
                                         "\" carry other replica group fields too"));
    }
    groups.raw = proto.raw();
    return groups;
  }
  if (!proto.iota()) {
    if (!proto.group_dims().empty() || !proto.reshape_dims().empty() ||
        !proto.transpose().empty()) {
      return Invalid(field,
                     "explicit replica groups carry iota fields (group_dims, "
                     "reshape_dims or transpose)");
    }
    for (const IntListProto& g : proto.groups()) groups.groups.push_back(IntsFromProto(g));
    return groups;
  }
  if (!proto.groups().empty()) {
    return Invalid(field, "iota replica groups carry explicit groups");
  }
  const std::string text = absl::StrCat("[", absl::StrJoin(proto.group_dims(), ","), "]<=[",
                                        absl::StrJoin(proto.reshape_dims(), ","), "]T(",
                                        absl::StrJoin(proto.transpose(), ","), ")");
  if (proto.group_dims_size() != 2 || proto.reshape_dims().empty()) {
    return Invalid(field, absl::StrCat("iota replica groups ", text,
                                       " need 2 group_dims and at least one reshape dim"));
  }
  const std::optional<int64_t> groups_total = CheckedProduct(proto.group_dims());
  const std::optional<int64_t> devices = CheckedProduct(proto.reshape_dims());
  if (!groups_total || !devices || *groups_total != *devices) {
    return Invalid(field, absl::StrCat("iota replica groups ", text,
                                       ": group_dims and reshape_dims must be non-negative and "
                                       "hold the same number of devices"));
  }
  if (!proto.transpose().empty()) {
    std::vector<bool> seen(proto.reshape_dims_size(), false);
    bool ok = proto.transpose_size() == proto.reshape_dims_size();
    for (int64_t p : proto.transpose()) {
      ok = ok && p >= 0 && p < proto.reshape_dims_size() && !seen[p];
      if (ok) seen[p] = true;
    }
    if (!ok) {
      return Invalid(field, absl::StrCat("iota replica groups ", text,
                                         ": transpose is not a permutation of the ",
                                         proto.reshape_dims_size(), " reshape dims"));
    }
  }
  groups.group_dims.assign(proto.group_dims().begin(), proto.group_dims().end());
  groups.reshape_dims.assign(proto.reshape_dims().begin(), proto.reshape_dims().end());
  groups.transpose.assign(proto.transpose().begin(), proto.transpose().end());
  return groups;
}

absl::Status CheckIdentAllowed(AttrId id, const std::string& value, absl::string_view field) {
  const absl::string_view allowed = AttrAllowedValues(id);
  if (allowed.empty()) return absl::OkStatus();
  for (absl::string_view candidate : absl::StrSplit(allowed, '|')) {
    if (candidate == value) return absl::OkStatus();
  }
  return Invalid(field, absl::StrCat("attribute ", AttrName(id), " has value \"", value,
                                     "\"; allowed: ", allowed));
}

absl::StatusOr<HloComputation*> FindComputation(int64_t id, const ComputationByIdMap& map,
                                                absl::string_view field) {
  auto it = map.find(id);
  if (it == map.end()) {
    return Invalid(field, absl::StrCat("computation id ", id, " names no computation"));
  }
  return it->second;
}

}  // namespace

HloAttributeProto AttributeToProto(AttrId id, const AttrValue& value, const ComputationIdMap& ids) {
  HloAttributeProto proto;
  proto.set_name(std::string(AttrName(id)));
  switch (AttrKindOf(id)) {
    case AttrKind::kInt:
      proto.set_int_value(As<int64_t>(value, id));
      break;
    case AttrKind::kFloat:
      proto.set_float_value(As<double>(value, id));
      break;
    case AttrKind::kBool:
      proto.set_bool_value(As<bool>(value, id));
      break;
    case AttrKind::kIntList:
      IntsToProto(As<std::vector<int64_t>>(value, id), proto.mutable_ints());
      break;
    case AttrKind::kBoolList: {
      BoolListProto* list = proto.mutable_bools();  // set even when empty
      for (bool b : As<std::vector<bool>>(value, id)) list->add_values(b);
      break;
    }
    case AttrKind::kIdent:
      proto.set_ident(As<std::string>(value, id));
      break;
    case AttrKind::kIdentList: {
      IdentListProto* list = proto.mutable_idents();
      for (const std::string& s : As<std::vector<std::string>>(value, id)) list->add_values(s);
      break;
    }
    case AttrKind::kString:
      proto.set_str(As<std::string>(value, id));
      break;
    case AttrKind::kSlice: {
      SliceProto* slice = proto.mutable_slice();
      for (const SliceDim& d : As<std::vector<SliceDim>>(value, id)) {
        SliceProto::Dim* p = slice->add_dims();
        p->set_start(d.start);
        p->set_limit(d.limit);
        p->set_stride(d.stride);
      }
      break;
    }
    case AttrKind::kWindow:
      WindowToProto(As<Window>(value, id), proto.mutable_window());
      break;
    case AttrKind::kDimLabels:
      proto.set_dim_labels(As<ConvDimLabels>(value, id).text);
      break;
    case AttrKind::kPadding: {
      PaddingProto* padding = proto.mutable_padding();
      for (const PaddingDim& d : As<std::vector<PaddingDim>>(value, id)) {
        PaddingProto::Dim* p = padding->add_dims();
        p->set_low(d.low);
        p->set_high(d.high);
        p->set_interior(d.interior);
      }
      break;
    }
    case AttrKind::kComputation:
      proto.set_computation(ComputationId(As<HloComputation*>(value, id), ids, id));
      break;
    case AttrKind::kComputationList: {
      ComputationRefsProto* refs = proto.mutable_computations();
      for (const HloComputation* c : As<std::vector<HloComputation*>>(value, id)) {
        refs->add_ids(ComputationId(c, ids, id));
      }
      break;
    }
    case AttrKind::kReplicaGroups:
      ReplicaGroupsToProto(As<ReplicaGroups>(value, id), proto.mutable_replica_groups());
      break;
    case AttrKind::kIntListList: {
      IntListListProto* lists = proto.mutable_int_lists();
      for (const auto& list : As<std::vector<std::vector<int64_t>>>(value, id)) {
        IntsToProto(list, lists->add_lists());
      }
      break;
    }
    case AttrKind::kShape:
      *proto.mutable_shape() = ShapeToProto(As<Shape>(value, id));
      break;
    case AttrKind::kShapeList: {
      ShapeListProto* shapes = proto.mutable_shapes();
      for (const Shape& s : As<std::vector<Shape>>(value, id)) {
        *shapes->add_shapes() = ShapeToProto(s);
      }
      break;
    }
    case AttrKind::kRaw:
      proto.set_raw(As<std::string>(value, id));
      break;
  }
  return proto;
}

absl::StatusOr<std::pair<AttrId, AttrValue>> AttributeFromProto(
    const HloAttributeProto& proto, const ComputationByIdMap& computations,
    absl::string_view field) {
  const std::optional<AttrId> found = AttrFromName(proto.name());
  if (!found) {
    return Invalid(absl::StrCat(field, ".name"),
                   absl::StrCat("unknown attribute name \"", proto.name(), "\""));
  }
  const AttrId id = *found;
  const AttrKind kind = AttrKindOf(id);
  if (proto.value_case() != CaseForKind(kind)) {
    return Invalid(field,
                   absl::StrCat("attribute ", proto.name(), " holds ", CaseName(proto.value_case()),
                                ", but its kind needs ", CaseName(CaseForKind(kind))));
  }
  auto make = [id](auto value) -> std::pair<AttrId, AttrValue> {
    return {id, AttrValue(std::in_place_type<decltype(value)>, std::move(value))};
  };
  const std::string value_field = absl::StrCat(field, ".", CaseName(proto.value_case()));
  switch (kind) {
    case AttrKind::kInt:
      return make(int64_t{proto.int_value()});
    case AttrKind::kFloat:
      return make(double{proto.float_value()});
    case AttrKind::kBool:
      return make(bool{proto.bool_value()});
    case AttrKind::kIntList:
      return make(IntsFromProto(proto.ints()));
    case AttrKind::kBoolList:
      return make(std::vector<bool>(proto.bools().values().begin(), proto.bools().values().end()));
    case AttrKind::kIdent:
      RETURN_IF_ERROR(CheckIdentAllowed(id, proto.ident(), value_field));
      return make(std::string(proto.ident()));
    case AttrKind::kIdentList:
      return make(
          std::vector<std::string>(proto.idents().values().begin(), proto.idents().values().end()));
    case AttrKind::kString:
      return make(std::string(proto.str()));
    case AttrKind::kSlice: {
      std::vector<SliceDim> dims;
      for (const SliceProto::Dim& p : proto.slice().dims()) {
        dims.push_back(SliceDim{p.start(), p.limit(), p.stride()});
      }
      return make(std::move(dims));
    }
    case AttrKind::kWindow:
      return make(WindowFromProto(proto.window()));
    case AttrKind::kDimLabels: {
      absl::StatusOr<ConvDimLabels> labels = ParseConvDimLabels(proto.dim_labels());
      if (!labels.ok()) return Invalid(value_field, labels.status().message());
      return make(*std::move(labels));
    }
    case AttrKind::kPadding: {
      std::vector<PaddingDim> dims;
      for (const PaddingProto::Dim& p : proto.padding().dims()) {
        dims.push_back(PaddingDim{p.low(), p.high(), p.interior()});
      }
      return make(std::move(dims));
    }
    case AttrKind::kComputation: {
      ASSIGN_OR_RETURN(HloComputation * c,
                       FindComputation(proto.computation(), computations, value_field));
      return make(c);
    }
    case AttrKind::kComputationList: {
      std::vector<HloComputation*> list;
      for (int i = 0; i < proto.computations().ids_size(); ++i) {
        ASSIGN_OR_RETURN(HloComputation * c,
                         FindComputation(proto.computations().ids(i), computations,
                                         absl::StrCat(value_field, ".ids[", i, "]")));
        list.push_back(c);
      }
      return make(std::move(list));
    }
    case AttrKind::kReplicaGroups: {
      ASSIGN_OR_RETURN(ReplicaGroups groups,
                       ReplicaGroupsFromProto(proto.replica_groups(), value_field));
      return make(std::move(groups));
    }
    case AttrKind::kIntListList: {
      std::vector<std::vector<int64_t>> lists;
      for (const IntListProto& l : proto.int_lists().lists()) lists.push_back(IntsFromProto(l));
      return make(std::move(lists));
    }
    case AttrKind::kShape: {
      ASSIGN_OR_RETURN(Shape shape, ShapeFromProto(proto.shape(), value_field));
      return make(std::move(shape));
    }
    case AttrKind::kShapeList: {
      std::vector<Shape> shapes;
      for (int i = 0; i < proto.shapes().shapes_size(); ++i) {
        ASSIGN_OR_RETURN(Shape shape,
                         ShapeFromProto(proto.shapes().shapes(i),
                                        absl::StrCat(value_field, ".shapes[", i, "]")));
        shapes.push_back(std::move(shape));
      }
      return make(std::move(shapes));
    }
    case AttrKind::kRaw:
      return make(std::string(proto.raw()));
  }
  return Invalid(field, "internal error: unhandled attribute kind");
}

}  // namespace xla
