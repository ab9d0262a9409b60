#include "xla/service/layout/layout_assignment.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"

namespace xla {
namespace {

// A layout the pass leaves alone: present, with a suffix or a malformed
// minor_to_major.
bool IsUnhandled(const Shape& array) {
  return array.has_layout() && !HasPlainLayout(array);
}

// Every array leaf row-major, except the unhandled ones.
bool AllRowMajor(const Shape& shape) {
  if (shape.IsTuple() || shape.IsBuffer()) {
    for (const Shape& e : shape.tuple_shapes()) {
      if (!AllRowMajor(e)) return false;
    }
    return true;
  }
  return !shape.IsArray() || IsUnhandled(shape) || HasRowMajorLayout(shape);
}

// Sets every handled array leaf to row-major. Returns true on a change.
bool Normalize(Shape* shape) {
  if (shape->IsTuple() || shape->IsBuffer()) {
    bool changed = false;
    for (Shape& e : *shape->mutable_tuple_shapes()) changed |= Normalize(&e);
    return changed;
  }
  if (!shape->IsArray() || IsUnhandled(*shape) || HasRowMajorLayout(*shape)) return false;
  shape->SetDefaultLayout();
  return true;
}

void CollectUnhandled(const Shape& shape, const std::string& where, std::vector<std::string>* out) {
  if (shape.IsTuple() || shape.IsBuffer()) {
    for (const Shape& e : shape.tuple_shapes()) CollectUnhandled(e, where, out);
    return;
  }
  if (shape.IsArray() && IsUnhandled(shape)) out->push_back(absl::StrCat(where, ": ", shape.ToString()));
}

// The boundary shape: `own`'s dimensions with, per array leaf, the layout
// of `requested` (entry_computation_layout, may be null), else `own`'s,
// else row-major.
Shape Desired(const Shape& own, const Shape* requested) {
  Shape out = own;
  if (own.IsTuple()) {
    const bool matching = requested != nullptr && requested->IsTuple() &&
                          requested->tuple_shapes_size() == own.tuple_shapes_size();
    for (int64_t i = 0; i < own.tuple_shapes_size(); ++i) {
      (*out.mutable_tuple_shapes())[i] =
          Desired(own.tuple_shapes(i), matching ? &requested->tuple_shapes(i) : nullptr);
    }
    return out;
  }
  if (!own.IsArray()) return out;
  if (requested != nullptr && requested->IsArray() && requested->has_layout() &&
      requested->rank() == own.rank()) {
    out.set_layout(requested->layout());
  } else if (!own.has_layout()) {
    out.SetDefaultLayout();
  }
  return out;
}

// The real (re, im) view of complex array shape `s` (f32/f64 with a trailing
// dimension of 2) with the same bytes: `s`'s layout with the pair dimension
// most minor.
Shape PairView(const Shape& s) {
  std::vector<int64_t> dims = s.dimensions();
  dims.push_back(2);
  Shape pair = Shape::Array(ComplexComponentType(s.element_type()), dims);
  Layout layout;
  layout.minor_to_major.push_back(s.rank());
  if (s.has_layout()) {
    for (int64_t d : s.layout().minor_to_major) layout.minor_to_major.push_back(d);
  }
  pair.set_layout(std::move(layout));
  return pair;
}

// A bitcast between a complex array and its PairView, which moves no byte
// whatever the layout.
bool IsComplexPairView(const HloInstruction& instr) {
  if (instr.opcode() != HloOpcode::kBitcast) return false;
  const Shape& from = instr.operand(0)->shape();
  const Shape& to = instr.shape();
  auto is_view = [](const Shape& complex, const Shape& pair) {
    return complex.IsArray() && IsComplex(complex.element_type()) && complex.has_layout() &&
           pair.has_layout() && PairView(complex).ToString() == pair.ToString();
  };
  return is_view(from, to) || is_view(to, from);
}

bool SameLayouts(const Shape& a, const Shape& b) {
  if (a.IsTuple() != b.IsTuple()) return false;
  if (a.IsTuple()) {
    if (a.tuple_shapes_size() != b.tuple_shapes_size()) return false;
    for (int64_t i = 0; i < a.tuple_shapes_size(); ++i) {
      if (!SameLayouts(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  if (!a.IsArray()) return true;
  if (a.has_layout() != b.has_layout()) return false;
  return !a.has_layout() || a.layout() == b.layout();
}

struct Boundary {
  std::vector<Shape> params;
  Shape result;
};

absl::StatusOr<Boundary> DesiredBoundary(const HloModule& module) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr || entry->root_instruction() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("layout-assignment: module '", module.name(), "' has no entry computation"));
  }
  const std::optional<ProgramShape>& ecl = module.config().entry_computation_layout;
  if (ecl.has_value() && static_cast<int64_t>(ecl->parameters.size()) != entry->num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "layout-assignment: entry_computation_layout of module '", module.name(), "' has ",
        ecl->parameters.size(), " parameters but the entry has ", entry->num_parameters(),
        "; run the verifier"));
  }
  Boundary b;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const HloInstruction* p = entry->parameter_instruction(i);
    if (p == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("layout-assignment: entry parameter ", i, " is missing; run the verifier"));
    }
    b.params.push_back(Desired(p->shape(), ecl.has_value() ? &ecl->parameters[i] : nullptr));
  }
  b.result = Desired(entry->root_instruction()->shape(), ecl.has_value() ? &ecl->result : nullptr);
  return b;
}

