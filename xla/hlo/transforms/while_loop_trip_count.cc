#include "xla/hlo/transforms/while_loop_trip_count.h"

#include <string>
#include <variant>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace xla {
namespace {

using Int = __int128;

std::optional<Int> ScalarIntConstant(const HloInstruction& instr) {
  if (instr.opcode() != HloOpcode::kConstant || !instr.has_literal()) return std::nullopt;
  const Literal& lit = instr.literal();
  const PrimitiveType type = lit.shape().element_type();
  if (lit.elided() || !lit.shape().IsScalar() || !IsInteger(type)) return std::nullopt;
  const int64_t v = lit.GetInt(0);
  if (IsUnsignedInt(type) && v < 0) return std::nullopt;  // u64 above 2^63
  return v;
}

// gte(parameter 0 of `c`, i) -> i.
std::optional<int64_t> ParamTupleIndex(const HloInstruction& instr, const HloComputation& c) {
  if (instr.opcode() != HloOpcode::kGetTupleElement || c.num_parameters() != 1) return std::nullopt;
  if (instr.operand(0) != c.parameter_instruction(0)) return std::nullopt;
  return instr.tuple_index();
}

struct LoopTest {
  int64_t index;
  std::string direction;  // induction variable on the left
  Int bound;
};

std::string Flip(const std::string& d) {
  if (d == "LT") return "GT";
  if (d == "GT") return "LT";
  if (d == "LE") return "GE";
  if (d == "GE") return "LE";
  return d;  // EQ, NE
}

std::optional<LoopTest> MatchCondition(const HloComputation& cond) {
  const HloInstruction* root = cond.root_instruction();
  if (root == nullptr || root->opcode() != HloOpcode::kCompare) return std::nullopt;
  const std::string& direction = root->GetString(AttrId::kDirection);
  for (int side = 0; side < 2; ++side) {
    std::optional<int64_t> index = ParamTupleIndex(*root->operand(side), cond);
    std::optional<Int> bound = ScalarIntConstant(*root->operand(1 - side));
    if (index && bound) return LoopTest{*index, side == 0 ? direction : Flip(direction), *bound};
  }
  return std::nullopt;
}

std::optional<Int> MatchStep(const HloComputation& body, int64_t index) {
  const HloInstruction* root = body.root_instruction();
  if (root == nullptr || root->opcode() != HloOpcode::kTuple || index >= root->operand_count()) {
    return std::nullopt;
  }
  const HloInstruction* update = root->operand(index);
  const bool add = update->opcode() == HloOpcode::kAdd;
  if (!add && update->opcode() != HloOpcode::kSubtract) return std::nullopt;
  for (int side = 0; side < (add ? 2 : 1); ++side) {
    if (ParamTupleIndex(*update->operand(side), body) != index) continue;
    std::optional<Int> c = ScalarIntConstant(*update->operand(1 - side));
    if (c) return add ? *c : -*c;
  }
  return std::nullopt;
}

std::optional<Int> MatchInit(const HloInstruction& init, int64_t index) {
  if (init.opcode() == HloOpcode::kTuple) {
    if (index >= init.operand_count()) return std::nullopt;
    return ScalarIntConstant(*init.operand(index));
  }
  if (init.opcode() != HloOpcode::kConstant || !init.has_literal()) return std::nullopt;
  const Literal& lit = init.literal();
  if (!lit.shape().IsTuple() || index >= static_cast<int64_t>(lit.tuple_elements().size())) {
    return std::nullopt;
  }
  const Literal& e = lit.tuple_elements()[index];
  if (!e.shape().IsScalar() || !IsInteger(e.shape().element_type()) || e.elided()) return std::nullopt;
  return e.GetInt(0);
}

Int CeilDiv(Int a, Int b) { return (a + b - 1) / b; }  // a >= 0, b > 0

// Iterations of `for (i = init; i <direction> bound; i += step)`.
std::optional<Int> CountIterations(Int init, Int step, const LoopTest& t) {
  const Int b = t.bound;
  const std::string& d = t.direction;
  if (d == "LT") return init >= b ? Int{0} : step <= 0 ? std::optional<Int>() : CeilDiv(b - init, step);
  if (d == "LE") return init > b ? Int{0} : step <= 0 ? std::optional<Int>() : (b - init) / step + 1;
  if (d == "GT") return init <= b ? Int{0} : step >= 0 ? std::optional<Int>() : CeilDiv(init - b, -step);
  if (d == "GE") return init < b ? Int{0} : step >= 0 ? std::optional<Int>() : (init - b) / -step + 1;
  if (d == "EQ") return init != b ? Int{0} : step != 0 ? std::optional<Int>(1) : std::nullopt;
  if (d == "NE") {
    if (init == b) return Int{0};
    if (step == 0 || (b - init) % step != 0 || (b - init) / step < 0) return std::nullopt;
    return (b - init) / step;
  }
  return std::nullopt;
}

bool FitsType(Int v, PrimitiveType type) {
  const int bits = BitWidth(type);
  if (IsUnsignedInt(type)) return v >= 0 && v < (Int{1} << bits);
  return v >= -(Int{1} << (bits - 1)) && v < (Int{1} << (bits - 1));
}

}  // namespace

