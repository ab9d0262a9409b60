#include "xla/hlo/transforms/cumulative_scan_rewriter.h"

#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

struct Cumulative {
  int64_t dim = 0;
  bool reverse = false;  // pad on the high side: out[i] reduces x[i..n)
};

const Window* WindowOf(const HloInstruction& instr) {
  const AttrValue* v = instr.FindAttr(AttrId::kWindow);
  return v == nullptr ? nullptr : std::get_if<Window>(v);
}

// True when `f`'s body is scalar element-wise code over its two parameters
// (what LiftReducer can apply to whole arrays).
bool IsLiftableReducer(const HloComputation& f, PrimitiveType type) {
  if (f.num_parameters() != 2) return false;
  for (const HloInstruction* p : f.parameter_instructions()) {
    if (!p->shape().IsArray() || p->shape().rank() != 0 || p->shape().element_type() != type) {
      return false;
    }
  }
  for (const auto& instr : f.instructions()) {
    if (!instr->shape().IsArray() || instr->shape().rank() != 0) return false;
    if (!instr->control_predecessors().empty()) return false;
    const HloOpcode op = instr->opcode();
    if (op == HloOpcode::kParameter || op == HloOpcode::kConstant) continue;
    if (!IsElementwise(op) && op != HloOpcode::kConvert && op != HloOpcode::kSelect &&
        op != HloOpcode::kClamp) {
      return false;
    }
  }
  return f.root_instruction()->shape().element_type() == type;
}

std::optional<Cumulative> MatchCumulative(const HloInstruction& rw, int64_t max_direct_length) {
  if (rw.opcode() != HloOpcode::kReduceWindow || rw.operand_count() != 2) return std::nullopt;
  const Shape& x = rw.operand(0)->shape();
  const Shape& init = rw.operand(1)->shape();
  if (!rw.shape().IsArray() || !x.IsArray() || !init.IsArray() || init.rank() != 0 ||
      rw.shape().dimensions() != x.dimensions() || x.rank() == 0) {
    return std::nullopt;
  }
  const Window* w = WindowOf(rw);
  if (w == nullptr || static_cast<int64_t>(w->dims.size()) != x.rank()) return std::nullopt;
  std::optional<Cumulative> found;
  for (int64_t d = 0; d < x.rank(); ++d) {
    const WindowDim& wd = w->dims[d];
    if (wd.stride != 1 || wd.lhs_dilate != 1 || wd.rhs_dilate != 1 || wd.reversal) {
      return std::nullopt;
    }
    if (wd.size == 1 && wd.pad_low == 0 && wd.pad_high == 0) continue;
    const int64_t n = x.dimensions(d);
    if (found.has_value() || wd.size != n || n <= max_direct_length) return std::nullopt;
    if (wd.pad_low == n - 1 && wd.pad_high == 0) {
      found = Cumulative{d, false};
    } else if (wd.pad_low == 0 && wd.pad_high == n - 1) {
      found = Cumulative{d, true};
    } else {
      return std::nullopt;
    }
  }
  if (!found.has_value()) return std::nullopt;
  const HloComputation* f = rw.to_apply();
  if (f == nullptr || !IsLiftableReducer(*f, x.element_type())) return std::nullopt;
  return found;
}

class Builder {
 public:
  Builder(HloComputation* c, NameUniquer* names, std::string base)
      : c_(c), names_(names), base_(std::move(base)) {}

  HloInstruction* Add(HloOpcode op, Shape shape, std::vector<HloInstruction*> operands,
                      const std::string& suffix) {
    return c_->AddInstruction(HloInstruction::Create(op, std::move(shape), std::move(operands),
                                                     names_->Unique(base_ + "." + suffix)));
  }

  HloInstruction* Reshape(HloInstruction* x, const std::vector<int64_t>& dims,
                          const std::string& suffix) {
    return Add(HloOpcode::kReshape, Shape::Array(x->shape().element_type(), dims), {x}, suffix);
  }

  // x[.., [start, limit), ..] along `dim`.
  HloInstruction* Slice(HloInstruction* x, int64_t dim, int64_t start, int64_t limit,
                        const std::string& suffix) {
    std::vector<SliceDim> s;
    std::vector<int64_t> dims = x->shape().dimensions();
    for (int64_t d : dims) s.push_back({0, d, 1});
    s[dim] = {start, limit, 1};
    dims[dim] = limit - start;
    HloInstruction* r =
        Add(HloOpcode::kSlice, Shape::Array(x->shape().element_type(), dims), {x}, suffix);
    r->SetAttr(AttrId::kSlice, s);
    return r;
  }

  HloInstruction* Pad(HloInstruction* x, HloInstruction* init, int64_t dim, int64_t low,
                      int64_t high, const std::string& suffix) {
    std::vector<PaddingDim> p(x->shape().rank());
    p[dim] = {low, high, 0};
    std::vector<int64_t> dims = x->shape().dimensions();
    dims[dim] += low + high;
    HloInstruction* r =
        Add(HloOpcode::kPad, Shape::Array(x->shape().element_type(), dims), {x, init}, suffix);
    r->SetAttr(AttrId::kPadding, p);
    return r;
  }

  // The cumulative reduce-window of `x` along `dim` with reducer `f`.
  HloInstruction* Scan(HloInstruction* x, HloInstruction* init, int64_t dim, bool reverse,
                       HloComputation* f, const std::string& suffix) {
    Window w;
    w.dims.resize(x->shape().rank());
    const int64_t n = x->shape().dimensions(dim);
    w.dims[dim].size = n;
    (reverse ? w.dims[dim].pad_high : w.dims[dim].pad_low) = n - 1;
    HloInstruction* r = Add(HloOpcode::kReduceWindow,
                            Shape::Array(x->shape().element_type(), x->shape().dimensions()),
                            {x, init}, suffix);
    r->SetAttr(AttrId::kWindow, std::move(w));
    r->SetAttr(AttrId::kToApply, f);
    return r;
  }