absl::Status Violation(const HloComputation& c, const HloInstruction& i, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("layout-assignment: instruction '", i.name(),
                                                 "' in computation '", c.name(), "' (",
                                                 i.shape().ToString(), "): ", why));
}

// The root and, through tuples and complex pair views, the instructions it
// is made of.
absl::flat_hash_set<const HloInstruction*> RootSide(const HloComputation& entry) {
  absl::flat_hash_set<const HloInstruction*> side;
  std::vector<const HloInstruction*> stack = {entry.root_instruction()};
  while (!stack.empty()) {
    const HloInstruction* i = stack.back();
    stack.pop_back();
    if (!side.insert(i).second) continue;
    if (i->opcode() != HloOpcode::kTuple && !IsComplexPairView(*i)) continue;
    for (const HloInstruction* o : i->operands()) stack.push_back(o);
  }
  return side;
}

absl::Status CheckAgainst(const HloModule& module, const Boundary& want) {
  const HloComputation* entry = module.entry_computation();
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const HloInstruction* p = entry->parameter_instruction(i);
    if (!SameLayouts(p->shape(), want.params[i])) {
      return Violation(*entry, *p, absl::StrCat("entry parameter should be ", want.params[i].ToString()));
    }
  }
  if (!SameLayouts(entry->root_instruction()->shape(), want.result)) {
    return Violation(*entry, *entry->root_instruction(),
                     absl::StrCat("entry result should be ", want.result.ToString()));
  }
  const absl::flat_hash_set<const HloInstruction*> root_side = RootSide(*entry);
  for (const auto& comp : module.computations()) {
    const bool is_entry = comp.get() == entry;
    // Entry instructions allowed a non-row-major shape: parameters, views
    // of them (get-tuple-element, bitcast), and the root side's relayout
    // copies, bitcasts and tuples.
    absl::flat_hash_set<const HloInstruction*> boundary;
    for (const HloInstruction* instr : comp->MakePostOrder()) {
      const HloOpcode op = instr->opcode();
      const bool in_root_side = is_entry && root_side.contains(instr);
      const bool view = op == HloOpcode::kGetTupleElement || IsComplexPairView(*instr);
      if (is_entry && (op == HloOpcode::kParameter || (view && boundary.contains(instr->operand(0))) ||
                       (in_root_side && (op == HloOpcode::kCopy || op == HloOpcode::kTuple ||
                                         IsComplexPairView(*instr))))) {
        boundary.insert(instr);
      }
      if (!AllRowMajor(instr->shape()) && !boundary.contains(instr)) {
        return Violation(*comp, *instr, "should be row-major");
      }
      const bool may_read_any =
          op == HloOpcode::kCopy || (is_entry && op == HloOpcode::kGetTupleElement) ||
          (in_root_side && (op == HloOpcode::kTuple || IsComplexPairView(*instr))) ||
          (is_entry && IsComplexPairView(*instr) && boundary.contains(instr));
      if (may_read_any) continue;
      for (const HloInstruction* o : instr->operands()) {
        if (!AllRowMajor(o->shape())) {
          return Violation(*comp, *instr, absl::StrCat("reads '", o->name(),
                                                       "' whose layout is not row-major"));
        }
      }
    }
  }
  return absl::OkStatus();
}

HloInstruction* AddBitcast(HloComputation* comp, NameUniquer* names, HloInstruction* value,
                           const Shape& shape, const char* what) {
  return comp->AddInstruction(
      HloInstruction::Create(HloOpcode::kBitcast, shape, {value}, names->Unique(value->name() + what)));
}

// `value`, a complex array, in the layout of `want` (same dimensions): the
// kernels have no complex elements, so the copy moves (re, im) pairs of
// the real views, between bitcasts.
HloInstruction* RelayoutComplex(HloComputation* comp, NameUniquer* names, HloInstruction* value,
                                const Shape& want) {
  HloInstruction* pair = AddBitcast(comp, names, value, PairView(value->shape()), ".re_im");
  HloInstruction* moved = comp->AddInstruction(HloInstruction::Create(
      HloOpcode::kCopy, PairView(want), {pair}, names->Unique(value->name() + ".relayout")));
  return AddBitcast(comp, names, moved, want, ".complex");
}

