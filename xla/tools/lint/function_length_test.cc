#include "xla/tools/lint/function_length.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla::lint {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;

std::vector<std::string> Names(const std::vector<FunctionSpan>& spans) {
  std::vector<std::string> names;
  for (const FunctionSpan& span : spans) names.push_back(span.name);
  return names;
}

TEST(FunctionLength, MeasuresFromTheSignatureToTheClosingBrace) {
  const std::vector<FunctionSpan> spans = FindFunctions(
      "#include <x>\n"                            // 1
      "namespace a {\n"                           // 2
      "absl::Status Foo::Bar(int x,\n"            // 3
      "                      int y) const {\n"    // 4
      "  if (x) {\n"                              // 5
      "    return y;\n"                           // 6
      "  }\n"                                     // 7
      "  auto f = [](int z) { return z; };\n"     // 8
      "}\n"                                       // 9
      "int Baz() { return 1; }\n"                 // 10
      "}  // namespace a\n");                     // 11
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].name, "Foo::Bar");
  EXPECT_EQ(spans[0].first_line, 3);
  EXPECT_EQ(spans[0].last_line, 9);
  EXPECT_EQ(spans[0].lines(), 7);
  EXPECT_EQ(spans[1].name, "Baz");
  EXPECT_EQ(spans[1].lines(), 1);
}

TEST(FunctionLength, ClassesNamespacesAndExternBlocksAreScopesNotFunctions) {
  const std::vector<FunctionSpan> spans = FindFunctions(
      "extern \"C\" {\n"
      "void Entry(void* p) {}\n"
      "}\n"
      "template <class T>\n"
      "class Widget : public Base<T> {\n"
      " public:\n"
      "  explicit Widget(int n) : n_(n) {}\n"
      "  int n() const { return n_; }\n"
      "  struct Inner { int Get() { return 2; } };\n"
      "  enum class Kind { kA, kB };\n"
      " private:\n"
      "  int n_ = 0;\n"
      "};\n"
      "template <typename T> T Twice(T x) { return x + x; }\n");
  EXPECT_THAT(Names(spans), ElementsAre("Entry", "Widget", "n", "Get", "Twice"));
  // The access specifier on the line above is not part of the signature.
  EXPECT_THAT(spans[1], Field(&FunctionSpan::first_line, 7));
}

TEST(FunctionLength, TablesAndInitializersAreNotFunctions) {
  const std::vector<FunctionSpan> spans = FindFunctions(
      "constexpr Entry kTable[] = {\n"
      "    {\"a\", F(1)},\n"
      "    {\"b\", F(2)},\n"
      "};\n"
      "const auto kMap = Make({1, 2});\n"
      "const auto kLambda = [](int x) {\n"
      "  return x;\n"
      "};\n");
  EXPECT_THAT(Names(spans), ElementsAre(""));
  EXPECT_EQ(spans[0].lines(), 3);
}

TEST(FunctionLength, BracesInCommentsStringsAndMacrosAreIgnored) {
  const std::vector<FunctionSpan> spans = FindFunctions(
      "// void NotAFunction() {\n"
      "/* { { { */\n"
      "#define OPEN {\n"
      "#define MULTI(x) \\\n"
      "  { x }\n"
      "int Quote() {\n"
      "  const char* s = \"}}}\";\n"
      "  const char c = '}';\n"
      "  const char* r = R\"x(}\" })x\";\n"
      "  int n = 1'000;\n"
      "  return 0;\n"
      "}\n");
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].name, "Quote");
  EXPECT_EQ(spans[0].first_line, 6);
  EXPECT_EQ(spans[0].last_line, 12);
}

TEST(FunctionLength, BlankNonCodeKeepsLines) {
  const std::string blanked = BlankNonCode("a // x\n\"s;\" b /* c\n d */ e\n");
  EXPECT_EQ(blanked, "a     \n     b     \n      e\n");
}

TEST(FunctionLength, LongFunctionIsReportedWithItsPlace) {
  std::string body = "void Long() {\n";
  for (int i = 0; i < 120; ++i) body += "  ++x;\n";
  body += "}\n";
  const std::vector<FunctionSpan> spans = FindFunctions(body);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].lines(), 122);
  EXPECT_EQ(FormatLongFunction("a/b.cc", spans[0], kMaxFunctionLines),
            "a/b.cc:1: function Long is 122 lines (limit 100): split it into helpers");
}

TEST(FunctionLength, TruncatedSourceReturnsWhatClosed) {
  const std::vector<FunctionSpan> spans = FindFunctions("int A() { return 1; }\nint B() {\n  if (x) {\n");
  EXPECT_THAT(Names(spans), ElementsAre("A"));
  EXPECT_TRUE(FindFunctions("}}}{").empty());
}

}  // namespace
}  // namespace xla::lint
