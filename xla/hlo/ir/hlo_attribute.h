// Instruction attributes (`dimensions={0}`, `window={size=3}`, ...): one table.
//
// XLA_HLO_ATTRIBUTES(X) lists every attribute the text format knows as
// X(Enum, "text name", kind, "allowed identifiers")
// The kind decides how the parser reads the value and how the printer writes
// it; the order of the table is the canonical print order. Attributes of kind
// kRaw carry information for other tools (metadata, sharding, backend_config,
// ...) and are kept verbatim, byte for byte.
#ifndef XLA_HLO_IR_HLO_ATTRIBUTE_H_
#define XLA_HLO_IR_HLO_ATTRIBUTE_H_

#include <cstdint>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <variant>
#include <vector>

#include "xla/types/shape.h"

namespace xla {

class HloComputation;

enum class AttrKind : uint8_t {
  kInt,              // 3
  kFloat,            // 1e-05
  kBool,             // true
  kIntList,          // {1,0}
  kBoolList,         // {true,false}
  kIdent,            // EQ (checked against the allowed list when one is given)
  kIdentList,        // {high,highest}, or a list of instruction names
  kString,           // "text"
  kSlice,            // {[0:4:1], [2:3]}
  kWindow,           // {size=3x3 stride=2x2 pad=1_1x1_1 ...}
  kDimLabels,        // b01f_01io->b01f
  kPadding,          // 1_1_0x0_0
  kComputation,      // name
  kComputationList,  // {a, b} or a single name
  kReplicaGroups,    // {{0,1},{2,3}} or [2,2]<=[4] or [2,2]<=[2,2]T(1,0)
  kIntListList,      // {{0,1},{1,2}}
  kShape,            // (s32[6,2]{1,0})
  kShapeList,        // {f32[4]{0}, f32[4]{0}}
  kRaw,              // anything balanced, kept verbatim
};

#define XLA_HLO_ATTRIBUTES(X)                                                   \
  X(kIndex, "index", kInt, "")                                                  \
  X(kIotaDimension, "iota_dimension", kInt, "")                                 \
  X(kSlice, "slice", kSlice, "")                                                \
  X(kDimensions, "dimensions", kIntList, "")                                    \
  X(kDynamicSliceSizes, "dynamic_slice_sizes", kIntList, "")                    \
  X(kPadding, "padding", kPadding, "")                                          \
  X(kWindow, "window", kWindow, "")                                             \
  X(kDimLabels, "dim_labels", kDimLabels, "")                                   \
  X(kFeatureGroupCount, "feature_group_count", kInt, "")                        \
  X(kBatchGroupCount, "batch_group_count", kInt, "")                            \
  X(kLhsBatchDims, "lhs_batch_dims", kIntList, "")                              \
  X(kLhsContractingDims, "lhs_contracting_dims", kIntList, "")                  \
  X(kRhsBatchDims, "rhs_batch_dims", kIntList, "")                              \
  X(kRhsContractingDims, "rhs_contracting_dims", kIntList, "")                  \
  X(kLhsRaggedDims, "lhs_ragged_dims", kIntList, "")                            \
  X(kRhsGroupDims, "rhs_group_dims", kIntList, "")                              \
  X(kOperandPrecision, "operand_precision", kIdentList, "")                     \
  X(kOffsetDims, "offset_dims", kIntList, "")                                   \
  X(kCollapsedSliceDims, "collapsed_slice_dims", kIntList, "")                  \
  X(kStartIndexMap, "start_index_map", kIntList, "")                            \
  X(kOperandBatchingDims, "operand_batching_dims", kIntList, "")                \
  X(kStartIndicesBatchingDims, "start_indices_batching_dims", kIntList, "")     \
  X(kUpdateWindowDims, "update_window_dims", kIntList, "")                      \
  X(kInsertedWindowDims, "inserted_window_dims", kIntList, "")                  \
  X(kScatterDimsToOperandDims, "scatter_dims_to_operand_dims", kIntList, "")    \
  X(kInputBatchingDims, "input_batching_dims", kIntList, "")                    \
  X(kScatterIndicesBatchingDims, "scatter_indices_batching_dims", kIntList, "") \
  X(kIndexVectorDim, "index_vector_dim", kInt, "")                              \
  X(kSliceSizes, "slice_sizes", kIntList, "")                                   \
  X(kIndicesAreSorted, "indices_are_sorted", kBool, "")                         \
  X(kUniqueIndices, "unique_indices", kBool, "")                                \
  X(kDirection, "direction", kIdent, "EQ|NE|LT|LE|GT|GE")                       \
  X(kCompareType, "type", kIdent, "FLOAT|TOTALORDER|SIGNED|UNSIGNED|PARTIALORDER") \
  X(kFusionKind, "kind", kIdent, "kLoop|kInput|kOutput|kCustom")                \
  X(kCalls, "calls", kComputationList, "")                                      \
  X(kCondition, "condition", kComputation, "")                                  \
  X(kBody, "body", kComputation, "")                                            \
  X(kTrueComputation, "true_computation", kComputation, "")                     \
  X(kFalseComputation, "false_computation", kComputation, "")                   \
  X(kBranchComputations, "branch_computations", kComputationList, "")           \
  X(kSelect, "select", kComputation, "")                                        \
  X(kScatter, "scatter", kComputation, "")                                      \
  X(kToApply, "to_apply", kComputation, "")                                     \
  X(kIsStable, "is_stable", kBool, "")                                          \
  X(kK, "k", kInt, "")                                                          \
  X(kLargest, "largest", kBool, "")                                             \
  X(kNumCarries, "num_carries", kInt, "")                                       \
  X(kIsAssociative, "is_associative", kBool, "")                                \
  X(kFeatureIndex, "feature_index", kInt, "")                                   \
  X(kEpsilon, "epsilon", kFloat, "")                                            \
  X(kExponentBits, "exponent_bits", kInt, "")                                   \
  X(kMantissaBits, "mantissa_bits", kInt, "")                                   \
  X(kFftType, "fft_type", kIdent, "FFT|IFFT|RFFT|IRFFT")                        \
  X(kFftLength, "fft_length", kIntList, "")                                     \
  X(kDistribution, "distribution", kIdent, "rng_uniform|rng_normal")           \
  X(kAlgorithm, "algorithm", kIdent, "")                                        \
  X(kDelta, "delta", kInt, "")                                                  \
  X(kLeftSide, "left_side", kBool, "")                                          \
  X(kLower, "lower", kBool, "")                                                 \
  X(kUnitDiagonal, "unit_diagonal", kBool, "")                                  \
  X(kTransposeA, "transpose_a", kIdent, "NO_TRANSPOSE|TRANSPOSE|ADJOINT")       \
  X(kChannelId, "channel_id", kInt, "")                                         \
  X(kReplicaGroups, "replica_groups", kReplicaGroups, "")                       \
  X(kSourceTargetPairs, "source_target_pairs", kIntListList, "")                \
  X(kUseGlobalDeviceIds, "use_global_device_ids", kBool, "")                    \
  X(kConstrainLayout, "constrain_layout", kBool, "")                            \
  X(kSplitDimension, "split_dimension", kInt, "")                               \
  X(kIsHostTransfer, "is_host_transfer", kBool, "")                             \
  X(kCustomCallTarget, "custom_call_target", kString, "")                       \
  X(kCalledComputations, "called_computations", kComputationList, "")           \
  X(kOperandLayoutConstraints, "operand_layout_constraints", kShapeList, "")    \
  X(kOutputToOperandAliasing, "output_to_operand_aliasing", kRaw, "")           \
  X(kCustomCallHasSideEffect, "custom_call_has_side_effect", kBool, "")         \
  X(kSchedule, "schedule", kIdent,                                              \
    "SCHEDULE_NONE|SCHEDULE_LATEST|SCHEDULE_EARLIEST")                          \
  X(kApiVersion, "api_version", kIdent,                                         \
    "API_VERSION_ORIGINAL|API_VERSION_STATUS_RETURNING|"                        \
    "API_VERSION_STATUS_RETURNING_UNIFIED|API_VERSION_TYPED_FFI")               \
  X(kLiteral, "literal", kRaw, "")                                              \
  X(kInfeedConfig, "infeed_config", kString, "")                                \
  X(kOutfeedShape, "outfeed_shape", kShape, "")                                 \
  X(kOutfeedConfig, "outfeed_config", kString, "")                              \
  X(kExecutionThread, "execution_thread", kString, "")                          \
  X(kCrossProgramPrefetchIndex, "cross_program_prefetch_index", kInt, "")       \
  X(kParameterReplication, "parameter_replication", kBoolList, "")              \
  X(kDomain, "domain", kRaw, "")                                                \
  X(kControlPredecessors, "control-predecessors", kIdentList, "")               \
  X(kSharding, "sharding", kRaw, "")                                            \
  X(kOrigin, "origin", kRaw, "")                                                \
  X(kOriginalValue, "original_value", kRaw, "")                                 \
  X(kResultAccuracy, "result_accuracy", kRaw, "")                               \
  X(kFrontendAttributes, "frontend_attributes", kRaw, "")                       \
  X(kStatistics, "statistics", kRaw, "")                                        \
  X(kBackendConfig, "backend_config", kRaw, "")                                 \
  X(kMetadata, "metadata", kRaw, "")

enum class AttrId : uint8_t {
#define XLA_HLO_ATTR_ENUM_(e, name, kind, allowed) e,
  XLA_HLO_ATTRIBUTES(XLA_HLO_ATTR_ENUM_)
#undef XLA_HLO_ATTR_ENUM_
};

absl::string_view AttrName(AttrId id);
AttrKind AttrKindOf(AttrId id);
// The allowed identifiers of a kIdent attribute, "|"-separated ("" = any).
absl::string_view AttrAllowedValues(AttrId id);
std::optional<AttrId> AttrFromName(absl::string_view name);

struct SliceDim {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t stride = 1;
  bool operator==(const SliceDim& o) const {
    return start == o.start && limit == o.limit && stride == o.stride;
  }
};

struct PaddingDim {
  int64_t low = 0;
  int64_t high = 0;
  int64_t interior = 0;
  bool operator==(const PaddingDim& o) const {
    return low == o.low && high == o.high && interior == o.interior;
  }
};

struct WindowDim {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t pad_low = 0;
  int64_t pad_high = 0;
  int64_t lhs_dilate = 1;  // base dilation
  int64_t rhs_dilate = 1;  // window dilation
  bool reversal = false;
  bool operator==(const WindowDim& o) const {
    return size == o.size && stride == o.stride && pad_low == o.pad_low &&
           pad_high == o.pad_high && lhs_dilate == o.lhs_dilate &&
           rhs_dilate == o.rhs_dilate && reversal == o.reversal;
  }
};

struct Window {
  std::vector<WindowDim> dims;
  bool operator==(const Window& o) const { return dims == o.dims; }
};

// Convolution dimension labels, `b01f_01io->b01f`. Spatial dimensions are the
// digits in order; for the kernel, `i` and `o` are input/output features.
struct ConvDimLabels {
  std::string text;  // canonical text
  int64_t input_batch = 0, input_feature = 0;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 0, kernel_output_feature = 0;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0, output_feature = 0;
  std::vector<int64_t> output_spatial;
  bool operator==(const ConvDimLabels& o) const { return text == o.text; }
};

// Replica groups: explicit lists, or the iota form
// `[group_dims]<=[reshape_dims]T(perm)`.
struct ReplicaGroups {
  bool iota = false;
  std::vector<std::vector<int64_t>> groups;  // explicit form
  std::vector<int64_t> group_dims;            // iota form: [num_groups, group_size]
  std::vector<int64_t> reshape_dims;
  std::vector<int64_t> transpose;             // empty = identity
  // Any other form (e.g. `mesh[...] {...}`), kept verbatim; Expand() gives
  // the groups of the mesh-axes form it knows (mesh_replica_groups.h) and
  // none for the others.
  std::string raw;
  // Explicit groups for every form (iota and mesh forms expanded). Returns
  // no groups for a raw form it does not expand and for an invalid iota
  // form (sizes that disagree, a transpose that is not a permutation, or
  // more than 2^20 devices).
  std::vector<std::vector<int64_t>> Expand() const;
  bool operator==(const ReplicaGroups& o) const {
    return iota == o.iota && groups == o.groups && group_dims == o.group_dims &&
           reshape_dims == o.reshape_dims && transpose == o.transpose && raw == o.raw;
  }
};

using AttrValue =
    std::variant<int64_t, double, bool, std::vector<int64_t>, std::vector<bool>,
                 std::string, std::vector<std::string>, std::vector<SliceDim>, Window,
                 ConvDimLabels, std::vector<PaddingDim>, HloComputation*,
                 std::vector<HloComputation*>, ReplicaGroups,
                 std::vector<std::vector<int64_t>>, Shape, std::vector<Shape>>;

// True when `value` holds the alternative that attribute `id`'s kind uses.
bool AttrValueMatchesKind(AttrId id, const AttrValue& value);

// Text of an attribute value as the printer writes it (after `name=`).
std::string AttrValueToString(AttrId id, const AttrValue& value);

// Window and labels helpers shared by the parser and the printer.
std::string WindowToString(const Window& w);
std::string PaddingToString(const std::vector<PaddingDim>& p);
std::string SliceToString(const std::vector<SliceDim>& s);

}  // namespace xla

#endif  // XLA_HLO_IR_HLO_ATTRIBUTE_H_
