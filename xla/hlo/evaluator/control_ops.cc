// Evaluator ops of the control family (see op_table.h): while, conditional,
// call, fusion, map, scan, async-start/update/done, copy-start/done, tuples,
// tokens and dependencies, custom-call (annotation identities, XLA's TopK,
// xla_builder.math.Acos, xla_builder.matrix.Einsum (einsum_op.cc), XLA:GPU's
// cuBLAS GEMM calls (gemm_custom_call_op.cc)
// and Transformer Engine's fused attention, fused_attention_op.cc; other
// targets are errors), send/recv (refused, naming the channel), and the
// collectives of a
// module run as a single replica of a single partition.
//
// Collectives with one participant: all-reduce, all-gather, reduce-scatter,
// all-to-all and collective-broadcast return their operands (a tuple for
// several); collective-permute returns its operand when the source-target
// pairs contain {0,0} and zeros otherwise; replica-id and partition-id are 0.
// Replica groups that name more than one device, or results whose shape
// needs more participants, are reported as unimplemented. When
// EvaluatorOptions::collectives is set, these ops go to that hook instead
// (the replicated evaluator, replicated_evaluator.h).
#include <cmath>
#include <complex>
#include <utility>
#include <vector>

#include "xla/hlo/evaluator/eval_util.h"
#include "xla/hlo/evaluator/fused_attention_op.h"
#include "xla/hlo/evaluator/indexing_util.h"
#include "xla/hlo/evaluator/linalg_util.h"
#include "xla/hlo/evaluator/numeric_util.h"
#include "xla/hlo/evaluator/onednn_layer_norm_op.h"
#include "xla/hlo/evaluator/op_table.h"
#include "xla/hlo/evaluator/te_softmax_op.h"
#include "xla/hlo/ir/einsum_spec.h"
#include "xla/hlo/ir/host_transfer_attributes.h"
#include "xla/hlo/proto/gemm_custom_call.h"
#include "xla/hlo/proto/onednn_layer_norm_call.h"
#include "xla/hlo/proto/te_softmax_call.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator {
namespace {

using Operands = absl::Span<const Literal* const>;

// The computation of attribute `id`, or an error naming the attribute.
absl::StatusOr<const HloComputation*> Callee(const HloInstruction& instr, AttrId id) {
  const HloComputation* c = instr.GetComputation(id);
  if (c == nullptr) {
    return InstrError(instr, "needs attribute '", AttrName(id), "' naming one computation");
  }
  return c;
}

// Element `i` of a tuple literal, or an error.
absl::StatusOr<Literal> TupleElement(const HloInstruction& instr, const Literal& tuple,
                                     int64_t i) {
  if (!tuple.shape().IsTuple() || i < 0 ||
      i >= static_cast<int64_t>(tuple.tuple_elements().size())) {
    return InstrError(instr, "index ", i, " is out of range for ", tuple.shape().ToString(false));
  }
  return tuple.tuple_elements()[i];
}

// The operands as one value: the operand itself, or a tuple of them.
Literal OperandsAsValue(Operands operands) {
  if (operands.size() == 1) return *operands[0];
  std::vector<Literal> elements;
  for (const Literal* op : operands) elements.push_back(*op);
  return MakeTuple(std::move(elements));
}

absl::StatusOr<Literal> EvalWhile(const HloInstruction& instr, Operands operands,
                                  EvalContext& ctx) {
  ASSIGN_OR_RETURN(const HloComputation* cond, Callee(instr, AttrId::kCondition));
  ASSIGN_OR_RETURN(const HloComputation* body, Callee(instr, AttrId::kBody));
  Literal state = *operands[0];
  const int64_t limit = ctx.options().max_while_iterations;
  for (int64_t iteration = 0;; ++iteration) {
    const Literal* arg = &state;
    ASSIGN_OR_RETURN(Literal keep_going, ctx.Call(*cond, absl::MakeConstSpan(&arg, 1)));
    if (!keep_going.shape().IsScalar() ||
        keep_going.shape().element_type() != PrimitiveType::PRED) {
      return InstrError(instr, "condition '", cond->name(), "' returned ",
                        keep_going.shape().ToString(false), ", expected pred[]");
    }
    if (keep_going.GetBits(0) == 0) return state;
    if (iteration >= limit) {
      return absl::ResourceExhaustedError(absl::StrCat(
          Describe(instr), ": loop did not finish within ", limit,
          " iterations (EvaluatorOptions::max_while_iterations)"));
    }
    ASSIGN_OR_RETURN(state, ctx.Call(*body, absl::MakeConstSpan(&arg, 1)));
  }
}

// Pred form: operand 0 selects true_computation (operand 1) or
// false_computation (operand 2). Index form: branch_computations[i] with
// operand i + 1; an index outside [0, N) runs the last branch, as XLA does.
absl::StatusOr<Literal> EvalConditional(const HloInstruction& instr, Operands operands,
                                        EvalContext& ctx) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  const Literal& selector = *operands[0];
  if (!selector.shape().IsScalar()) {
    return InstrError(instr, "selector must be a scalar, got ", selector.shape().ToString(false));
  }
  std::vector<const HloComputation*> branches;
  using ComputationList = std::vector<HloComputation*>;
  if (const auto* list = AttrAs<ComputationList>(instr, AttrId::kBranchComputations)) {
    branches.assign(list->begin(), list->end());
  } else if (const auto* one = AttrAs<HloComputation*>(instr, AttrId::kBranchComputations)) {
    branches.push_back(*one);
  } else {
    ASSIGN_OR_RETURN(const HloComputation* t, Callee(instr, AttrId::kTrueComputation));
    ASSIGN_OR_RETURN(const HloComputation* f, Callee(instr, AttrId::kFalseComputation));
    branches = {t, f};
  }
  if (branches.empty() || operands.size() != branches.size() + 1) {
    return InstrError(instr, branches.size(), " branches need ", branches.size() + 1,
                      " operands, got ", operands.size());
  }
  int64_t branch;
  if (IsPred(selector.shape().element_type())) {
    branch = selector.GetBits(0) != 0 ? 0 : 1;
  } else {
    branch = IndexValue(selector, 0);
    const int64_t n = static_cast<int64_t>(branches.size());
    if (branch < 0 || branch >= n) branch = n - 1;
  }
  const Literal* arg = operands[branch + 1];
  return ctx.Call(*branches[branch], absl::MakeConstSpan(&arg, 1));
}