// A row-major value of `value` (entry parameter with a non-row-major layout):
// copies per array, through get-tuple-element / tuple for tuples.
HloInstruction* ToRowMajor(HloComputation* comp, NameUniquer* names, HloInstruction* value) {
  const Shape& s = value->shape();
  if (AllRowMajor(s)) return value;
  if (s.IsArray() && IsComplex(s.element_type())) {
    Shape rm = s;
    rm.SetDefaultLayout();
    return RelayoutComplex(comp, names, value, rm);
  }
  if (s.IsArray()) {
    Shape rm = s;
    rm.SetDefaultLayout();
    return comp->AddInstruction(
        HloInstruction::Create(HloOpcode::kCopy, rm, {value}, names->Unique(value->name() + ".relayout")));
  }
  std::vector<HloInstruction*> elements;
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < s.tuple_shapes_size(); ++i) {
    HloInstruction* gte = comp->AddInstruction(HloInstruction::Create(
        HloOpcode::kGetTupleElement, s.tuple_shapes(i), {value}, names->Unique("get-tuple-element")));
    gte->SetAttr(AttrId::kIndex, i);
    elements.push_back(ToRowMajor(comp, names, gte));
    shapes.push_back(elements.back()->shape());
  }
  return comp->AddInstruction(HloInstruction::Create(HloOpcode::kTuple, Shape::Tuple(std::move(shapes)),
                                                     elements, names->Unique("tuple")));
}

// `value` (row-major) in the layout of `want` (same dimensions).
HloInstruction* ToLayout(HloComputation* comp, NameUniquer* names, HloInstruction* value,
                         const Shape& want) {
  if (SameLayouts(value->shape(), want)) return value;
  if (want.IsArray() && IsComplex(want.element_type())) {
    Shape s = value->shape();
    s.set_layout(want.layout());
    return RelayoutComplex(comp, names, value, s);
  }
  if (want.IsArray()) {
    Shape s = value->shape();
    s.set_layout(want.layout());
    return comp->AddInstruction(
        HloInstruction::Create(HloOpcode::kCopy, s, {value}, names->Unique("copy.result_layout")));
  }
  std::vector<HloInstruction*> elements;
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < want.tuple_shapes_size(); ++i) {
    HloInstruction* gte = comp->AddInstruction(HloInstruction::Create(
        HloOpcode::kGetTupleElement, value->shape().tuple_shapes(i), {value},
        names->Unique("get-tuple-element")));
    gte->SetAttr(AttrId::kIndex, i);
    elements.push_back(ToLayout(comp, names, gte, want.tuple_shapes(i)));
    shapes.push_back(elements.back()->shape());
  }
  return comp->AddInstruction(HloInstruction::Create(HloOpcode::kTuple, Shape::Tuple(std::move(shapes)),
                                                     elements, names->Unique("tuple")));
}

}  // namespace

bool HasRowMajorLayout(const Shape& shape) {
  if (!shape.IsArray() || !shape.has_layout() || !shape.layout().suffix.empty()) return false;
  const std::vector<int64_t>& m2m = shape.layout().minor_to_major;
  if (static_cast<int64_t>(m2m.size()) != shape.rank()) return false;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (m2m[i] != shape.rank() - 1 - i) return false;
  }
  return true;
}

bool HasPlainLayout(const Shape& shape) {
  if (!shape.IsArray() || !shape.has_layout() || !shape.layout().suffix.empty()) return false;
  const std::vector<int64_t>& m2m = shape.layout().minor_to_major;
  if (static_cast<int64_t>(m2m.size()) != shape.rank()) return false;
  std::vector<bool> seen(shape.rank(), false);
  for (int64_t d : m2m) {
    if (d < 0 || d >= shape.rank() || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

absl::Status CheckLayoutsAssigned(const HloModule& module) {
  absl::StatusOr<Boundary> want = DesiredBoundary(module);
  if (!want.ok()) return want.status();
  return CheckAgainst(module, *want);
}

absl::StatusOr<bool> LayoutAssignment::Run(HloModule* module) {
  unhandled_.clear();
  for (const auto& comp : module->computations()) {
    for (const auto& instr : comp->instructions()) {
      CollectUnhandled(instr->shape(), absl::StrCat(comp->name(), "/", instr->name()), &unhandled_);
    }
  }
  absl::StatusOr<Boundary> want = DesiredBoundary(*module);
  if (!want.ok()) return want.status();
  if (CheckAgainst(*module, *want).ok()) return false;
  for (const auto& comp : module->computations()) {
    for (const auto& instr : comp->instructions()) Normalize(instr->mutable_shape());
  }
  HloComputation* entry = module->entry_computation();
  NameUniquer names(*entry);
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    HloInstruction* param = entry->parameter_instruction(i);
    *param->mutable_shape() = want->params[i];
    if (AllRowMajor(want->params[i])) continue;
    const std::vector<HloInstruction*> users = param->users();
    HloInstruction* row_major = ToRowMajor(entry, &names, param);
    for (HloInstruction* user : users) user->ReplaceOperand(param, row_major);
    if (entry->root_instruction() == param) entry->set_root_instruction(row_major);
  }
  HloInstruction* root = entry->root_instruction();
  entry->set_root_instruction(ToLayout(entry, &names, root, want->result));
  return true;
}

}  // namespace xla
