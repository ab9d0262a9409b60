// Malformed modules get a clear `file:line:col: message` error, never a crash,
// a hang or an out-of-bounds access (this test also runs under --config=asan).
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

struct Case {
  const char* name;
  std::string text;
  const char* location;  // "line:col" prefix expected after the file name
  const char* message;   // substring expected in the message
};

const char kGood[] = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
}
)";

std::string ManyDims(int n) {
  std::string dims = "1";
  for (int i = 1; i < n; ++i) dims += ",1";
  return absl::StrCat("ENTRY e {\n  p = f32[", dims, "] parameter(0)\n}");
}

std::vector<Case> Cases() {
  return {
      {"empty", "", "1:1", "no computations"},
      {"only_header", "HloModule m\n", "2:1", "no computations"},
      {"truncated_mid_instruction", "ENTRY e {\n  p = f32[4] parameter(", "2:24", "integer"},
      {"truncated_after_brace", "ENTRY e {\n  p = f32[4] parameter(0)\n", "1:7", "missing its closing '}'"},
      {"truncated_shape", "ENTRY e {\n  p = f32[4", "2:12", "expected ','"},
      {"truncated_string", "ENTRY e {\n  p = f32[] custom-call(), custom_call_target=\"abc", "2:47", "unterminated string"},
      {"truncated_comment", "ENTRY e {\n /* never closed", "2:2", "unterminated /* comment"},
      {"unbalanced_close", "ENTRY e {\n  p = f32[] parameter(0)\n}\n}", "4:1", "expected a computation name"},
      {"unbalanced_metadata", "ENTRY e {\n  p = f32[] parameter(0), metadata={op_name=\"x\"\n}", "1:7", "missing its closing '}'"},
      {"unbalanced_raw_bracket", "ENTRY e {\n  p = f32[] parameter(0), sharding={devices=[2]0,1)}\n}", "2:51", "unbalanced ')'"},
      {"unknown_opcode", "ENTRY e {\n  p = f32[] parameter(0)\n  q = f32[] frobnicate(p)\n}", "3:13", "unknown opcode 'frobnicate'"},
      {"unknown_type", "ENTRY e {\n  p = f33[] parameter(0)\n}", "2:7", "unknown element type 'f33'"},
      {"unknown_type_in_operand", "ENTRY e {\n  p = f32[] parameter(0)\n  q = f32[] negate(g32[] p)\n}", "3:20", "unknown element type 'g32'"},
      {"unknown_attribute", "ENTRY e {\n  p = f32[] parameter(0)\n  q = f32[] negate(p), colour=red\n}", "3:24", "unknown attribute 'colour'"},
      {"wrong_operand_count_binary", "ENTRY e {\n  p = f32[] parameter(0)\n  q = f32[] add(p)\n}", "3:3", "add 'q' takes 2 operands but has 1"},
      {"wrong_operand_count_unary", "ENTRY e {\n  p = f32[] parameter(0)\n  q = f32[] negate(p, p)\n}", "3:3", "takes 1 operand but has 2"},
      {"operands_on_nullary", "ENTRY e {\n  q = u32[] replica-id(q)\n}", "2:3", "takes 0 operands but has 1"},
      {"undefined_operand", "ENTRY e {\n  p = f32[] parameter(0)\n  q = f32[] negate(nope)\n}", "3:20", "operand 'nope' of 'q' is not defined"},
      {"operand_from_other_computation", "c {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT q = f32[] add(p, x)\n}", "7:25", "'x' of 'q' is not defined"},
      {"duplicate_instruction", "ENTRY e {\n  p = f32[] parameter(0)\n  p = f32[] negate(p)\n}", "3:3", "instruction 'p' is defined twice"},
      {"duplicate_computation", "c {\n  ROOT x = f32[] parameter(0)\n}\nc {\n  ROOT y = f32[] parameter(0)\n}", "4:1", "computation 'c' is defined twice"},
      {"duplicate_parameter_number", "ENTRY e {\n  p = f32[] parameter(0)\n  q = f32[] parameter(0)\n  ROOT r = f32[] add(p, q)\n}", "3:3", "parameter number 0 is used twice"},
      {"parameter_number_gap", "ENTRY e {\n  p = f32[] parameter(0)\n  q = f32[] parameter(2)\n  ROOT r = f32[] add(p, q)\n}", "3:3", "parameter number 2 is out of range"},
      {"negative_parameter", "ENTRY e {\n  p = f32[] parameter(-1)\n}", "2:23", "must not be negative"},
      {"duplicate_root", "ENTRY e {\n  ROOT p = f32[] parameter(0)\n  ROOT q = f32[] negate(p)\n}", "3:3", "second ROOT"},
      {"duplicate_entry", "ENTRY a {\n  ROOT p = f32[] parameter(0)\n}\nENTRY b {\n  ROOT q = f32[] parameter(0)\n}", "4:1", "second ENTRY"},
      {"empty_computation", "ENTRY e {\n}", "1:7", "has no instructions"},
      // Found by the parser fuzzer: an unclosed bracket in a bare attribute
      // value used to parse and then print as text that did not parse back.
      {"unclosed_bracket_in_raw_value", "ENTRY e {\n  p = f32[] parameter(0), frontend_attributes=v[\n}", "2:49", "unclosed bracket in the value of attribute frontend_attributes"},
      {"mismatched_bracket_in_raw_value", "ENTRY e {\n  p = f32[] parameter(0), frontend_attributes=v[)\n}", "2:49", "unbalanced ')'"},
      {"operand_type_mismatch", "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT q = f32[4] negate(s32[4] p)\n}", "3:33", "is written as s32[4] but 'p' has shape f32[4]"},
      {"operand_dim_mismatch", "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT q = f32[4] negate(f32[5] p)\n}", "3:33", "but 'p' has shape f32[4]"},
      {"bad_direction", "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = pred[] compare(p, p), direction=SIDEWAYS\n}", "3:44", "invalid value 'SIDEWAYS'"},
      {"bad_bool", "ENTRY e {\n  p = f32[3] parameter(0)\n  ROOT s = f32[3] sort(p), dimensions={0}, is_stable=maybe, to_apply=e\n}", "3:54", "expected true or false"},
      {"bad_int_list", "ENTRY e {\n  p = f32[3] parameter(0)\n  ROOT b = f32[3,2] broadcast(p), dimensions={0,,1}\n}", "3:49", "expected an integer"},
      {"bad_slice", "ENTRY e {\n  p = f32[8] parameter(0)\n  ROOT s = f32[4] slice(p), slice={[0:8:0]}\n}", "3:41", "slice stride must be positive"},
      {"bad_window_field", "ENTRY e {\n  p = f32[8] parameter(0)\n  ROOT s = f32[8] negate(p), window={size=3 colour=2}\n}", "3:45", "unknown window field 'colour'"},
      {"window_rank_mismatch", "ENTRY e {\n  p = f32[8] parameter(0)\n  ROOT s = f32[8] negate(p), window={size=3x3 stride=1}\n}", "3:38", "window stride has 1 dimensions, size has 2"},
      {"bad_dim_labels", "ENTRY e {\n  p = f32[8] parameter(0)\n  ROOT s = f32[8] negate(p), dim_labels=bxf_oi->bf\n}", "3:41", "dim_labels 'bxf_oi->bf'"},
      {"bad_padding", "ENTRY e {\n  p = f32[8] parameter(0)\n  ROOT s = f32[8] negate(p), padding=1-2\n}", "3:39", "expected '_'"},
      {"negative_interior_padding", "ENTRY e {\n  p = f32[8] parameter(0)\n  ROOT s = f32[8] negate(p), padding=1_2_-1\n}", "3:42", "interior padding must not be negative"},
      {"duplicate_attribute", "ENTRY e {\n  p = f32[3] parameter(0)\n  ROOT b = f32[3] broadcast(p), dimensions={0}, dimensions={0}\n}", "3:49", "given twice"},
      {"dimension_overflow", "ENTRY e {\n  p = f32[99999999999999999999] parameter(0)\n}", "2:11", "overflows int64"},
      {"attribute_int_overflow", "ENTRY e {\n  p = f32[3] parameter(0)\n  ROOT g = f32[] get-tuple-element(p), index=9223372036854775808\n}", "3:46", "overflows int64"},
      {"negative_dimension", "ENTRY e {\n  p = f32[-3] parameter(0)\n}", "2:11", "negative dimension size -3"},
      {"too_many_dimensions", ManyDims(65), "2:", "more than 64 dimensions"},
      {"bad_layout", "ENTRY e {\n  p = f32[2,3]{0,0} parameter(0)\n}", "2:15", "not a permutation"},
      {"constant_too_few", "ENTRY e {\n  c = f32[3] constant({1, 2})\n}", "2:28", "constant has 2 elements in dimension 0"},
      {"constant_too_many", "ENTRY e {\n  c = f32[2] constant({1, 2, 3})\n}", "2:28", "more than 2 elements"},
      {"constant_out_of_range", "ENTRY e {\n  c = u8[] constant(300)\n}", "2:21", "300 does not fit in u8"},
      {"constant_negative_unsigned", "ENTRY e {\n  c = u32[] constant(-1)\n}", "2:22", "does not fit in u32"},
      {"constant_float_overflow", "ENTRY e {\n  c = f16[] constant(1e10)\n}", "2:22", "overflows f16"},
      {"constant_bad_pred", "ENTRY e {\n  c = pred[] constant(2)\n}", "2:23", "pred values must be"},
      {"constant_huge_shape", "ENTRY e {\n  c = f32[1000000000000] constant({1})\n}", "2:35", "more elements than the text can hold"},
      {"constant_without_shape", "ENTRY e {\n  c = constant(1)\n}", "2:3", "a constant needs a shape"},
      {"parameter_without_shape", "ENTRY e {\n  p = parameter(0)\n}", "2:3", "a parameter needs a shape"},
      {"cycle", "ENTRY e {\n  p = f32[] parameter(0)\n  a = f32[] add(p, b)\n  b = f32[] add(p, a)\n  ROOT r = f32[] negate(a)\n}", "3:", "cycle in computation 'e'"},
      {"self_cycle", "ENTRY e {\n  ROOT a = f32[] negate(a)\n}", "2:8", "cycle in computation 'e': a -> a"},
      {"recursive_computation", "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=e\n}", "1:7", "computation 'e' calls itself: e -> e"},
      {"mutual_recursion", "a {\n  x = f32[] parameter(0)\n  ROOT y = f32[] call(x), to_apply=b\n}\nb {\n  x = f32[] parameter(0)\n  ROOT y = f32[] call(x), to_apply=a\n}\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=a\n}", "1:1", "calls itself: a -> b -> a"},
      {"unknown_computation", "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=nowhere\n}", "3:36", "unknown computation 'nowhere'"},
      {"undefined_control_predecessor", "ENTRY e {\n  p = f32[] parameter(0), control-predecessors={ghost}\n}", "2:48", "control predecessor 'ghost'"},
      {"bad_module_attribute", "HloModule m, replica_count=zero\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}", "1:28", "expected an integer"},
      {"nonpositive_replica_count", "HloModule m, replica_count=0\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}", "1:28", "must be positive"},
      {"bad_alias_kind", "HloModule m, input_output_alias={ {0}: (0, {}, sometimes) }\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}", "1:", "alias kind must be"},
      {"missing_equals", "ENTRY e {\n  p f32[] parameter(0)\n}", "2:5", "expected '='"},
      {"garbage_after_module", std::string(kGood) + "@@@", "12:1", "expected a computation name"},
      {"bad_replica_groups", "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT a = f32[] all-reduce(p), replica_groups=[2,2]<=[3], to_apply=e\n}", "3:48", "equal products"},
      {"bad_escape", "ENTRY e {\n  p = f32[] custom-call(), custom_call_target=\"\\q\"\n}", "2:47", "bad escape"},
      {"deep_nesting", absl::StrCat("ENTRY e {\n  p = ", std::string(2000, '('), "f32[]", std::string(2000, ')'), " parameter(0)\n}"), "2:", "nesting too deep"},
  };
}