absl::StatusOr<Literal> EvalCall(const HloInstruction& instr, Operands operands,
                                 EvalContext& ctx) {
  ASSIGN_OR_RETURN(const HloComputation* callee, Callee(instr, AttrId::kToApply));
  return ctx.Call(*callee, operands);
}

absl::StatusOr<Literal> EvalFusion(const HloInstruction& instr, Operands operands,
                                   EvalContext& ctx) {
  ASSIGN_OR_RETURN(const HloComputation* callee, Callee(instr, AttrId::kCalls));
  return ctx.Call(*callee, operands);
}

// map: to_apply on the scalars at each index of the operands (same
// dimensions), in row-major order.
absl::StatusOr<Literal> EvalMap(const HloInstruction& instr, Operands operands,
                                EvalContext& ctx) {
  ASSIGN_OR_RETURN(const HloComputation* callee, Callee(instr, AttrId::kToApply));
  RETURN_IF_ERROR(ExpectOperandCount(instr, operands, 1));
  for (size_t i = 0; i < operands.size(); ++i) {
    RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, static_cast<int64_t>(i)));
    if (operands[i]->shape().dimensions() != operands[0]->shape().dimensions()) {
      return InstrError(instr, "operands must share dimensions, got ",
                        operands[0]->shape().ToString(false), " and ",
                        operands[i]->shape().ToString(false));
    }
  }
  if (!instr.shape().IsArray()) return InstrError(instr, "result must be an array");
  Literal out(ArrayShape(instr.shape().element_type(), operands[0]->shape().dimensions()));
  std::vector<Literal> args(operands.size());
  std::vector<const Literal*> ptrs;
  for (const Literal& a : args) ptrs.push_back(&a);
  for (int64_t i = 0; i < out.element_count(); ++i) {
    for (size_t k = 0; k < operands.size(); ++k) args[k] = ScalarOf(*operands[k], i);
    ASSIGN_OR_RETURN(Literal r, ctx.Call(*callee, ptrs));
    if (!r.shape().IsScalar()) {
      return InstrError(instr, "computation '", callee->name(), "' returned ",
                        r.shape().ToString(false), ", expected a scalar");
    }
    ConvertElement(r, 0, out, i);
  }
  return out;
}