std::optional<int64_t> ComputeWhileTripCount(const HloInstruction& while_instr) {
  if (while_instr.opcode() != HloOpcode::kWhile || !while_instr.shape().IsTuple()) return std::nullopt;
  const HloComputation* cond = while_instr.GetComputation(AttrId::kCondition);
  const HloComputation* body = while_instr.GetComputation(AttrId::kBody);
  if (cond == nullptr || body == nullptr) return std::nullopt;
  std::optional<LoopTest> test = MatchCondition(*cond);
  if (!test || test->index < 0 || test->index >= while_instr.shape().tuple_shapes_size()) {
    return std::nullopt;
  }
  const PrimitiveType type = while_instr.shape().tuple_shapes(test->index).element_type();
  std::optional<Int> step = MatchStep(*body, test->index);
  std::optional<Int> init = MatchInit(*while_instr.operand(0), test->index);
  if (!IsInteger(type) || !step || !init) return std::nullopt;
  std::optional<Int> n = CountIterations(*init, *step, *test);
  if (!n || !FitsType(*init, type) || !FitsType(*init + *n * *step, type)) return std::nullopt;
  if (*n > Int{INT64_MAX}) return std::nullopt;
  return static_cast<int64_t>(*n);
}

std::string KnownTripCountConfig(int64_t n) {
  return absl::StrCat("{\"known_trip_count\":{\"n\":\"", n, "\"}}");
}

std::optional<int64_t> RecordedTripCount(const HloInstruction& loop) {
  const AttrValue* value = loop.FindAttr(AttrId::kBackendConfig);
  if (value == nullptr || !std::holds_alternative<std::string>(*value)) return std::nullopt;
  const std::string& config = std::get<std::string>(*value);
  const size_t key = config.find("\"known_trip_count\"");
  if (key == std::string::npos) return std::nullopt;
  const size_t n = config.find("\"n\"", key);
  if (n == std::string::npos) return std::nullopt;
  size_t begin = config.find_first_of("0123456789", n + 3);
  if (begin == std::string::npos) return std::nullopt;
  size_t end = config.find_first_not_of("0123456789", begin);
  int64_t count = 0;
  if (!absl::SimpleAtoi(config.substr(begin, end - begin), &count)) return std::nullopt;
  return count;
}

absl::StatusOr<bool> WhileLoopTripCountAnnotator::Run(HloModule* module) {
  bool changed = false;
  for (const auto& computation : module->computations()) {
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() != HloOpcode::kWhile || instr->has_attr(AttrId::kBackendConfig)) continue;
      std::optional<int64_t> n = ComputeWhileTripCount(*instr);
      if (!n) continue;
      instr->SetAttr(AttrId::kBackendConfig, KnownTripCountConfig(*n));
      changed = true;
    }
  }
  return changed;
}

}  // namespace xla
