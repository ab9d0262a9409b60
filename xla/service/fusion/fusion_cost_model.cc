#include "xla/service/fusion/fusion_cost_model.h"

#include <array>

#include "xla/hlo/transforms/hlo_util.h"

namespace xla {
namespace {

struct CostEntry {
  HloOpcode opcode;
  FusionCostClass cost;
  // Only moves or selects elements: recomputing it per read is a load
  // (FusionRecomputeIsALoad).
  bool moves_data = false;
};

using C = FusionCostClass;
using O = HloOpcode;

// The one table. Elementwise opcodes (HloOpcodeCategory != kOther) that are
// not listed are kCheap; every other opcode not listed is kNeverFuse.
constexpr CostEntry kCostTable[] = {
    // Expensive elementwise: transcendental or iterative in hardware.
    {O::kExp, C::kExpensive},        {O::kExpm1, C::kExpensive},
    {O::kLog, C::kExpensive},        {O::kLog1p, C::kExpensive},
    {O::kPower, C::kExpensive},      {O::kTanh, C::kExpensive},
    {O::kLogistic, C::kExpensive},   {O::kErf, C::kExpensive},
    {O::kSqrt, C::kExpensive},       {O::kRsqrt, C::kExpensive},
    {O::kCbrt, C::kExpensive},       {O::kDivide, C::kExpensive},
    {O::kRemainder, C::kExpensive},  {O::kAtan2, C::kExpensive},
    {O::kSin, C::kExpensive},        {O::kCos, C::kExpensive},
    {O::kTan, C::kExpensive},        {O::kSinh, C::kExpensive},
    {O::kCosh, C::kExpensive},       {O::kAsin, C::kExpensive},
    {O::kAcos, C::kExpensive},       {O::kAtan, C::kExpensive},
    {O::kAsinh, C::kExpensive},      {O::kAcosh, C::kExpensive},
    {O::kAtanh, C::kExpensive},      {O::kGather, C::kExpensive},
    // Cheap non-elementwise: shape and data movement, selection, conversion.
    {O::kBroadcast, C::kCheap, true}, {O::kReshape, C::kCheap, true},
    {O::kTranspose, C::kCheap, true}, {O::kSlice, C::kCheap, true},
    {O::kPad, C::kCheap, true},       {O::kConcatenate, C::kCheap, true},
    {O::kIota, C::kCheap, true},      {O::kConvert, C::kCheap},
    {O::kSelect, C::kCheap},          {O::kClamp, C::kCheap},
    {O::kReverse, C::kCheap, true},   {O::kBitcastConvert, C::kCheap},
    {O::kDynamicSlice, C::kCheap, true}, {O::kIsFinite, C::kCheap},
    {O::kCopy, C::kCheap, true},
    {O::kReal, C::kCheap},           {O::kImag, C::kCheap},
    {O::kComplex, C::kCheap},
    // Reductions and root-only ops.
    {O::kReduce, C::kReduction},     {O::kReduceWindow, C::kRootOnly},
    {O::kDynamicUpdateSlice, C::kRootOnly},
    // Outside every fusion, no kernel of their own.
    {O::kParameter, C::kOutside},    {O::kConstant, C::kOutside, true},
    {O::kGetTupleElement, C::kOutside}, {O::kTuple, C::kOutside},
    {O::kBitcast, C::kOutside, true}, {O::kAfterAll, C::kOutside},
    {O::kAddDependency, C::kOutside}, {O::kDomain, C::kOutside},
    {O::kOptimizationBarrier, C::kOutside},
    {O::kGetDimensionSize, C::kOutside}, {O::kPartitionId, C::kOutside},
    {O::kReplicaId, C::kOutside},
    // Elementwise by category but with effects or stateful semantics.
    {O::kRng, C::kNeverFuse},        {O::kStochasticConvert, C::kNeverFuse},
};

// kCostTable indexed by opcode.
struct Table {
  std::array<FusionCostClass, kHloOpcodeCount> cost;
  std::array<bool, kHloOpcodeCount> moves_data{};
};

Table BuildTable() {
  Table table;
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const HloOpcode op = static_cast<HloOpcode>(i);
    table.cost[i] = IsElementwise(op) ? C::kCheap : C::kNeverFuse;
  }
  for (const CostEntry& e : kCostTable) {
    table.cost[static_cast<int>(e.opcode)] = e.cost;
    table.moves_data[static_cast<int>(e.opcode)] = e.moves_data;
  }
  return table;
}

const Table& TheTable() {
  static const Table table = BuildTable();
  return table;
}

}  // namespace

FusionCostClass FusionCostClassOf(HloOpcode opcode) { return TheTable().cost[static_cast<int>(opcode)]; }

bool FusionRecomputeIsALoad(HloOpcode opcode) { return TheTable().moves_data[static_cast<int>(opcode)]; }

absl::string_view FusionCostClassName(FusionCostClass c) {
  switch (c) {
    case C::kCheap: return "cheap";
    case C::kExpensive: return "expensive";
    case C::kReduction: return "reduction";
    case C::kRootOnly: return "root-only";
    case C::kOutside: return "outside";
    case C::kNeverFuse: return "never-fuse";
  }
  return "unknown";
}

bool FusionMayDuplicate(const HloInstruction& producer, int64_t num_consumers,
                        const FusionLimits& limits) {
  if (producer.opcode() == HloOpcode::kFusion) return false;
  switch (FusionCostClassOf(producer.opcode())) {
    case C::kCheap: return true;
    case C::kExpensive:
      return num_consumers <= 1 ||
             ElementCountOrZero(producer.shape()) <= limits.max_duplicated_expensive_elements;
    case C::kReduction:
    case C::kRootOnly:
    case C::kOutside:
    case C::kNeverFuse: return false;
  }
  return false;
}

bool FusionMayFuseConstant(const HloInstruction& constant, const FusionLimits& limits) {
  if (constant.opcode() != HloOpcode::kConstant || !constant.has_literal()) return false;
  if (!constant.shape().IsArray()) return false;
  const std::optional<int64_t> n = constant.shape().ElementCount();
  return n.has_value() && *n <= limits.max_fused_constant_elements;
}

}  // namespace xla