// The row-major split of `dims` around dim `d`: elements before it (outer),
// its length, and elements after it (inner).
struct AroundDim {
  int64_t outer = 1, length = 1, inner = 1;
};
AroundDim SplitAround(absl::Span<const int64_t> dims, int64_t d) {
  AroundDim a;
  for (int64_t k = 0; k < static_cast<int64_t>(dims.size()); ++k) {
    if (k < d) a.outer *= dims[k];
    if (k > d) a.inner *= dims[k];
  }
  if (d < static_cast<int64_t>(dims.size())) a.length = dims[d];
  return a;
}

// Slice `i` of `array` along dim `d` (that dim removed), or the reverse:
// `slice` stored as slice `i` of `array` (to_slice false).
void MoveSlice(const Literal& from, Literal& to, int64_t d, int64_t i, bool to_slice) {
  const Literal& array = to_slice ? from : to;
  const AroundDim a = SplitAround(array.shape().dimensions(), d);
  for (int64_t o = 0; o < a.outer; ++o) {
    for (int64_t n = 0; n < a.inner; ++n) {
      const int64_t in_array = (o * a.length + i) * a.inner + n;
      const int64_t in_slice = o * a.inner + n;
      if (to_slice) {
        CopyElement(from, in_array, to, in_slice);
      } else {
        CopyElement(from, in_slice, to, in_array);
      }
    }
  }
}

// scan: operands are the scanned inputs, then num_carries carries. Step i
// (0 to the length of `dimensions`' one dim, in order) calls to_apply on
// slice i of every input and the carries and gets (outputs..., carries...);
// output k is stacked as slice i of result k, the carries go to the next
// step. The result is (stacked outputs..., final carries...), as the
// verifier infers it. is_associative changes nothing here.
absl::StatusOr<Literal> EvalScan(const HloInstruction& instr, Operands operands,
                                 EvalContext& ctx) {
  ASSIGN_OR_RETURN(const HloComputation* body, Callee(instr, AttrId::kToApply));
  const int64_t carries = instr.GetInt(AttrId::kNumCarries);
  const int64_t inputs = static_cast<int64_t>(operands.size()) - carries;
  const std::vector<int64_t>& dims = instr.GetIntList(AttrId::kDimensions);
  if (carries < 0 || inputs < 1 || dims.size() != 1 || !instr.shape().IsTuple()) {
    return InstrError(instr, "needs scanned inputs, num_carries carries, one dimension and a "
                             "tuple result");
  }
  const int64_t d = dims[0];
  const int64_t outputs = instr.shape().tuple_shapes_size() - carries;
  for (int64_t k = 0; k < inputs; ++k) {
    RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, k));
    if (d < 0 || d >= operands[k]->shape().rank()) {
      return InstrError(instr, "dimension ", d, " is out of range for input ", k);
    }
  }
  const int64_t length = operands[0]->shape().dimensions(d);
  std::vector<Literal> results;
  for (int64_t k = 0; k < outputs; ++k) {
    const Shape& r = instr.shape().tuple_shapes(k);
    results.emplace_back(ArrayShape(r.element_type(), r.dimensions()));
  }
  std::vector<Literal> args(operands.size());
  for (int64_t k = 0; k < carries; ++k) args[inputs + k] = *operands[inputs + k];
  std::vector<const Literal*> ptrs;
  for (const Literal& a : args) ptrs.push_back(&a);
  for (int64_t i = 0; i < length; ++i) {
    for (int64_t k = 0; k < inputs; ++k) {
      std::vector<int64_t> slice = operands[k]->shape().dimensions();
      slice.erase(slice.begin() + d);
      args[k] = Literal(ArrayShape(operands[k]->shape().element_type(), slice));
      MoveSlice(*operands[k], args[k], d, i, /*to_slice=*/true);
    }
    ASSIGN_OR_RETURN(Literal step, ctx.Call(*body, ptrs));
    std::vector<Literal> values;
    if (step.shape().IsTuple()) {
      values = step.tuple_elements();
    } else {
      values.push_back(std::move(step));
    }
    if (static_cast<int64_t>(values.size()) != outputs + carries) {
      return InstrError(instr, "to_apply '", body->name(), "' returned ", values.size(),
                        " values, expected ", outputs + carries);
    }
    for (int64_t k = 0; k < outputs; ++k) MoveSlice(values[k], results[k], d, i, false);
    for (int64_t k = 0; k < carries; ++k) args[inputs + k] = std::move(values[outputs + k]);
  }
  for (int64_t k = 0; k < carries; ++k) results.push_back(std::move(args[inputs + k]));
  return MakeTuple(std::move(results));
}

