#include "xla/service/canonicalize/fp8_gemm_scale_folder.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/hlo/proto/gemm_custom_call.h"
#include "xla/service/canonicalize/gemm_config.h"
#include "xla/service/canonicalize/rewrite_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

bool IsFp8(PrimitiveType t) { return t == PrimitiveType::F8E4M3FN || t == PrimitiveType::F8E5M2; }

// The result (and dequantized operand) types the fold handles; cuBLASLt's
// FP8 GEMM writes f16, bf16 or f32.
bool IsFp8GemmResultType(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::BF16 || t == PrimitiveType::F32;
}

// Ops that only move elements, so a per-tensor scale or a convert commutes
// with them.
bool MovesElementsOnly(HloOpcode op) {
  return op == HloOpcode::kReshape || op == HloOpcode::kBitcast || op == HloOpcode::kTranspose ||
         op == HloOpcode::kCopy;
}

// The rank-0 value behind a per-tensor scale operand (`op` itself, or the
// operand of broadcast(scalar)), when its type converts exactly to f32;
// null otherwise.
HloInstruction* PerTensorScale(HloInstruction* op) {
  HloInstruction* s = op;
  if (op->opcode() == HloOpcode::kBroadcast && op->operand_count() == 1) s = op->operand(0);
  if (!s->shape().IsArray() || s->shape().rank() != 0) return nullptr;
  const PrimitiveType t = s->shape().element_type();
  return IsFloat(t) && ConvertsExactly(t, PrimitiveType::F32) ? s : nullptr;
}

// `value * scale`, `scale * value` or `value / scale` with a per-tensor scale.
struct Scaled {
  HloInstruction* value = nullptr;
  HloInstruction* scale = nullptr;  // rank 0
  bool reciprocal = false;          // a division
};

std::optional<Scaled> MatchScaled(HloInstruction* op) {
  const bool divide = op->opcode() == HloOpcode::kDivide;
  if ((op->opcode() != HloOpcode::kMultiply && !divide) || HasControlEdges(*op)) return std::nullopt;
  for (int64_t side : {0, 1}) {
    if (divide && side == 1) break;  // only value / scale
    HloInstruction* scale = PerTensorScale(op->operand(1 - side));
    if (scale != nullptr && op->operand(side)->shape().rank() > 0) {
      return Scaled{op->operand(side), scale, divide};
    }
  }
  return std::nullopt;
}

// Builds instructions into one computation with unique names.
class Builder {
 public:
  Builder(HloComputation* comp, NameUniquer* names) : comp_(comp), names_(names) {}

  HloInstruction* Add(std::unique_ptr<HloInstruction> instr) {
    instr->set_name(names_->Unique(instr->name()));
    return comp_->AddInstruction(std::move(instr));
  }
  HloInstruction* Op(HloOpcode op, Shape shape, std::vector<HloInstruction*> operands,
                     const std::string& base) {
    return canonicalize::AddOp(comp_, names_, op, std::move(shape), std::move(operands), base);
  }
  HloInstruction* Convert(HloInstruction* x, PrimitiveType t) {
    if (x->shape().element_type() == t) return x;
    Shape shape = x->shape();
    shape.set_element_type(t);
    return Op(HloOpcode::kConvert, std::move(shape), {x}, "convert");
  }
  // The f32 factor of `s`: f32(scale), or 1 / f32(scale) for a division.
  HloInstruction* F32Factor(const Scaled& s) {
    HloInstruction* f = Convert(s.scale, PrimitiveType::F32);
    if (!s.reciprocal) return f;
    HloInstruction* one = Add(MakeScalarConstant(PrimitiveType::F32, 1.0, "one"));
    return Op(HloOpcode::kDivide, f->shape(), {one, f}, "reciprocal_scale");
  }
  // x * broadcast(f), f an f32 scalar and x f32.
  HloInstruction* MultiplyByScalar(HloInstruction* x, HloInstruction* f) {
    return Op(HloOpcode::kMultiply, x->shape(),
              {x, AddBroadcastOfScalar(comp_, names_, f, x->shape())}, "scaled");
  }

 private:
  HloComputation* comp_;
  NameUniquer* names_;
};

