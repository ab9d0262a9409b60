// ParseFfiAttributes against hand-written expectations: every value kind,
// the Transformer Engine dictionary from the Llama corpus, and malformed
// input (each error names the instruction, the attribute and the offset).
#include "xla/backends/gpu/ffi/ffi_attribute_parser.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

ffi::Attributes Parse(absl::string_view text) {
  absl::StatusOr<ffi::Attributes> a = ParseFfiAttributes(text, "cc.1");
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? *a : ffi::Attributes();
}

std::string ErrorOf(absl::string_view text) {
  absl::StatusOr<ffi::Attributes> a = ParseFfiAttributes(text, "cc.1");
  if (a.ok()) return "(parsed)";
  EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(a.status().message());
}

TEST(FfiAttributeParser, EveryKind) {
  ffi::Attributes a = Parse(
      R"({attn_heads = 32 : i64, is_training = true, off = false, scaling_factor = 1.000000e+00 : f64, )"
      R"(name = "abc", dims = array<i64: 1, -2, 3>, w = array<f32: 0.5, -2.25>, e = array<i64>, )"
      R"(small = -7 : i8, big = 4294967295 : ui32, half = 2.5e-01 : f32, plain = 9, pf = -1.5})");
  EXPECT_EQ(a.size(), 13u);
  EXPECT_EQ(std::get<int64_t>(a.at("attn_heads")), 32);
  EXPECT_EQ(std::get<bool>(a.at("is_training")), true);
  EXPECT_EQ(std::get<bool>(a.at("off")), false);
  EXPECT_EQ(std::get<double>(a.at("scaling_factor")), 1.0);
  EXPECT_EQ(std::get<std::string>(a.at("name")), "abc");
  EXPECT_EQ(std::get<std::vector<int64_t>>(a.at("dims")), (std::vector<int64_t>{1, -2, 3}));
  EXPECT_EQ(std::get<std::vector<double>>(a.at("w")), (std::vector<double>{0.5, -2.25}));
  EXPECT_TRUE(std::get<std::vector<int64_t>>(a.at("e")).empty());
  EXPECT_EQ(std::get<int64_t>(a.at("small")), -7);
  EXPECT_EQ(std::get<int64_t>(a.at("big")), 4294967295);
  EXPECT_EQ(std::get<double>(a.at("half")), 0.25);
  EXPECT_EQ(std::get<int64_t>(a.at("plain")), 9);
  EXPECT_EQ(std::get<double>(a.at("pf")), -1.5);
}

TEST(FfiAttributeParser, EmptyDictionaryAndWhitespace) {
  EXPECT_TRUE(Parse("{}").empty());
  EXPECT_TRUE(Parse("  { \n }  ").empty());
  ffi::Attributes a = Parse("{\n  x=1:i32 ,\"quoted name\"=\"a\\\"b\\\\c\\n\\41\"\n}");
  EXPECT_EQ(std::get<int64_t>(a.at("x")), 1);
  EXPECT_EQ(std::get<std::string>(a.at("quoted name")), "a\"b\\c\nA");
}

