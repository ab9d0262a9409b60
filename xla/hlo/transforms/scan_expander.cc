#include "xla/hlo/transforms/scan_expander.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/call_inliner.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

// The scan's operands split: inputs then carries, and its stacking dim.
struct ScanParts {
  int64_t inputs = 0;
  int64_t carries = 0;
  int64_t outputs = 0;  // stacked results (the tuple's first elements)
  int64_t dim = 0;
  int64_t length = 0;
  std::vector<Shape> state;  // the loop state: i, inputs, accumulators, carries
};

bool IsExpandable(const HloInstruction& scan) {
  if (HasControlEdges(scan) || !scan.shape().IsTuple()) return false;
  for (const HloInstruction* op : scan.operands()) {
    if (!op->shape().IsArray()) return false;
  }
  for (const Shape& s : scan.shape().tuple_shapes()) {
    if (!s.IsArray()) return false;
  }
  return true;
}

absl::StatusOr<ScanParts> Analyze(const HloInstruction& scan) {
  ScanParts p;
  p.carries = scan.GetInt(AttrId::kNumCarries);
  p.inputs = scan.operand_count() - p.carries;
  p.outputs = scan.shape().tuple_shapes_size() - p.carries;
  const std::vector<int64_t>& dims = scan.GetIntList(AttrId::kDimensions);
  if (p.carries < 0 || p.inputs < 1 || p.outputs < 0 || dims.size() != 1 ||
      scan.to_apply() == nullptr || dims[0] < 0 || dims[0] >= scan.operand(0)->shape().rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scan '", scan.name(), "': needs inputs, num_carries carries, dimensions={d} within the "
        "inputs' rank and to_apply; got ", scan.operand_count(), " operands and result ",
        scan.shape().ToString(false)));
  }
  p.dim = dims[0];
  p.length = scan.operand(0)->shape().dimensions(p.dim);
  p.state.push_back(Shape::Scalar(PrimitiveType::S32));
  for (int64_t k = 0; k < p.inputs; ++k) p.state.push_back(scan.operand(k)->shape());
  for (int64_t k = 0; k < p.outputs; ++k) p.state.push_back(scan.shape().tuple_shapes(k));
  for (int64_t k = 0; k < p.carries; ++k) p.state.push_back(scan.operand(p.inputs + k)->shape());
  return p;
}

// Start indices for a slice at `i` along `dim` of a rank-`rank` array.
std::vector<HloInstruction*> StartsAt(OpBuilder& o, HloInstruction* i, int64_t rank, int64_t dim) {
  HloInstruction* zero = o.Scalar(PrimitiveType::S32, 0, "zero");
  std::vector<HloInstruction*> starts(rank, zero);
  starts[dim] = i;
  return starts;
}

// `dims` with `dim` removed (a slice of the stacked array).
std::vector<int64_t> Without(std::vector<int64_t> dims, int64_t dim) {
  dims.erase(dims.begin() + dim);
  return dims;
}

