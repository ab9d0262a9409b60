#include "xla/hlo/transforms/einsum_expander.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/hlo/ir/einsum_spec.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

// An operand on its way through the expansion: its value and the label of
// each of its dimensions.
struct Labeled {
  HloInstruction* value;
  std::string labels;
};

class Expander {
 public:
  Expander(HloInstruction* call, EinsumSpec spec)
      : call_(call), spec_(std::move(spec)), o_(call->parent()), base_(call->name()),
        reducers_(call->parent()->parent(), call->name() + "_sum") {}

  HloInstruction* Build() {
    std::vector<Labeled> ops;
    for (int64_t i = 0; i < call_->operand_count(); ++i) {
      ops.push_back(Distinct({call_->operand(i), spec_.operands[i]}));
    }
    for (size_t i = 0; i < ops.size(); ++i) {
      std::string keep = spec_.output;
      for (size_t j = 0; j < ops.size(); ++j) {
        if (j != i) keep += ops[j].labels;
      }
      ops[i] = SumAwayAllBut(ops[i], keep);
    }
    Labeled r = ops.size() == 2 ? Dot(ops[0], ops[1]) : ops[0];
    return WriteOutput(r);
  }

 private:
  std::string N(const std::string& what) const { return base_ + "." + what; }

  // x summed over dimensions `dims`.
  HloInstruction* Sum(HloInstruction* x, std::vector<int64_t> dims) {
    const PrimitiveType t = x->shape().element_type();
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < x->shape().rank(); ++d) {
      if (std::find(dims.begin(), dims.end(), d) == dims.end()) kept.push_back(x->shape().dimensions(d));
    }
    HloInstruction* r =
        o_.Op(HloOpcode::kReduce, Shape::Array(t, kept), {x, o_.Scalar(t, 0, N("zero"))}, N("sum"));
    r->SetAttr(AttrId::kDimensions, std::move(dims));
    r->SetAttr(AttrId::kToApply, reducers_.Get(HloOpcode::kAdd, t));
    return r;
  }

  // pred over `dims`: coordinate p == coordinate q.
  HloInstruction* SameCoordinate(const std::vector<int64_t>& dims, int64_t p, int64_t q) {
    return o_.Compare(o_.Iota(dims, p, N("iota_p")), o_.Iota(dims, q, N("iota_q")), "EQ",
                      N("diagonal"));
  }

  HloInstruction* Zeros(const std::vector<int64_t>& dims, PrimitiveType t) {
    return o_.Broadcast(o_.Scalar(t, 0, N("zero_value")), dims, {}, N("zeros"));
  }

  // Step 1: the diagonal over every repeated label.
  Labeled Distinct(Labeled x) {
    for (size_t q = 0; q < x.labels.size(); ++q) {
      const size_t p = x.labels.find(x.labels[q]);
      if (p == q) continue;
      const std::vector<int64_t> dims = x.value->shape().dimensions();
      HloInstruction* kept = o_.Select(SameCoordinate(dims, p, q), x.value,
                                       Zeros(dims, x.value->shape().element_type()), N("on_diagonal"));
      x.value = Sum(kept, {static_cast<int64_t>(q)});
      x.labels.erase(q, 1);
      --q;
    }
    return x;
  }

  // Step 2: labels not in `keep` summed away.
  Labeled SumAwayAllBut(Labeled x, const std::string& keep) {
    std::vector<int64_t> dims;
    std::string rest;
    for (size_t d = 0; d < x.labels.size(); ++d) {
      if (keep.find(x.labels[d]) == std::string::npos) {
        dims.push_back(static_cast<int64_t>(d));
      } else {
        rest += x.labels[d];
      }
    }
    if (dims.empty()) return x;
    return {Sum(x.value, dims), rest};
  }

  // Step 3: one dot of two operands with distinct labels.
  Labeled Dot(const Labeled& a, const Labeled& b) {
    std::vector<int64_t> lb, rb, lc, rc;
    std::string batch, a_free, b_free;
    for (size_t d = 0; d < a.labels.size(); ++d) {
      const char c = a.labels[d];
      const size_t e = b.labels.find(c);
      if (e == std::string::npos) {
        a_free += c;
      } else if (spec_.output.find(c) != std::string::npos) {
        lb.push_back(d);
        rb.push_back(e);
        batch += c;
      } else {
        lc.push_back(d);
        rc.push_back(e);
      }
    }
    for (char c : b.labels) {
      if (a.labels.find(c) == std::string::npos) b_free += c;
    }
    const std::string labels = batch + a_free + b_free;
    std::vector<int64_t> dims;
    for (char c : labels) dims.push_back(spec_.sizes.at(c));
    HloInstruction* dot = o_.Op(HloOpcode::kDot,
                                Shape::Array(call_->shape().element_type(), dims),
                                {a.value, b.value}, N("dot"));
    dot->SetAttr(AttrId::kLhsBatchDims, lb);
    dot->SetAttr(AttrId::kLhsContractingDims, lc);
    dot->SetAttr(AttrId::kRhsBatchDims, rb);
    dot->SetAttr(AttrId::kRhsContractingDims, rc);
    return {dot, labels};
  }

  // Steps 4 and 5: the output's label order, type and diagonals.
  HloInstruction* WriteOutput(const Labeled& r) {
    std::string distinct;
    for (char c : spec_.output) {
      if (distinct.find(c) == std::string::npos) distinct += c;
    }
    std::vector<int64_t> perm;
    for (char c : distinct) perm.push_back(static_cast<int64_t>(r.labels.find(c)));
    HloInstruction* x = r.value;
    bool identity = true;
    for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int64_t>(i);
    if (!identity) x = o_.Transpose(x, perm, N("ordered"));
    const PrimitiveType t = call_->shape().element_type();
    x = o_.Convert(x, t, N("converted"));
    if (distinct.size() == spec_.output.size()) return x;
    const std::vector<int64_t> dims = call_->shape().dimensions();
    std::vector<int64_t> mapping;
    for (char c : distinct) mapping.push_back(static_cast<int64_t>(spec_.output.find(c)));
    HloInstruction* wide = o_.Broadcast(x, dims, mapping, N("widened"));
    HloInstruction* mask = nullptr;
    for (size_t q = 0; q < spec_.output.size(); ++q) {
      const size_t p = spec_.output.find(spec_.output[q]);
      if (p == q) continue;
      HloInstruction* same = SameCoordinate(dims, p, q);
      mask = mask == nullptr ? same : o_.Binary(HloOpcode::kAnd, mask, same, N("all_diagonal"));
    }
    return o_.Select(mask, wide, Zeros(dims, t), N("result"));
  }

  HloInstruction* call_;
  EinsumSpec spec_;
  OpBuilder o_;
  std::string base_;
  ScalarReducers reducers_;
};

}  // namespace

absl::StatusOr<bool> EinsumExpander::Run(HloModule* module) {
  std::vector<HloInstruction*> todo;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kCustomCall &&
          instr->GetString(AttrId::kCustomCallTarget) == kEinsumTarget) {
        todo.push_back(instr.get());
      }
    }
  }
  for (HloInstruction* call : todo) {
    ASSIGN_OR_RETURN(EinsumSpec spec, ReadEinsumSpec(*call));
    RETURN_IF_ERROR(ReplaceInstruction(call, Expander(call, std::move(spec)).Build()));
  }
  return !todo.empty();
}

}  // namespace xla