// ---- Stage 1: operand scales out of the dot ----

// One dot operand as convert(fp8 values), optionally scaled.
struct Dequantized {
  HloInstruction* fp8 = nullptr;
  std::optional<Scaled> scale;
};

std::optional<Dequantized> MatchDequantized(HloInstruction* op) {
  if (!op->shape().IsArray() || !IsFp8GemmResultType(op->shape().element_type())) {
    return std::nullopt;
  }
  Dequantized d;
  HloInstruction* values = op;
  if (std::optional<Scaled> s = MatchScaled(op)) {
    d.scale = s;
    values = s->value;
  }
  if (values->opcode() != HloOpcode::kConvert || HasControlEdges(*values) ||
      !IsFp8(values->operand(0)->shape().element_type())) {
    return std::nullopt;
  }
  d.fp8 = values->operand(0);
  return d;
}

absl::StatusOr<HloInstruction*> HoistOperandScales(HloInstruction* dot, HloComputation* comp,
                                                   NameUniquer* names) {
  if (dot->operand_count() != 2 || !dot->shape().IsArray() ||
      !IsFp8GemmResultType(dot->shape().element_type())) {
    return nullptr;
  }
  const std::optional<Dequantized> lhs = MatchDequantized(dot->operand(0));
  const std::optional<Dequantized> rhs = MatchDequantized(dot->operand(1));
  if (!lhs || !rhs) return nullptr;
  Shape f32 = dot->shape();
  f32.set_element_type(PrimitiveType::F32);
  std::unique_ptr<HloInstruction> fp8_dot =
      dot->CloneWithNewOperands(f32, {lhs->fp8, rhs->fp8}, dot->name());
  if (!IsCublasLtFp8Dot(*fp8_dot)) {
    fp8_dot->DetachFromOperands();
    return nullptr;
  }
  Builder b(comp, names);
  HloInstruction* x = b.Add(std::move(fp8_dot));
  for (const Dequantized* side : {&*lhs, &*rhs}) {
    if (side->scale) x = b.MultiplyByScalar(x, b.F32Factor(*side->scale));
  }
  return b.Convert(x, dot->shape().element_type());
}

// ---- Stage 2: scales after the dot into the GEMM call ----

// What follows an fp8 dot: element moves, then scales, then a convert.
struct Epilogue {
  std::vector<HloInstruction*> moves;   // bottom-up
  std::vector<Scaled> scales;           // at most two
  HloInstruction* top = nullptr;        // the last instruction folded
  PrimitiveType result = PrimitiveType::TUPLE;
};

// The single user of `x`, or null (several users, none, or `x` is its
// computation's root).
HloInstruction* OnlyUser(HloInstruction* x) {
  if (x->users().size() != 1 || x->parent()->root_instruction() == x) return nullptr;
  HloInstruction* user = x->users()[0];
  return HasControlEdges(*user) ? nullptr : user;
}

std::optional<Epilogue> MatchEpilogue(HloInstruction* dot) {
  Epilogue e;
  HloInstruction* x = dot;
  HloInstruction* user = OnlyUser(x);
  while (user != nullptr && MovesElementsOnly(user->opcode()) &&
         user->shape().element_type() == x->shape().element_type()) {
    e.moves.push_back(user);
    x = user;
    user = OnlyUser(x);
  }
  while (user != nullptr && e.scales.size() < 2) {
    std::optional<Scaled> s = MatchScaled(user);
    if (!s || s->value != x) break;
    e.scales.push_back(*s);
    e.top = x = user;
    user = OnlyUser(x);
  }
  if (e.scales.empty()) return std::nullopt;
  e.result = x->shape().element_type();
  if (e.result == PrimitiveType::F32 && user != nullptr && user->opcode() == HloOpcode::kConvert &&
      IsFp8GemmResultType(user->shape().element_type())) {
    e.top = user;
    e.result = user->shape().element_type();
  }
  return e;
}