// The loop body: one step of the scan at i (the callee inlined).
absl::StatusOr<HloComputation*> MakeBody(HloModule* module, const HloInstruction& scan,
                                         const ScanParts& p) {
  auto comp = std::make_unique<HloComputation>(module->UniqueComputationName(scan.name() + "_body"));
  OpBuilder o(comp.get());
  HloInstruction* state = o.Parameter(0, Shape::Tuple(p.state), "state");
  HloInstruction* i = o.GetTupleElement(state, 0, "i");
  std::vector<HloInstruction*> args, inputs, accs;
  for (int64_t k = 0; k < p.inputs; ++k) {
    HloInstruction* in = o.GetTupleElement(state, 1 + k, "input");
    inputs.push_back(in);
    std::vector<int64_t> sizes = in->shape().dimensions();
    sizes[p.dim] = 1;
    HloInstruction* slice = o.DynamicSlice(in, StartsAt(o, i, in->shape().rank(), p.dim), sizes,
                                           "input_slice");
    args.push_back(o.Reshape(slice, Without(sizes, p.dim), "input_step"));
  }
  for (int64_t k = 0; k < p.outputs; ++k) {
    accs.push_back(o.GetTupleElement(state, 1 + p.inputs + k, "stacked"));
  }
  for (int64_t k = 0; k < p.carries; ++k) {
    args.push_back(o.GetTupleElement(state, 1 + p.inputs + p.outputs + k, "carry"));
  }
  HloComputation* f = scan.to_apply();
  HloInstruction* step = o.Op(HloOpcode::kCall, f->root_instruction()->shape(), args, "step");
  step->SetAttr(AttrId::kToApply, f);
  std::vector<HloInstruction*> values;
  if (step->shape().IsTuple()) {
    for (int64_t k = 0; k < step->shape().tuple_shapes_size(); ++k) {
      values.push_back(o.GetTupleElement(step, k, "step_value"));
    }
  } else {
    values.push_back(step);
  }
  if (static_cast<int64_t>(values.size()) != p.outputs + p.carries) {
    return absl::InvalidArgumentError(absl::StrCat("scan '", scan.name(), "': to_apply '",
                                                   f->name(), "' returns ", values.size(),
                                                   " values, expected ", p.outputs + p.carries));
  }
  std::vector<HloInstruction*> next = {
      o.Binary(HloOpcode::kAdd, i, o.Scalar(PrimitiveType::S32, 1, "one"), "next_i")};
  next.insert(next.end(), inputs.begin(), inputs.end());
  for (int64_t k = 0; k < p.outputs; ++k) {
    std::vector<int64_t> one = accs[k]->shape().dimensions();
    one[p.dim] = 1;
    HloInstruction* update = o.Reshape(values[k], one, "output_step");
    next.push_back(o.DynamicUpdateSlice(accs[k], update,
                                        StartsAt(o, i, accs[k]->shape().rank(), p.dim), "stacked_next"));
  }
  for (int64_t k = 0; k < p.carries; ++k) next.push_back(values[p.outputs + k]);
  comp->set_root_instruction(o.Tuple(next, "next_state"));
  HloComputation* body = module->AddComputation(std::move(comp));
  RETURN_IF_ERROR(InlineCall(step));
  return body;
}

// The loop condition: i < length.
HloComputation* MakeCondition(HloModule* module, const HloInstruction& scan, const ScanParts& p) {
  auto comp = std::make_unique<HloComputation>(module->UniqueComputationName(scan.name() + "_cond"));
  OpBuilder o(comp.get());
  HloInstruction* i = o.GetTupleElement(o.Parameter(0, Shape::Tuple(p.state), "state"), 0, "i");
  comp->set_root_instruction(o.Compare(
      i, o.Scalar(PrimitiveType::S32, static_cast<double>(p.length), "length"), "LT", "more"));
  return module->AddComputation(std::move(comp));
}

absl::Status Expand(HloInstruction* scan) {
  ASSIGN_OR_RETURN(const ScanParts p, Analyze(*scan));
  HloModule* module = scan->parent()->parent();
  const std::string base = scan->name();
  OpBuilder o(scan->parent());
  std::vector<HloInstruction*> init = {o.Scalar(PrimitiveType::S32, 0, base + ".i_init")};
  for (int64_t k = 0; k < p.inputs; ++k) init.push_back(scan->operand(k));
  for (int64_t k = 0; k < p.outputs; ++k) {
    const Shape& s = scan->shape().tuple_shapes(k);
    init.push_back(o.Broadcast(o.Scalar(s.element_type(), 0, base + ".zero"), s.dimensions(), {},
                               base + ".stacked_init"));
  }
  for (int64_t k = 0; k < p.carries; ++k) init.push_back(scan->operand(p.inputs + k));
  HloInstruction* state = o.Tuple(init, base + ".init");
  HloInstruction* loop = o.Op(HloOpcode::kWhile, state->shape(), {state}, base + ".loop");
  loop->SetAttr(AttrId::kCondition, MakeCondition(module, *scan, p));
  ASSIGN_OR_RETURN(HloComputation * body, MakeBody(module, *scan, p));
  loop->SetAttr(AttrId::kBody, body);
  std::vector<HloInstruction*> results;
  for (int64_t k = 0; k < p.outputs; ++k) {
    results.push_back(o.GetTupleElement(loop, 1 + p.inputs + k, base + ".stacked"));
  }
  for (int64_t k = 0; k < p.carries; ++k) {
    results.push_back(o.GetTupleElement(loop, 1 + p.inputs + p.outputs + k, base + ".carry"));
  }
  return ReplaceInstruction(scan, o.Tuple(results, base + ".result"));
}

}  // namespace

absl::StatusOr<bool> ScanExpander::Run(HloModule* module) {
  std::vector<HloInstruction*> todo;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kScan && IsExpandable(*instr)) todo.push_back(instr.get());
    }
  }
  for (HloInstruction* scan : todo) RETURN_IF_ERROR(Expand(scan));
  return !todo.empty();
}

}  // namespace xla