// async-start: ((operands...), result of `calls`, context...) with zeroed
// context elements of the declared types.
absl::StatusOr<Literal> EvalAsyncStart(const HloInstruction& instr, Operands operands,
                                       EvalContext& ctx) {
  ASSIGN_OR_RETURN(const HloComputation* callee, Callee(instr, AttrId::kCalls));
  ASSIGN_OR_RETURN(Literal result, ctx.Call(*callee, operands));
  std::vector<Literal> inputs;
  for (const Literal* op : operands) inputs.push_back(*op);
  std::vector<Literal> elements;
  elements.push_back(MakeTuple(std::move(inputs)));
  elements.push_back(std::move(result));
  const Shape& declared = instr.shape();
  for (int64_t i = 2; declared.IsTuple() && i < declared.tuple_shapes_size(); ++i) {
    elements.emplace_back(declared.tuple_shapes(i));
  }
  return MakeTuple(std::move(elements));
}

// async-done, and the -done halves of all-gather and collective-permute:
// element 1 of an (input, output, ...) tuple, or the operand itself.
absl::StatusOr<Literal> EvalSecondElement(const HloInstruction& instr, Operands operands,
                                          EvalContext&) {
  if (!operands[0]->shape().IsTuple() && instr.opcode() != HloOpcode::kAsyncDone) {
    return *operands[0];
  }
  return TupleElement(instr, *operands[0], 1);
}

absl::StatusOr<Literal> EvalCopyStart(const HloInstruction&, Operands operands, EvalContext&) {
  std::vector<Literal> elements;
  elements.push_back(*operands[0]);
  elements.push_back(*operands[0]);
  elements.emplace_back(Shape::Scalar(PrimitiveType::U32));
  return MakeTuple(std::move(elements));
}

absl::StatusOr<Literal> EvalCopyDone(const HloInstruction& instr, Operands operands,
                                     EvalContext&) {
  return TupleElement(instr, *operands[0], 0);
}

absl::StatusOr<Literal> EvalTuple(const HloInstruction&, Operands operands, EvalContext&) {
  std::vector<Literal> elements;
  for (const Literal* op : operands) elements.push_back(*op);
  return MakeTuple(std::move(elements));
}

absl::StatusOr<Literal> EvalGetTupleElement(const HloInstruction& instr, Operands operands,
                                            EvalContext&) {
  return TupleElement(instr, *operands[0], instr.tuple_index());
}

