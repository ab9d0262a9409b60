#include "xla/tools/compat/compat_lint.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla::compat {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// The marker is split so this file's own text never looks like a fallback.
const std::string kFallback = std::string("// Backward-compatibility") + " fallback for ";
const std::string kWindow = " (6 months backward compatibility window).";

std::vector<LintFinding> Lint(const std::string& text, absl::CivilDay today) {
  return LintCompatMarkers({SourceText{"x.cc", text}}, today);
}

TEST(CompatLint, WellFormedCurrentFallbackPasses) {
  const std::string text = "int a;\n  " + kFallback + "plain cubins. Can be removed in June 2027" +
                           kWindow + "\nint b;\n";
  EXPECT_THAT(Lint(text, absl::CivilDay(2026, 12, 13)), IsEmpty());
  // Still current during the removal month itself.
  EXPECT_THAT(Lint(text, absl::CivilDay(2027, 6, 30)), IsEmpty());
}

TEST(CompatLint, FallbackPastItsMonthMustBeRemoved) {
  const std::string text = "\n" + kFallback + "plain cubins. Can be removed in June 2027" + kWindow;
  const std::vector<LintFinding> findings = Lint(text, absl::CivilDay(2027, 7, 1));
  ASSERT_THAT(findings, SizeIs(1));
  EXPECT_EQ(findings[0].line, 2);
  EXPECT_THAT(findings[0].problem, HasSubstr("past due"));
  EXPECT_THAT(findings[0].problem, HasSubstr("reserve"));
  EXPECT_THAT(FormatFinding(findings[0]), HasSubstr("x.cc:2: past due"));
}

TEST(CompatLint, MalformedFallbackCommentsAreReported) {
  const absl::CivilDay today(2026, 12, 1);
  EXPECT_THAT(Lint(kFallback + "x, remove it some day", today)[0].problem, HasSubstr("malformed"));
  EXPECT_THAT(Lint(kFallback + "x. Can be removed in Juin 2027" + kWindow, today)[0].problem,
              HasSubstr("unknown month \"Juin\""));
  EXPECT_THAT(Lint(kFallback + "x. Can be removed in 2027-06" + kWindow, today), SizeIs(1));
}

TEST(CompatLint, AliasWithMatchingCommentPasses) {
  const std::string text = "  " + kFallback + "the old name. Can be removed in May 2027" + kWindow +
                           "\n  s = registry.RegisterAlias({\"old\", \"new\", \"2027-05-01\"});\n";
  EXPECT_THAT(Lint(text, absl::CivilDay(2026, 11, 30)), IsEmpty());
}

TEST(CompatLint, AliasWithoutCommentIsReported) {
  const std::vector<LintFinding> findings =
      Lint("int a;\n{\"old\", \"new\", \"2027-05-01\"},  // KernelAlias\nKernelAlias{\"o\", \"n\", \"2027-05-01\"},\n",
           absl::CivilDay(2026, 11, 30));
  ASSERT_THAT(findings, SizeIs(1));
  EXPECT_EQ(findings[0].line, 3);
  EXPECT_THAT(findings[0].problem, HasSubstr("alias without an expiry comment"));
}

TEST(CompatLint, AliasDatesAreChecked) {
  const std::string comment = kFallback + "o. Can be removed in May 2027" + kWindow + "\n";
  const absl::CivilDay today(2026, 11, 30);
  EXPECT_THAT(Lint(comment + "RegisterAlias({\"o\", \"n\", \"2027-02-30\"});", today)[0].problem,
              HasSubstr("not a valid YYYY-MM-DD date"));
  EXPECT_THAT(Lint(comment + "RegisterAlias({\"o\", \"n\", \"May 2027\"});", today)[0].problem,
              HasSubstr("not a valid"));
  EXPECT_THAT(Lint(comment + "RegisterAlias({\"o\", \"n\", \"2027-06-01\"});", today)[0].problem,
              HasSubstr("but its comment says May 2027"));
  // Past due: both the comment (month over) and the alias (date over).
  const std::vector<LintFinding> late =
      Lint(comment + "RegisterAlias({\"o\", \"n\", \"2027-05-01\"});", absl::CivilDay(2027, 6, 2));
  ASSERT_THAT(late, SizeIs(2));
  EXPECT_THAT(late[1].problem, HasSubstr("alias expired on 2027-05-01"));
}

TEST(CompatLint, CommentedOutRegistrationsAreNotAliases) {
  EXPECT_THAT(Lint("// RegisterAlias({\"o\", \"n\", \"bad\"});\n", absl::CivilDay(2026, 11, 30)),
              IsEmpty());
}

}  // namespace
}  // namespace xla::compat