TEST(MalformedInput, EveryCaseGetsALocatedError) {
  std::vector<Case> cases = Cases();
  ASSERT_GE(cases.size(), 40u);
  for (const Case& c : cases) {
    absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(c.text, "bad.hlo");
    ASSERT_FALSE(m.ok()) << c.name << " parsed but should not";
    const std::string message(m.status().message());
    EXPECT_TRUE(absl::StartsWith(message, absl::StrCat("bad.hlo:", c.location)))
        << c.name << ": " << message;
    EXPECT_TRUE(absl::StrContains(message, c.message)) << c.name << ": " << message;
  }
}

TEST(MalformedInput, EveryPrefixOfAGoodModuleFailsCleanly) {
  // Truncation anywhere: no crash, and an error (or, for a few prefixes that
  // happen to be complete modules, success).
  const std::string good = kGood;
  ASSERT_TRUE(ParseHloModule(good, "good.hlo").ok());
  for (size_t n = 0; n < good.size(); ++n) {
    absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(good.substr(0, n), "cut.hlo");
    if (!m.ok()) {
      EXPECT_TRUE(absl::StartsWith(m.status().message(), "cut.hlo:")) << n;
    }
  }
}

TEST(MalformedInput, ByteFlipsNeverCrash) {
  const std::string good = kGood;
  const char replacements[] = {'{', '}', '(', ')', ',', '=', '"', '%', '0', 'x', '\0', '\n'};
  for (size_t i = 0; i < good.size(); ++i) {
    for (char r : replacements) {
      std::string bad = good;
      bad[i] = r;
      absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(bad, "flip.hlo");
      if (!m.ok()) {
        EXPECT_TRUE(absl::StartsWith(m.status().message(), "flip.hlo:"));
      }
    }
  }
}

}  // namespace
}  // namespace xla