// opt-barrier, domain, add-dependency, async-update, the -done halves of
// all-reduce: operand 0 unchanged.
absl::StatusOr<Literal> EvalIdentity(const HloInstruction&, Operands operands, EvalContext&) {
  return *operands[0];
}

absl::StatusOr<Literal> EvalAfterAll(const HloInstruction&, Operands, EvalContext&) {
  return Literal(Shape::Token());
}

absl::StatusOr<Literal> EvalZeroId(const HloInstruction& instr, Operands, EvalContext&) {
  return Literal(instr.shape().IsArray() ? instr.shape() : Shape::Scalar(PrimitiveType::U32));
}

// Custom-call targets that only annotate their single operand (placement,
// sharding) and so pass its value through unchanged on one device.
constexpr absl::string_view kPassThroughTargets[] = {
    "Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape", "MoveToHost", "MoveToDevice",
    "annotate_device_placement",
};

// "xla_builder.math.Acos", the custom call XLA's builder library leaves for
// its arc cosine: elementwise acos of a float or complex operand (principal
// value; NaN outside [-1, 1] for real types).
absl::StatusOr<Literal> EvalBuilderAcos(const HloInstruction& instr, Operands operands) {
  if (operands.size() != 1 || !operands[0]->shape().IsArray() ||
      !ShapesCompatible(operands[0]->shape(), instr.shape(), /*ignore_dynamic=*/true) ||
      !(IsFloat(instr.shape().element_type()) || IsComplex(instr.shape().element_type()))) {
    return InstrError(instr, "xla_builder.math.Acos needs one float or complex operand of the ",
                      "result's shape");
  }
  const Literal& x = *operands[0];
  Literal out(x.shape());
  const bool complex = IsComplex(x.shape().element_type());
  for (int64_t i = 0; i < x.element_count(); ++i) {
    if (complex) {
      out.SetComplex(i, std::acos(x.GetComplex(i)));
    } else {
      out.SetDouble(i, std::acos(x.GetDouble(i)));
    }
  }
  return out;
}

// XLA's "GetRngSeed" (u64[] custom-call(), a seed for the generators XLA's
// RngExpander builds), as the middle end lowers it
// (xla/hlo/transforms/rng_seed_expander.h): the low word of the RNG state
// that rng-get-and-update-state reads, advanced by 1, with bit 0 set.
absl::StatusOr<Literal> EvalGetRngSeed(const HloInstruction& instr, Operands operands,
                                       EvalContext& ctx) {
  const Shape& shape = instr.shape();
  if (!operands.empty() || !shape.IsArray() || shape.rank() != 0 ||
      (shape.element_type() != PrimitiveType::U64 && shape.element_type() != PrimitiveType::S64)) {
    return InstrError(instr, "GetRngSeed takes no operands and returns u64[] or s64[]");
  }
  Literal out(shape);
  out.SetBits(0, absl::Uint128Low64(ctx.TakeRngState(1)) | 1);
  return out;
}

absl::StatusOr<Literal> EvalCustomCall(const HloInstruction& instr, Operands operands,
                                       EvalContext& ctx) {
  const std::string& target = instr.GetString(AttrId::kCustomCallTarget);
  if (target == "TopK") return indexing::EvalTopKCustomCall(instr, operands, ctx);
  if (target == "xla_builder.math.Acos") return EvalBuilderAcos(instr, operands);
  if (target == "GetRngSeed") return EvalGetRngSeed(instr, operands, ctx);
  if (gemm::IsGemmCustomCallTarget(target)) return linalg::EvalGemmCustomCall(instr, operands);
  if (target == kEinsumTarget) return linalg::EvalEinsumCustomCall(instr, operands);
  for (absl::string_view pass_through : kPassThroughTargets) {
    if (target == pass_through && operands.size() == 1 &&
        ShapesCompatible(operands[0]->shape(), instr.shape(), /*ignore_dynamic=*/true)) {
      return *operands[0];
    }
  }
  if (IsTeFusedAttentionCall(target)) return EvalTeFusedAttention(instr, operands);
  if (te_softmax::IsTeSoftmaxTarget(target)) return EvalTeSoftmax(instr, operands);
  if (target == onednn::kLayerNormTarget) return EvalOneDnnLayerNorm(instr, operands);
  return absl::UnimplementedError(absl::StrCat(
      "the evaluator does not support custom-call '", instr.name(), "' (custom_call_target=\"",
      instr.GetString(AttrId::kCustomCallTarget), "\")"));
}

