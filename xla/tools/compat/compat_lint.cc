#include "xla/tools/compat/compat_lint.h"

#include <optional>
#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/strings/ascii.h"

namespace xla::compat {
namespace {

constexpr absl::string_view kMonths[] = {"January", "February", "March",     "April",
                                         "May",     "June",     "July",      "August",
                                         "September", "October", "November", "December"};

// The marker, assembled so that this file does not match itself.
const std::string& Marker() {
  static const std::string* marker = new std::string(std::string("Backward-compatibility") + " fallback");
  return *marker;
}

struct RemovalMonth {
  int year = 0;
  int month = 0;  // 1..12
};

// The removal month of a well-formed fallback comment, or the problem.
struct ParsedComment {
  std::optional<RemovalMonth> removal;
  std::string problem;
};

ParsedComment ParseFallbackComment(const std::string& line) {
  static const std::regex* form = new std::regex(
      R"(// Backward-compatibility fallback for .+\. Can be removed in ([A-Za-z]+) ([0-9]{4}) )"
      R"(\(6 months backward compatibility window\)\.)");
  std::smatch m;
  if (!std::regex_search(line, m, *form)) {
    return {std::nullopt,
            "malformed fallback comment (expected \"// " + Marker() +
                " for <what>. Can be removed in <Month YYYY> (6 months backward compatibility "
                "window).\")"};
  }
  for (int i = 0; i < 12; ++i) {
    if (m[1].str() == kMonths[i]) return {RemovalMonth{std::stoi(m[2].str()), i + 1}, ""};
  }
  return {std::nullopt, "malformed fallback comment: unknown month \"" + m[1].str() + "\""};
}

bool IsPastMonth(const RemovalMonth& removal, absl::CivilDay today) {
  return removal.year * 12 + removal.month < today.year() * 12 + today.month();
}

// The expiry date literal of an alias registration line, or nullopt when the
// line is not one.
std::optional<std::string> AliasExpiry(absl::string_view line) {
  absl::string_view code = absl::StripLeadingAsciiWhitespace(line);
  if (absl::StartsWith(code, "//") || absl::StartsWith(code, "*")) return std::nullopt;
  static const std::regex* registration = new std::regex(
      R"re((RegisterAlias\s*\(|KernelAlias\b).*"[^"]*"\s*,\s*"[^"]*"\s*,\s*"([^"]*)")re");
  std::cmatch m;
  if (!std::regex_search(code.data(), code.data() + code.size(), m, *registration)) return std::nullopt;
  return m[2].str();
}

std::optional<absl::CivilDay> ParseDate(const std::string& date) {
  static const std::regex* form = new std::regex(R"(([0-9]{4})-([0-9]{2})-([0-9]{2}))");
  std::smatch m;
  if (!std::regex_match(date, m, *form)) return std::nullopt;
  const int year = std::stoi(m[1].str()), month = std::stoi(m[2].str()), day = std::stoi(m[3].str());
  const absl::CivilDay parsed(year, month, day);
  // CivilDay normalizes out-of-range fields; an impossible date changes.
  if (parsed.year() != year || parsed.month() != month || parsed.day() != day) return std::nullopt;
  return parsed;
}

std::string Trimmed(absl::string_view line) {
  return std::string(absl::StripAsciiWhitespace(line));
}

}  // namespace

std::string FormatFinding(const LintFinding& finding) {
  return absl::StrCat(finding.path, ":", finding.line, ": ", finding.problem, ": ", finding.text);
}

std::vector<LintFinding> LintCompatMarkers(absl::Span<const SourceText> sources,
                                           absl::CivilDay today) {
  std::vector<LintFinding> findings;
  for (const SourceText& source : sources) {
    const std::vector<std::string> lines = absl::StrSplit(source.text, '\n');
    auto report = [&](size_t index, std::string problem) {
      findings.push_back({source.path, static_cast<int>(index + 1), std::move(problem),
                          Trimmed(lines[index])});
    };
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string& line = lines[i];
      if (line.find(Marker()) != std::string::npos) {
        const ParsedComment comment = ParseFallbackComment(line);
        if (!comment.removal) {
          report(i, comment.problem);
        } else if (IsPastMonth(*comment.removal, today)) {
          report(i, "past due: remove the fallback and reserve its field numbers and names");
        }
      }
      const std::optional<std::string> expiry = AliasExpiry(line);
      if (!expiry) continue;
      std::optional<RemovalMonth> commented;
      bool has_comment = false;
      for (size_t back = 1; back <= kAliasCommentWindow && back <= i; ++back) {
        const std::string& above = lines[i - back];
        if (above.find(Marker()) == std::string::npos) continue;
        has_comment = true;
        commented = ParseFallbackComment(above).removal;
        break;
      }
      if (!has_comment) {
        report(i, absl::StrCat("alias without an expiry comment (put \"// ", Marker(),
                               " for <old name>. Can be removed in <Month YYYY> (6 months backward "
                               "compatibility window).\" on one of the ",
                               kAliasCommentWindow, " lines above it)"));
      }
      const std::optional<absl::CivilDay> date = ParseDate(*expiry);
      if (!date) {
        report(i, "alias expiry \"" + *expiry + "\" is not a valid YYYY-MM-DD date");
        continue;
      }
      if (*date < today) {
        report(i, "alias expired on " + *expiry + ": remove it");
      } else if (commented && (commented->year != date->year() || commented->month != date->month())) {
        report(i, absl::StrCat("alias expires on ", *expiry, " but its comment says ",
                               kMonths[commented->month - 1], " ", commented->year));
      }
    }
  }
  return findings;
}

}  // namespace xla::compat