TEST(FfiAttributeParser, IntegerLimitsAndHex) {
  ffi::Attributes a = Parse(
      "{a = -128 : i8, b = 127 : i8, c = 255 : ui8, d = -9223372036854775808 : i64, "
      "e = 9223372036854775807 : ui64, f = 0x10 : i32, g = -2147483648 : si32}");
  EXPECT_EQ(std::get<int64_t>(a.at("a")), -128);
  EXPECT_EQ(std::get<int64_t>(a.at("b")), 127);
  EXPECT_EQ(std::get<int64_t>(a.at("c")), 255);
  EXPECT_EQ(std::get<int64_t>(a.at("d")), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(std::get<int64_t>(a.at("e")), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(std::get<int64_t>(a.at("f")), 16);
  EXPECT_EQ(std::get<int64_t>(a.at("g")), -2147483648);
}

TEST(FfiAttributeParser, FloatBitPatternsAsMlirPrintsThem) {
  ffi::Attributes a = Parse(
      "{inf = 0x7F800000 : f32, nan = 0x7FF8000000000000 : f64, one = 0x3F80 : bf16, "
      "ninf = -inf : f64, i = 3 : f32}");
  EXPECT_TRUE(std::isinf(std::get<double>(a.at("inf"))));
  EXPECT_GT(std::get<double>(a.at("inf")), 0);
  EXPECT_TRUE(std::isnan(std::get<double>(a.at("nan"))));
  EXPECT_EQ(std::get<double>(a.at("one")), 1.0);
  EXPECT_TRUE(std::isinf(std::get<double>(a.at("ninf"))));
  EXPECT_LT(std::get<double>(a.at("ninf")), 0);
  EXPECT_EQ(std::get<double>(a.at("i")), 3.0);
}

// The dictionary of te_fused_attn_forward_ffi in the Llama 3.1 corpus steps.
TEST(FfiAttributeParser, TransformerEngineForward) {
  ffi::Attributes a = Parse(
      "{attn_heads = 128 : i64, bias_batch = 0 : i64, bias_heads = 0 : i64, bias_type = 0 : i64, "
      "deterministic = false, dropout_probability = 0.000000e+00 : f64, input_batch = 1 : i64, "
      "is_training = true, kv_max_seqlen = 8192 : i64, mask_type = 3 : i64, "
      "max_segments_per_seq = 1 : i64, num_gqa_groups = 8 : i64, q_max_seqlen = 8192 : i64, "
      "qk_head_dim = 128 : i64, qkv_layout = 9 : i64, scaling_factor = 1.000000e+00 : f64, "
      "v_head_dim = 128 : i64, window_size_left = -1 : i64, window_size_right = -1 : i64}");
  EXPECT_EQ(a.size(), 19u);
  EXPECT_EQ(std::get<int64_t>(a.at("attn_heads")), 128);
  EXPECT_EQ(std::get<int64_t>(a.at("window_size_left")), -1);
  EXPECT_EQ(std::get<bool>(a.at("deterministic")), false);
  EXPECT_EQ(std::get<double>(a.at("dropout_probability")), 0.0);
}

TEST(FfiAttributeParser, MalformedInputNamesInstructionAttributeAndOffset) {
  EXPECT_EQ(ErrorOf(""), "custom-call 'cc.1': backend_config offset 0: expected '{' to open the attribute dictionary, got the end of the text");
  EXPECT_EQ(ErrorOf("{a = 1"), "custom-call 'cc.1': backend_config offset 6: expected ',' or '}' after an attribute, got the end of the text");
  EXPECT_EQ(ErrorOf("{a 1}"), "custom-call 'cc.1': backend_config offset 3 (attribute 'a'): expected '=' after the attribute name, got '1'");
  EXPECT_EQ(ErrorOf("{heads = 300 : i8}"), "custom-call 'cc.1': backend_config offset 9 (attribute 'heads'): value 300 does not fit i8");
  EXPECT_EQ(ErrorOf("{u = -1 : ui32}"), "custom-call 'cc.1': backend_config offset 5 (attribute 'u'): value -1 does not fit ui32");
  EXPECT_EQ(ErrorOf("{u = 9223372036854775808 : ui64}"), "custom-call 'cc.1': backend_config offset 5 (attribute 'u'): value 9223372036854775808 does not fit ui64 (stored as i64)");
  EXPECT_EQ(ErrorOf("{u = 99999999999999999999}"), "custom-call 'cc.1': backend_config offset 5 (attribute 'u'): value 99999999999999999999 does not fit i64");
  EXPECT_EQ(ErrorOf("{x = 1 : i7}"), "custom-call 'cc.1': backend_config offset 9 (attribute 'x'): unsupported element type 'i7' (expected i8..i64, si8..si64, ui8..ui64, f16, bf16, f32 or f64)");
  EXPECT_EQ(ErrorOf("{x = 1.5 : i32}"), "custom-call 'cc.1': backend_config offset 5 (attribute 'x'): value 1.5 is not an integer but has type i32");
  EXPECT_EQ(ErrorOf("{x = 1, x = 2}"), "custom-call 'cc.1': backend_config offset 8 (attribute 'x'): the attribute appears twice");
  EXPECT_EQ(ErrorOf("{x = \"abc}"), "custom-call 'cc.1': backend_config offset 5 (attribute 'x'): unterminated string");
  EXPECT_EQ(ErrorOf("{x = \"a\\qb\"}"), "custom-call 'cc.1': backend_config offset 7 (attribute 'x'): unknown escape '\\q' in a string");
  EXPECT_EQ(ErrorOf("{x = array<i64: 1, 2}"), "custom-call 'cc.1': backend_config offset 20 (attribute 'x'): expected ',' or '>' in the array, got '}'");
  EXPECT_EQ(ErrorOf("{x = array<i64: 1, 2.5>}"), "custom-call 'cc.1': backend_config offset 19 (attribute 'x'): element 2.5 is not an integer but the array is i64");
  EXPECT_EQ(ErrorOf("{x = array<i8: 1, 200>}"), "custom-call 'cc.1': backend_config offset 18 (attribute 'x'): value 200 does not fit i8");
  EXPECT_EQ(ErrorOf("{x = array<i1: true>}"), "custom-call 'cc.1': backend_config offset 11 (attribute 'x'): unsupported element type 'i1' (expected i8..i64, si8..si64, ui8..ui64, f16, bf16, f32 or f64)");
  EXPECT_EQ(ErrorOf("{x = unit}"), "custom-call 'cc.1': backend_config offset 5 (attribute 'x'): unsupported attribute value 'unit' (expected true, false, a number, a string or array<...>)");
  EXPECT_EQ(ErrorOf("{x = {y = 1}}"), "custom-call 'cc.1': backend_config offset 5 (attribute 'x'): nested dictionaries and lists are not supported FFI attributes");
  EXPECT_EQ(ErrorOf("{x = }"), "custom-call 'cc.1': backend_config offset 5 (attribute 'x'): expected a value (true, false, a number, a string or array<...>), got '}'");
  EXPECT_EQ(ErrorOf("{x = 1} junk"), "custom-call 'cc.1': backend_config offset 8: unexpected text after the closing '}'");
  EXPECT_EQ(ErrorOf("{, }"), "custom-call 'cc.1': backend_config offset 1: expected an attribute name, got ','");
  EXPECT_EQ(ErrorOf("{x = 0x7F800000 : f16}"), "custom-call 'cc.1': backend_config offset 5 (attribute 'x'): hexadecimal bit pattern '0x7F800000' is not a f16");
  EXPECT_EQ(ErrorOf("{x = 12abc}"), "custom-call 'cc.1': backend_config offset 5 (attribute 'x'): expected an integer, got '12abc'");
}

TEST(FfiAttributeParser, OversizeArrayIsRefused) {
  std::string text = "{x = array<i64: 0";
  for (int64_t i = 1; i <= ffi::kMaxAttributeArrayElements; ++i) text += ", 1";
  text += ">}";
  EXPECT_NE(ErrorOf(text).find("array has more than 65536 elements"), std::string::npos);
}

}  // namespace
}  // namespace xla::gpu