// The (data, u32[] context, token) tuple a send or recv returns.
Literal TransferTuple(Literal data) {
  std::vector<Literal> elements;
  elements.push_back(std::move(data));
  elements.emplace_back(Shape::Scalar(PrimitiveType::U32));
  elements.emplace_back(Shape::Token());
  return MakeTuple(std::move(elements));
}

// A host send or recv through options().host_transfers; -done halves pass
// the data on (recv-done) or return the token (send-done).
absl::StatusOr<Literal> EvalHostTransfer(const HloInstruction& instr, Operands operands,
                                         EvalContext& ctx) {
  const HloOpcode op = instr.opcode();
  if (op == HloOpcode::kSendDone) return Literal(Shape::Token());
  if (op == HloOpcode::kRecvDone) {
    std::vector<Literal> elements;
    elements.push_back(operands[0]->tuple_elements()[0]);
    elements.emplace_back(Shape::Token());
    return MakeTuple(std::move(elements));
  }
  const bool send = op == HloOpcode::kSend;
  const int64_t channel = instr.GetInt(AttrId::kChannelId, -1);
  const std::string rendezvous = HostTransferRendezvous(instr);
  const HostTransferHook* hook = ctx.options().host_transfers;
  if (hook == nullptr || !(send ? static_cast<bool>(hook->send) : static_cast<bool>(hook->recv))) {
    return absl::FailedPreconditionError(absl::StrCat(
        "instruction '", instr.name(), "': a host ", send ? "send" : "recv", " (channel ", channel,
        ", rendezvous \"", rendezvous, "\") needs EvaluatorOptions::host_transfers with a ",
        send ? "send" : "recv", " callback (docs/host_transfers.md)"));
  }
  const auto annotate = [&](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat("instruction '", instr.name(), "' (channel ",
                                               channel, "): ", s.message()));
  };
  if (send) {
    const absl::Status sent = hook->send(channel, rendezvous, *operands[0]);
    if (!sent.ok()) return annotate(sent);
    return TransferTuple(*operands[0]);
  }
  const Shape& shape = instr.shape().tuple_shapes(0);
  absl::StatusOr<Literal> data = hook->recv(channel, rendezvous, shape);
  if (!data.ok()) return annotate(data.status());
  if (!ShapesCompatible(data->shape(), shape)) {
    return annotate(absl::InvalidArgumentError(absl::StrCat(
        "the recv callback returned ", data->shape().ToString(false), ", not ",
        shape.ToString(false))));
  }
  return TransferTuple(*std::move(data));
}

// send, recv and their -done halves. A host transfer's data comes from or
// goes to the caller's EvaluatorOptions::host_transfers; any other channel
// needs a peer program.
absl::StatusOr<Literal> EvalSendOrRecv(const HloInstruction& instr, Operands operands,
                                       EvalContext& ctx) {
  if (instr.GetBool(AttrId::kIsHostTransfer)) return EvalHostTransfer(instr, operands, ctx);
  return InstrUnimplemented(instr, "channel ", instr.GetInt(AttrId::kChannelId, -1),
                            " needs a peer program to exchange with; the evaluator runs one");
}

// ---- collectives with a single participant ----