// The backend_config of an FP8 GEMM call with `dot`'s dimension numbers:
// a GemmBackendConfig in JSON, alpha 1, beta 0, no epilogue.
std::string Fp8GemmConfig(const HloInstruction& dot) {
  auto list = [&](AttrId id) {
    std::vector<std::string> quoted;
    for (int64_t d : dot.GetIntList(id)) quoted.push_back(absl::StrCat("\"", d, "\""));
    return absl::StrCat("[", absl::StrJoin(quoted, ","), "]");
  };
  return absl::StrCat(
      "{\"alpha_real\":1,\"alpha_imag\":0,\"beta\":0,\"dot_dimension_numbers\":{"
      "\"lhs_contracting_dimensions\":", list(AttrId::kLhsContractingDims),
      ",\"rhs_contracting_dimensions\":", list(AttrId::kRhsContractingDims),
      ",\"lhs_batch_dimensions\":", list(AttrId::kLhsBatchDims),
      ",\"rhs_batch_dimensions\":", list(AttrId::kRhsBatchDims), "},\"epilogue\":\"DEFAULT\"}");
}

bool IsFoldableDot(const HloInstruction& dot) {
  if (!IsCublasLtFp8Dot(dot) || HasControlEdges(dot)) return false;
  absl::StatusOr<GemmConfig> config = GetGemmConfig(dot, /*require_row_major=*/false);
  return config.ok() && IsCublasLtFp8Gemm(*config);
}

absl::Status FoldIntoGemm(HloInstruction* dot, const Epilogue& e, NameUniquer* names) {
  HloComputation* comp = dot->parent();
  Builder b(comp, names);
  HloInstruction* scales[2];
  for (size_t i = 0; i < 2; ++i) {
    scales[i] = i < e.scales.size() ? b.F32Factor(e.scales[i])
                                    : b.Add(MakeScalarConstant(PrimitiveType::F32, 1.0, "one"));
  }
  Shape shape = dot->shape();
  shape.set_element_type(e.result);
  HloInstruction* x = b.Op(HloOpcode::kCustomCall, shape,
                           {dot->operand(0), dot->operand(1), scales[0], scales[1]}, "fp8_gemm");
  x->SetAttr(AttrId::kCustomCallTarget, std::string(gemm::kFp8GemmTarget));
  x->SetAttr(AttrId::kBackendConfig, Fp8GemmConfig(*dot));
  for (HloInstruction* move : e.moves) {
    Shape s = move->shape();
    s.set_element_type(e.result);
    x = b.Add(move->CloneWithNewOperands(s, {x}, move->name()));
  }
  // Top-down, the folded instructions lose their last user one by one.
  std::vector<HloInstruction*> dead = {dot};
  dead.insert(dead.end(), e.moves.begin(), e.moves.end());
  for (HloInstruction* i = e.moves.empty() ? dot : e.moves.back();;) {
    i = i->users()[0];
    if (i == e.top) break;  // ReplaceInstruction removes it
    dead.push_back(i);
  }
  RETURN_IF_ERROR(ReplaceInstruction(e.top, x));
  for (auto it = dead.rbegin(); it != dead.rend(); ++it) {
    if ((*it)->parent() == comp && (*it)->users().empty()) comp->RemoveInstruction(*it);
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> FoldAll(HloModule* module) {
  bool changed = false;
  for (HloComputation* comp : module->MakeComputationPostOrder()) {
    NameUniquer names(*comp);
    std::vector<HloInstruction*> dots;
    for (const auto& instr : comp->instructions()) {
      if (instr->opcode() == HloOpcode::kDot && IsFoldableDot(*instr)) dots.push_back(instr.get());
    }
    for (HloInstruction* dot : dots) {
      std::optional<Epilogue> e = MatchEpilogue(dot);
      if (!e) continue;
      RETURN_IF_ERROR(FoldIntoGemm(dot, *e, &names));
      changed = true;
    }
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> Fp8GemmScaleFolder::Run(HloModule* module) {
  if (stage_ == Stage::kFoldIntoGemm) return FoldAll(module);
  return canonicalize::RewriteEach(
      module, HloOpcode::kDot,
      [](HloInstruction* dot, HloComputation* comp, NameUniquer* names) {
        return HoistOperandScales(dot, comp, names);
      });
}

}  // namespace xla
