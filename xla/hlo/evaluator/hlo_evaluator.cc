#include "xla/hlo/evaluator/hlo_evaluator.h"

#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/evaluator/op_table.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace evaluator {

const OpTable& GetOpTable() {
  static const OpTable* table = [] {
    auto* t = new OpTable();
    t->fill(nullptr);
    RegisterElementwiseOps(*t);
    RegisterShapeOps(*t);
    RegisterReduceOps(*t);
    RegisterControlOps(*t);
    RegisterLinalgOps(*t);
    RegisterIndexingOps(*t);
    RegisterRngOps(*t);
    RegisterBatchNormOps(*t);
    return t;
  }();
  return *table;
}

// Instructions in post order, each with its operands' positions in it.
struct EvalContext::Plan {
  std::vector<const HloInstruction*> order;
  std::vector<std::vector<int64_t>> operand_positions;
  // Values whose last reader is the instruction at each position; they are
  // released once it has run, so only live values take memory.
  std::vector<std::vector<int64_t>> release_after;
  int64_t root_position = -1;
};

namespace {

absl::Status CheckArguments(const HloComputation& comp, absl::Span<const Literal* const> args) {
  if (static_cast<int64_t>(args.size()) != comp.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat("computation '", comp.name(), "' takes ",
                                                   comp.num_parameters(), " arguments, got ",
                                                   args.size()));
  }
  for (int64_t i = 0; i < comp.num_parameters(); ++i) {
    const HloInstruction* p = comp.parameter_instruction(i);
    if (p == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("computation '", comp.name(), "' has no parameter ", i));
    }
    if (!ShapesCompatible(p->shape(), args[i]->shape(), /*ignore_dynamic=*/true)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", i, " of '", comp.name(), "' (parameter '", p->name(), "') should have shape ",
          p->shape().ToString(false), " but has shape ", args[i]->shape().ToString(false)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

EvalContext::EvalContext(const EvaluatorOptions& options) : options_(options) {
  if (options_.time_limit_seconds > 0) {
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(options_.time_limit_seconds));
  }
}

EvalContext::~EvalContext() = default;

const EvalContext::Plan& EvalContext::GetPlan(const HloComputation& comp) {
  std::unique_ptr<Plan>& plan = plans_[&comp];
  if (plan != nullptr) return *plan;
  plan = std::make_unique<Plan>();
  absl::flat_hash_map<const HloInstruction*, int64_t> position;
  for (const HloInstruction* instr : comp.MakePostOrder()) {
    position[instr] = static_cast<int64_t>(plan->order.size());
    plan->order.push_back(instr);
    std::vector<int64_t> ops;
    for (const HloInstruction* o : instr->operands()) ops.push_back(position.at(o));
    plan->operand_positions.push_back(std::move(ops));
  }
  plan->root_position = position.at(comp.root_instruction());
  std::vector<int64_t> last_use(plan->order.size(), -1);
  for (size_t pos = 0; pos < plan->order.size(); ++pos) {
    for (int64_t o : plan->operand_positions[pos]) last_use[o] = static_cast<int64_t>(pos);
  }
  plan->release_after.resize(plan->order.size());
  for (size_t v = 0; v < last_use.size(); ++v) {
    if (last_use[v] >= 0 && static_cast<int64_t>(v) != plan->root_position) {
      plan->release_after[last_use[v]].push_back(static_cast<int64_t>(v));
    }
  }
  return *plan;
}

absl::Status EvalContext::CheckDeadline(const HloInstruction& instr) {
  if (options_.time_limit_seconds <= 0 || (++steps_ & 63) != 0) return absl::OkStatus();
  if (std::chrono::steady_clock::now() < deadline_) return absl::OkStatus();
  return absl::DeadlineExceededError(absl::StrCat("evaluation ran past its time limit of ",
                                                  options_.time_limit_seconds,
                                                  " s (at instruction '", instr.name(), "')"));
}

absl::StatusOr<Literal> EvalContext::Run(const HloComputation& comp,
                                         absl::Span<const Literal* const> args) {
  const OpTable& table = GetOpTable();
  const Plan& plan = GetPlan(comp);
  std::vector<Literal> values(plan.order.size());
  std::vector<const Literal*> operands;
  for (size_t pos = 0; pos < plan.order.size(); ++pos) {
    const HloInstruction* instr = plan.order[pos];
    RETURN_IF_ERROR(CheckDeadline(*instr));
    if (instr->opcode() == HloOpcode::kParameter) {
      values[pos] = *args[instr->parameter_number()];
      continue;
    }
    if (instr->opcode() == HloOpcode::kConstant) {
      if (!instr->has_literal() || instr->literal().elided()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "constant '", instr->name(), "' has an elided value ({...}); the evaluator needs "
            "the data: fill it first (ElidedConstantFiller; xla_aot eval and run --reference "
            "take --elided_constants=random or =zeros)"));
      }
      values[pos] = instr->literal();
      continue;
    }
    OpEvaluator op = table[static_cast<int>(instr->opcode())];
    if (op == nullptr) {
      return absl::UnimplementedError(absl::StrCat("the evaluator does not support ",
                                                   HloOpcodeName(instr->opcode()), " (instruction '",
                                                   instr->name(), "')"));
    }
    operands.clear();
    for (int64_t o : plan.operand_positions[pos]) operands.push_back(&values[o]);
    ASSIGN_OR_RETURN(values[pos], op(*instr, operands, *this));
    for (int64_t dead : plan.release_after[pos]) values[dead] = Literal();
  }
  return std::move(values[plan.root_position]);
}

absl::StatusOr<Literal> EvalContext::Call(const HloComputation& computation,
                                          absl::Span<const Literal* const> args) {
  if (depth_ >= options_.max_call_depth) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "calls nested deeper than ", options_.max_call_depth, " at computation '",
        computation.name(), "'"));
  }
  RETURN_IF_ERROR(CheckArguments(computation, args));
  ++depth_;
  absl::StatusOr<Literal> result = Run(computation, args);
  --depth_;
  return result;
}

}  // namespace evaluator

absl::StatusOr<Literal> HloEvaluator::Evaluate(const HloModule& module,
                                               absl::Span<const Literal> args) {
  if (module.entry_computation() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("module '", module.name(), "' has no entry"));
  }
  std::vector<const Literal*> ptrs;
  for (const Literal& a : args) ptrs.push_back(&a);
  return EvaluateComputation(*module.entry_computation(), ptrs);
}

absl::StatusOr<Literal> HloEvaluator::EvaluateComputation(const HloComputation& computation,
                                                          absl::Span<const Literal* const> args) {
  evaluator::EvalContext ctx(options_);
  return ctx.Call(computation, args);
}

}  // namespace xla