// Fails unless every replica group names at most one device.
absl::Status CheckSingleParticipant(const HloInstruction& instr) {
  const ReplicaGroups* groups = AttrAs<ReplicaGroups>(instr, AttrId::kReplicaGroups);
  if (groups == nullptr) return absl::OkStatus();
  for (const std::vector<int64_t>& g : groups->Expand()) {
    if (g.size() > 1) {
      return InstrUnimplemented(instr, "replica groups of ", g.size(), " devices; the evaluator ",
                                "runs one replica of one partition");
    }
  }
  return absl::OkStatus();
}

// `value` when its shape has the dimensions of `declared`; an error that the
// op needs more participants otherwise.
absl::StatusOr<Literal> MatchDeclared(const HloInstruction& instr, Literal value,
                                      const Shape& declared) {
  if (!SameDimensions(value.shape(), declared)) {
    return InstrUnimplemented(instr, "result ", declared.ToString(false),
                              " needs more than one participant (operand gives ",
                              value.shape().ToString(false), ")");
  }
  return value;
}

// all-reduce, all-gather, reduce-scatter, all-to-all, collective-broadcast
// and all-reduce-start: the operands themselves.
absl::StatusOr<Literal> EvalCollectiveIdentity(const HloInstruction& instr, Operands operands,
                                               EvalContext&) {
  RETURN_IF_ERROR(CheckSingleParticipant(instr));
  return MatchDeclared(instr, OperandsAsValue(operands), instr.shape());
}

// all-gather-start: (operands, gathered) as XLA prints it, or the gathered
// value alone.
absl::StatusOr<Literal> EvalAllGatherStart(const HloInstruction& instr, Operands operands,
                                           EvalContext&) {
  RETURN_IF_ERROR(CheckSingleParticipant(instr));
  const Shape& declared = instr.shape();
  const bool pair = declared.IsTuple() && declared.tuple_shapes_size() == 2 &&
                    (operands.size() == 1 || declared.tuple_shapes(0).IsTuple());
  if (!pair) return MatchDeclared(instr, OperandsAsValue(operands), declared);
  ASSIGN_OR_RETURN(Literal gathered,
                   MatchDeclared(instr, OperandsAsValue(operands), declared.tuple_shapes(1)));
  std::vector<Literal> elements;
  elements.push_back(OperandsAsValue(operands));
  elements.push_back(std::move(gathered));
  return MakeTuple(std::move(elements));
}

// The value device 0 receives from a permutation among one device: the
// input when {0,0} is a pair, zeros otherwise.
Literal Permuted(const HloInstruction& instr, Operands operands) {
  using Pairs = std::vector<std::vector<int64_t>>;
  const auto* pairs = AttrAs<Pairs>(instr, AttrId::kSourceTargetPairs);
  bool self = false;
  for (size_t i = 0; pairs != nullptr && i < pairs->size(); ++i) {
    self |= (*pairs)[i].size() == 2 && (*pairs)[i][0] == 0 && (*pairs)[i][1] == 0;
  }
  Literal value = OperandsAsValue(operands);
  return self ? value : Literal(value.shape());
}

absl::StatusOr<Literal> EvalCollectivePermute(const HloInstruction& instr, Operands operands,
                                              EvalContext&) {
  auto is_offsets = [&](size_t i) {
    const Shape& s = operands[i]->shape();
    return s.IsTuple() || (s.IsArray() && IsInteger(s.element_type()));
  };
  if (operands.size() == 4 && operands[1]->shape().IsArray() && is_offsets(2) && is_offsets(3)) {
    return InstrUnimplemented(instr, "the in-place form (input, output, offsets, offsets)");
  }
  return MatchDeclared(instr, Permuted(instr, operands), instr.shape());
}

