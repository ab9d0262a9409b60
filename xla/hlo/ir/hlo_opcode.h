// HLO opcodes: one table for the whole project.
//
// XLA_HLO_OPCODES(X) lists each opcode as X(Enum, "text name", arity, category)
// where arity is the operand count or kVariadic, and the category groups ops
// whose shape rule and evaluation follow the same pattern. The parser, the
// printer, the verifier, the evaluator and the emitters all read this table.
// Pure functions; thread-safe.
#ifndef XLA_HLO_IR_HLO_OPCODE_H_
#define XLA_HLO_IR_HLO_OPCODE_H_

#include <cstdint>
#include <optional>
#include "absl/strings/string_view.h"

namespace xla {

inline constexpr int kVariadic = -1;

enum class OpCategory : uint8_t {
  kElementwiseUnary,    // same shape as the operand
  kElementwiseBinary,   // same shape as both operands
  kCompare,             // elementwise, result pred
  kOther,               // op-specific shape rule
};

#define XLA_HLO_OPCODES(X)                                              \
  X(kAbs, "abs", 1, kElementwiseUnary)                                  \
  X(kAcos, "acos", 1, kElementwiseUnary)                                \
  X(kAcosh, "acosh", 1, kElementwiseUnary)                              \
  X(kAdd, "add", 2, kElementwiseBinary)                                 \
  X(kAddDependency, "add-dependency", 2, kOther)                        \
  X(kAfterAll, "after-all", kVariadic, kOther)                          \
  X(kAllGather, "all-gather", kVariadic, kOther)                        \
  X(kAllGatherDone, "all-gather-done", 1, kOther)                       \
  X(kAllGatherStart, "all-gather-start", kVariadic, kOther)             \
  X(kAllReduce, "all-reduce", kVariadic, kOther)                        \
  X(kAllReduceDone, "all-reduce-done", 1, kOther)                       \
  X(kAllReduceStart, "all-reduce-start", kVariadic, kOther)             \
  X(kAllToAll, "all-to-all", kVariadic, kOther)                         \
  X(kAnd, "and", 2, kElementwiseBinary)                                 \
  X(kAsin, "asin", 1, kElementwiseUnary)                                \
  X(kAsinh, "asinh", 1, kElementwiseUnary)                              \
  X(kAsyncDone, "async-done", 1, kOther)                                \
  X(kAsyncStart, "async-start", kVariadic, kOther)                      \
  X(kAsyncUpdate, "async-update", 1, kOther)                            \
  X(kAtan, "atan", 1, kElementwiseUnary)                                \
  X(kAtan2, "atan2", 2, kElementwiseBinary)                             \
  X(kAtanh, "atanh", 1, kElementwiseUnary)                              \
  X(kBatchNormGrad, "batch-norm-grad", 5, kOther)                       \
  X(kBatchNormInference, "batch-norm-inference", 5, kOther)             \
  X(kBatchNormTraining, "batch-norm-training", 3, kOther)               \
  X(kBitcast, "bitcast", 1, kOther)                                     \
  X(kBitcastConvert, "bitcast-convert", 1, kOther)                      \
  X(kBroadcast, "broadcast", 1, kOther)                                 \
  X(kCall, "call", kVariadic, kOther)                                   \
  X(kCbrt, "cbrt", 1, kElementwiseUnary)                                \
  X(kCeil, "ceil", 1, kElementwiseUnary)                                \
  X(kCholesky, "cholesky", 1, kOther)                                   \
  X(kClamp, "clamp", 3, kOther)                                         \
  X(kClz, "count-leading-zeros", 1, kElementwiseUnary)                  \
  X(kCollectiveBroadcast, "collective-broadcast", kVariadic, kOther)    \
  X(kCollectivePermute, "collective-permute", kVariadic, kOther)        \
  X(kCollectivePermuteDone, "collective-permute-done", 1, kOther)       \
  X(kCollectivePermuteStart, "collective-permute-start", kVariadic, kOther) \
  X(kCompare, "compare", 2, kCompare)                                   \
  X(kComplex, "complex", 2, kOther)                                     \
  X(kConcatenate, "concatenate", kVariadic, kOther)                     \
  X(kConditional, "conditional", kVariadic, kOther)                     \
  X(kConstant, "constant", 0, kOther)                                   \
  X(kConvert, "convert", 1, kOther)                                     \
  X(kConvolution, "convolution", 2, kOther)                             \
  X(kCopy, "copy", 1, kElementwiseUnary)                                \
  X(kCopyDone, "copy-done", 1, kOther)                                  \
  X(kCopyStart, "copy-start", 1, kOther)                                \
  X(kCos, "cosine", 1, kElementwiseUnary)                               \
  X(kCosh, "cosh", 1, kElementwiseUnary)                                \
  X(kCustomCall, "custom-call", kVariadic, kOther)                      \
  X(kDivide, "divide", 2, kElementwiseBinary)                           \
  X(kDomain, "domain", 1, kOther)                                       \
  X(kDot, "dot", 2, kOther)                                             \
  X(kDynamicReshape, "dynamic-reshape", kVariadic, kOther)              \
  X(kDynamicSlice, "dynamic-slice", kVariadic, kOther)                  \
  X(kDynamicUpdateSlice, "dynamic-update-slice", kVariadic, kOther)     \
  X(kErf, "erf", 1, kElementwiseUnary)                                  \
  X(kExp, "exponential", 1, kElementwiseUnary)                          \
  X(kExpm1, "exponential-minus-one", 1, kElementwiseUnary)              \
  X(kFft, "fft", 1, kOther)                                             \
  X(kFloor, "floor", 1, kElementwiseUnary)                              \
  X(kFusion, "fusion", kVariadic, kOther)                               \
  X(kGather, "gather", 2, kOther)                                       \
  X(kGetDimensionSize, "get-dimension-size", 1, kOther)                 \
  X(kGetTupleElement, "get-tuple-element", 1, kOther)                   \
  X(kImag, "imag", 1, kOther)                                           \
  X(kInfeed, "infeed", 1, kOther)                                       \
  X(kIota, "iota", 0, kOther)                                           \
  X(kIsFinite, "is-finite", 1, kOther)                                  \
  X(kLog, "log", 1, kElementwiseUnary)                                  \
  X(kLog1p, "log-plus-one", 1, kElementwiseUnary)                       \
  X(kLogistic, "logistic", 1, kElementwiseUnary)                        \
  X(kMap, "map", kVariadic, kOther)                                     \
  X(kMaximum, "maximum", 2, kElementwiseBinary)                         \
  X(kMinimum, "minimum", 2, kElementwiseBinary)                         \
  X(kMultiply, "multiply", 2, kElementwiseBinary)                       \
  X(kNegate, "negate", 1, kElementwiseUnary)                            \
  X(kNot, "not", 1, kElementwiseUnary)                                  \
  X(kOptimizationBarrier, "opt-barrier", 1, kOther)                     \
  X(kOr, "or", 2, kElementwiseBinary)                                   \
  X(kOutfeed, "outfeed", 2, kOther)                                     \
  X(kPad, "pad", 2, kOther)                                             \
  X(kParameter, "parameter", 0, kOther)                                 \
  X(kPartitionId, "partition-id", 0, kOther)                            \
  X(kPopulationCount, "popcnt", 1, kElementwiseUnary)                   \
  X(kPower, "power", 2, kElementwiseBinary)                             \
  X(kRaggedAllToAll, "ragged-all-to-all", 6, kOther)                    \
  X(kRaggedDot, "ragged-dot", 3, kOther)                                \
  X(kReal, "real", 1, kOther)                                           \
  X(kRecv, "recv", 1, kOther)                                           \
  X(kRecvDone, "recv-done", 1, kOther)                                  \
  X(kReduce, "reduce", kVariadic, kOther)                               \
  X(kReducePrecision, "reduce-precision", 1, kElementwiseUnary)         \
  X(kReduceScatter, "reduce-scatter", kVariadic, kOther)                \
  X(kReduceWindow, "reduce-window", kVariadic, kOther)                  \
  X(kRemainder, "remainder", 2, kElementwiseBinary)                     \
  X(kReplicaId, "replica-id", 0, kOther)                                \
  X(kReshape, "reshape", 1, kOther)                                     \
  X(kReverse, "reverse", 1, kOther)                                     \
  X(kRng, "rng", kVariadic, kOther)                                             \
  X(kRngBitGenerator, "rng-bit-generator", 1, kOther)                   \
  X(kRngGetAndUpdateState, "rng-get-and-update-state", 0, kOther)       \
  X(kRoundNearestAfz, "round-nearest-afz", 1, kElementwiseUnary)        \
  X(kRoundNearestEven, "round-nearest-even", 1, kElementwiseUnary)      \
  X(kRsqrt, "rsqrt", 1, kElementwiseUnary)                              \
  X(kScaledDot, "scaled-dot", 4, kOther)                                \
  X(kScan, "scan", kVariadic, kOther)                                   \
  X(kScatter, "scatter", kVariadic, kOther)                             \
  X(kSelect, "select", 3, kOther)                                       \
  X(kSelectAndScatter, "select-and-scatter", 3, kOther)                 \
  X(kSend, "send", 2, kOther)                                           \
  X(kSendDone, "send-done", 1, kOther)                                  \
  X(kSetDimensionSize, "set-dimension-size", 2, kOther)                 \
  X(kShiftLeft, "shift-left", 2, kElementwiseBinary)                    \
  X(kShiftRightArithmetic, "shift-right-arithmetic", 2, kElementwiseBinary) \
  X(kShiftRightLogical, "shift-right-logical", 2, kElementwiseBinary)   \
  X(kSign, "sign", 1, kElementwiseUnary)                                \
  X(kSin, "sine", 1, kElementwiseUnary)                                 \
  X(kSinh, "sinh", 1, kElementwiseUnary)                                \
  X(kSlice, "slice", 1, kOther)                                         \
  X(kSort, "sort", kVariadic, kOther)                                   \
  X(kSqrt, "sqrt", 1, kElementwiseUnary)                                \
  X(kStochasticConvert, "stochastic-convert", 2, kOther)                \
  X(kSubtract, "subtract", 2, kElementwiseBinary)                       \
  X(kTan, "tan", 1, kElementwiseUnary)                                  \
  X(kTanh, "tanh", 1, kElementwiseUnary)                                \
  X(kTopK, "topk", 1, kOther)                                           \
  X(kTranspose, "transpose", 1, kOther)                                 \
  X(kTriangularSolve, "triangular-solve", 2, kOther)                    \
  X(kTuple, "tuple", kVariadic, kOther)                                 \
  X(kWhile, "while", 1, kOther)                                         \
  X(kXor, "xor", 2, kElementwiseBinary)

enum class HloOpcode : uint8_t {
#define XLA_HLO_OPCODE_ENUM_(e, name, arity, cat) e,
  XLA_HLO_OPCODES(XLA_HLO_OPCODE_ENUM_)
#undef XLA_HLO_OPCODE_ENUM_
};

inline constexpr int kHloOpcodeCount = 0
#define XLA_HLO_OPCODE_COUNT_(e, name, arity, cat) +1
    XLA_HLO_OPCODES(XLA_HLO_OPCODE_COUNT_)
#undef XLA_HLO_OPCODE_COUNT_
    ;

// The HLO text name, e.g. "exponential".
absl::string_view HloOpcodeName(HloOpcode op);
// Inverse of HloOpcodeName; nullopt for an unknown name.
std::optional<HloOpcode> HloOpcodeFromName(absl::string_view name);
// Operand count, or kVariadic.
int HloOpcodeArity(HloOpcode op);
OpCategory HloOpcodeCategory(HloOpcode op);

inline bool IsElementwise(HloOpcode op) {
  return HloOpcodeCategory(op) != OpCategory::kOther;
}

}  // namespace xla

#endif  // XLA_HLO_IR_HLO_OPCODE_H_