  // f(a, b) element-wise over arrays of one shape: f's scalar body rebuilt
  // over `a`'s dimensions (constants broadcast).
  HloInstruction* Lift(const HloComputation& f, HloInstruction* a, HloInstruction* b) {
    const std::vector<int64_t>& dims = a->shape().dimensions();
    absl::flat_hash_map<const HloInstruction*, HloInstruction*> lifted;
    for (const HloInstruction* instr : f.MakePostOrder()) {
      const Shape shape = Shape::Array(instr->shape().element_type(), dims);
      if (instr->opcode() == HloOpcode::kParameter) {
        lifted[instr] = instr->parameter_number() == 0 ? a : b;
        continue;
      }
      if (instr->opcode() == HloOpcode::kConstant) {
        HloInstruction* scalar = c_->AddInstruction(
            instr->CloneWithNewOperands(instr->shape(), {}, names_->Unique(instr->name())));
        lifted[instr] = AddBroadcastOfScalar(c_, names_, scalar, shape);
        continue;
      }
      std::vector<HloInstruction*> operands;
      for (const HloInstruction* op : instr->operands()) operands.push_back(lifted.at(op));
      lifted[instr] = c_->AddInstruction(instr->CloneWithNewOperands(
          shape, operands, names_->Unique(base_ + "." + instr->name())));
    }
    return lifted.at(f.root_instruction());
  }

 private:
  HloComputation* c_;
  NameUniquer* names_;
  std::string base_;
};

// Rewrites one cumulative reduce-window; returns the outer scan it created
// (to be rewritten in turn when it is long enough).
absl::StatusOr<HloInstruction*> Rewrite(HloInstruction* rw, const Cumulative& cum, int64_t block,
                                        NameUniquer* names) {
  HloComputation* c = rw->parent();
  HloComputation* f = rw->to_apply();
  HloInstruction* x = rw->operand(0);
  HloInstruction* init = rw->operand(1);
  const int64_t d = cum.dim;
  const std::vector<int64_t> dims = x->shape().dimensions();
  const int64_t n = dims[d];
  const int64_t b = block;
  const int64_t m = (n + b - 1) / b;
  Builder build(c, names, rw->name());

  HloInstruction* xp = m * b == n ? x : build.Pad(x, init, d, 0, m * b - n, "scan_pad");
  std::vector<int64_t> split = dims;
  split[d] = b;
  split.insert(split.begin() + d, m);  // [.., m, b, ..]
  HloInstruction* xr = build.Reshape(xp, split, "scan_blocks");
  HloInstruction* inner = build.Scan(xr, init, d + 1, cum.reverse, f, "scan_inner");
  HloInstruction* edge = cum.reverse ? build.Slice(inner, d + 1, 0, 1, "scan_block_total")
                                     : build.Slice(inner, d + 1, b - 1, b, "scan_block_total");
  std::vector<int64_t> outer_dims = dims;
  outer_dims[d] = m;
  HloInstruction* totals = build.Reshape(edge, outer_dims, "scan_totals");
  HloInstruction* outer = build.Scan(totals, init, d, cum.reverse, f, "scan_outer");
  // Exclusive: block j combines the blocks before it (after it, reversed).
  HloInstruction* excl =
      cum.reverse
          ? build.Slice(build.Pad(outer, init, d, 0, 1, "scan_shift"), d, 1, m + 1, "scan_excl")
          : build.Slice(build.Pad(outer, init, d, 1, 0, "scan_shift"), d, 0, m, "scan_excl");
  std::vector<int64_t> bcast_dims;
  for (int64_t i = 0; i < static_cast<int64_t>(split.size()); ++i) {
    if (i != d + 1) bcast_dims.push_back(i);
  }
  HloInstruction* bcast = build.Add(HloOpcode::kBroadcast,
                                    Shape::Array(x->shape().element_type(), split), {excl},
                                    "scan_carry");
  bcast->SetAttr(AttrId::kDimensions, bcast_dims);
  HloInstruction* combined = cum.reverse ? build.Lift(*f, inner, bcast) : build.Lift(*f, bcast, inner);
  std::vector<int64_t> padded = dims;
  padded[d] = m * b;
  HloInstruction* out = build.Reshape(combined, padded, "scan_merged");
  if (m * b != n) out = build.Slice(out, d, 0, n, "scan_result");
  RETURN_IF_ERROR(ReplaceInstruction(rw, out));
  return outer;
}

}  // namespace

absl::StatusOr<bool> CumulativeScanRewriter::Run(HloModule* module) {
  if (options_.block < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("cumulative-scan-rewriter: block must be at least 2, got ", options_.block));
  }
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    const absl::flat_hash_set<const HloInstruction*> control_preds =
        ControlPredecessorSet(*computation);
    std::deque<HloInstruction*> work;
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kReduceWindow && !control_preds.contains(instr.get()) &&
          instr->control_predecessors().empty()) {
        work.push_back(instr.get());
      }
    }
    if (work.empty()) continue;
    NameUniquer names(*computation);
    while (!work.empty()) {
      HloInstruction* rw = work.front();
      work.pop_front();
      const std::optional<Cumulative> cum = MatchCumulative(*rw, options_.max_direct_length);
      if (!cum.has_value()) continue;
      ASSIGN_OR_RETURN(HloInstruction * outer, Rewrite(rw, *cum, options_.block, &names));
      work.push_back(outer);
      changed = true;
    }
  }
  return changed;
}

}  // namespace xla