// collective-permute-start: (input, output[, context...]) or the permuted
// value alone.
absl::StatusOr<Literal> EvalCollectivePermuteStart(const HloInstruction& instr,
                                                   Operands operands, EvalContext& ctx) {
  const Shape& declared = instr.shape();
  if (!declared.IsTuple() || operands.size() != 1) {
    return EvalCollectivePermute(instr, operands, ctx);
  }
  if (declared.tuple_shapes_size() < 2) return InstrError(instr, "unexpected result shape");
  std::vector<Literal> elements;
  elements.push_back(*operands[0]);
  ASSIGN_OR_RETURN(Literal permuted,
                   MatchDeclared(instr, Permuted(instr, operands), declared.tuple_shapes(1)));
  elements.push_back(std::move(permuted));
  for (int64_t i = 2; i < declared.tuple_shapes_size(); ++i) {
    elements.emplace_back(declared.tuple_shapes(i));
  }
  return MakeTuple(std::move(elements));
}

// Routes a collective to EvaluatorOptions::collectives when one is set, and
// to the single-participant implementation `single` otherwise.
template <OpEvaluator single>
absl::StatusOr<Literal> Collective(const HloInstruction& instr, Operands operands,
                                   EvalContext& ctx) {
  if (CollectiveHook* hook = ctx.options().collectives) {
    return hook->EvaluateCollective(instr, operands);
  }
  return single(instr, operands, ctx);
}

struct OpEntry {
  HloOpcode opcode;
  OpEvaluator evaluate;
};

constexpr OpEntry kOps[] = {
    {HloOpcode::kWhile, EvalWhile},
    {HloOpcode::kConditional, EvalConditional},
    {HloOpcode::kCall, EvalCall},
    {HloOpcode::kFusion, EvalFusion},
    {HloOpcode::kMap, EvalMap},
    {HloOpcode::kScan, EvalScan},
    {HloOpcode::kAsyncStart, EvalAsyncStart},
    {HloOpcode::kAsyncUpdate, EvalIdentity},
    {HloOpcode::kAsyncDone, EvalSecondElement},
    {HloOpcode::kCopyStart, EvalCopyStart},
    {HloOpcode::kCopyDone, EvalCopyDone},
    {HloOpcode::kTuple, EvalTuple},
    {HloOpcode::kGetTupleElement, EvalGetTupleElement},
    {HloOpcode::kOptimizationBarrier, EvalIdentity},
    {HloOpcode::kDomain, EvalIdentity},
    {HloOpcode::kAddDependency, EvalIdentity},
    {HloOpcode::kAfterAll, EvalAfterAll},
    {HloOpcode::kSend, EvalSendOrRecv},
    {HloOpcode::kSendDone, EvalSendOrRecv},
    {HloOpcode::kRecv, EvalSendOrRecv},
    {HloOpcode::kRecvDone, EvalSendOrRecv},
    {HloOpcode::kReplicaId, Collective<EvalZeroId>},
    {HloOpcode::kPartitionId, Collective<EvalZeroId>},
    {HloOpcode::kCustomCall, EvalCustomCall},
    {HloOpcode::kAllReduce, Collective<EvalCollectiveIdentity>},
    {HloOpcode::kAllReduceStart, Collective<EvalCollectiveIdentity>},
    {HloOpcode::kAllReduceDone, EvalIdentity},
    {HloOpcode::kAllGather, Collective<EvalCollectiveIdentity>},
    {HloOpcode::kAllGatherStart, Collective<EvalAllGatherStart>},
    {HloOpcode::kAllGatherDone, EvalSecondElement},
    {HloOpcode::kReduceScatter, Collective<EvalCollectiveIdentity>},
    {HloOpcode::kAllToAll, Collective<EvalCollectiveIdentity>},
    {HloOpcode::kCollectiveBroadcast, Collective<EvalCollectiveIdentity>},
    {HloOpcode::kCollectivePermute, Collective<EvalCollectivePermute>},
    {HloOpcode::kCollectivePermuteStart, Collective<EvalCollectivePermuteStart>},
    {HloOpcode::kCollectivePermuteDone, EvalSecondElement},
};

}  // namespace

void RegisterControlOps(OpTable& table) {
  for (const OpEntry& e : kOps) table[static_cast<int>(e.opcode)] = e.evaluate;
}

}  // namespace xla::evaluator
