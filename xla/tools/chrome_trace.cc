#include "xla/tools/chrome_trace.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace xla::cli {
namespace {

// A JSON string literal of `s` (quotes, backslashes and control characters
// escaped).
std::string Quote(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      absl::StrAppendFormat(&out, "\\u%04x", u);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

bool Measured(const gpu::ThunkTraceEvent& e) { return e.start_ns >= 0 && e.end_ns >= e.start_ns; }

}  // namespace

std::string ChromeTraceJson(const std::deque<gpu::ThunkTraceEvent>& events,
                            absl::string_view process_name) {
  int64_t origin = std::numeric_limits<int64_t>::max();
  std::set<int64_t> streams;
  for (const gpu::ThunkTraceEvent& e : events) {
    if (!Measured(e)) continue;
    origin = std::min(origin, e.start_ns);
    streams.insert(e.stream_id);
  }
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  absl::StrAppend(&out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"name\":",
                  Quote(process_name), "}}");
  for (int64_t s : streams) {
    absl::StrAppend(&out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":", s,
                    ",\"args\":{\"name\":\"stream ", s, "\"}}");
  }
  for (const gpu::ThunkTraceEvent& e : events) {
    if (!Measured(e)) continue;
    const absl::string_view kind = gpu::ThunkKindName(e.kind);
    absl::StrAppendFormat(&out,
                          ",\n{\"name\":%s,\"cat\":\"thunk\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,"
                          "\"pid\":0,\"tid\":%d,\"args\":{\"kind\":%s,\"depth\":%d}}",
                          Quote(e.annotation.empty() ? kind : e.annotation),
                          (e.start_ns - origin) / 1e3, (e.end_ns - e.start_ns) / 1e3, e.stream_id,
                          Quote(kind), e.depth);
  }
  out += "\n]}\n";
  return out;
}

absl::Status WriteChromeTrace(const std::string& path, const std::deque<gpu::ThunkTraceEvent>& events,
                              absl::string_view process_name) {
  std::ofstream file(path, std::ios::binary);
  file << ChromeTraceJson(events, process_name);
  file.close();
  if (!file) return absl::InvalidArgumentError(absl::StrCat("cannot write the trace to ", path));
  return absl::OkStatus();
}

}  // namespace xla::cli
