// The trace JSON parses (protobuf's JSON parser into a Struct) and has the
// shape chrome://tracing expects: metadata names, one X event per measured
// thunk with microsecond times relative to the first start, children
// inside parents.
#include "xla/tools/chrome_trace.h"

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "xla/tools/bench_command_test_artifact.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/run_command.h"

namespace xla::cli {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

gpu::ThunkTraceEvent Event(gpu::Thunk::Kind kind, std::string annotation, int64_t stream, int depth,
                           int64_t start, int64_t end) {
  gpu::ThunkTraceEvent e;
  e.kind = kind;
  e.annotation = std::move(annotation);
  e.stream_id = stream;
  e.depth = depth;
  e.start_ns = start;
  e.end_ns = end;
  return e;
}

Struct Parse(const std::string& json) {
  Struct doc;
  auto status = google::protobuf::util::JsonStringToMessage(json, &doc);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json;
  return doc;
}

const Value& Field(const Value& v, const std::string& name) {
  return v.struct_value().fields().at(name);
}

TEST(ChromeTrace, ShapeNamesTimesAndNesting) {
  std::deque<gpu::ThunkTraceEvent> events;
  events.push_back(Event(gpu::Thunk::Kind::kWhile, "loop \"w\"", 0, 0, 1'000'000, 1'009'500));
  events.push_back(Event(gpu::Thunk::Kind::kKernel, "", 0, 1, 1'001'250, 1'004'000));
  events.push_back(Event(gpu::Thunk::Kind::kCopy, "cp", 2, 1, 1'004'000, 1'009'000));
  events.push_back(Event(gpu::Thunk::Kind::kGemm, "unmeasured", 0, 0, -1, -1));
  const Struct doc = Parse(ChromeTraceJson(events, "xla_aot run m"));
  const auto& list = doc.fields().at("traceEvents").list_value().values();
  // process name, 2 stream names, 3 measured thunks.
  ASSERT_EQ(list.size(), 6);
  EXPECT_EQ(Field(list[0], "ph").string_value(), "M");
  EXPECT_EQ(Field(Field(list[0], "args"), "name").string_value(), "xla_aot run m");
  EXPECT_EQ(Field(list[1], "name").string_value(), "thread_name");
  EXPECT_EQ(Field(list[1], "tid").number_value(), 0);
  EXPECT_EQ(Field(Field(list[2], "args"), "name").string_value(), "stream 2");
  EXPECT_EQ(Field(list[2], "tid").number_value(), 2);
  const Value& loop = list[3];
  const Value& kernel = list[4];
  const Value& copy = list[5];
  EXPECT_EQ(Field(loop, "name").string_value(), "loop \"w\"");
  EXPECT_EQ(Field(loop, "ph").string_value(), "X");
  EXPECT_DOUBLE_EQ(Field(loop, "ts").number_value(), 0);
  EXPECT_DOUBLE_EQ(Field(loop, "dur").number_value(), 9.5);
  EXPECT_EQ(Field(Field(loop, "args"), "kind").string_value(), "while");
  EXPECT_EQ(Field(kernel, "name").string_value(), "kernel");  // no annotation: the kind
  EXPECT_DOUBLE_EQ(Field(kernel, "ts").number_value(), 1.25);
  EXPECT_DOUBLE_EQ(Field(kernel, "dur").number_value(), 2.75);
  EXPECT_EQ(Field(Field(kernel, "args"), "depth").number_value(), 1);
  EXPECT_EQ(Field(copy, "tid").number_value(), 2);
  for (const Value* child : {&kernel, &copy}) {
    const double ts = Field(*child, "ts").number_value(), dur = Field(*child, "dur").number_value();
    EXPECT_GE(ts, Field(loop, "ts").number_value());
    EXPECT_LE(ts + dur, Field(loop, "ts").number_value() + Field(loop, "dur").number_value());
  }
}

TEST(ChromeTrace, EmptyIsValidAndUnwritablePathFails) {
  const Struct doc = Parse(ChromeTraceJson({}, "p"));
  EXPECT_EQ(doc.fields().at("traceEvents").list_value().values_size(), 1);
  absl::Status s = WriteChromeTrace("/nonexistent-dir/t.json", {}, "p");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent-dir/t.json"), std::string::npos);
}

// End to end: `xla_aot run --trace` on the test artifact: 7 thunk events
// (add, dot, zero, loop, 3 x acc.3), the loop's body inside the loop.
TEST(ChromeTrace, RunTraceWritesTimeline) {
  const std::string artifact = testing::WriteObservabilityArtifact();
  const std::string path = testing::TmpPath("trace.json");
  std::ostringstream out, err;
  ASSERT_EQ(RunRun({artifact, "--random_inputs", "--trace=" + path}, out, err), kExitOk) << err.str();
  EXPECT_TRUE(absl::StartsWith(out.str(), "out0: f32[2,3] {")) << out.str();
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  const Struct doc = Parse(text.str());
  const auto& list = doc.fields().at("traceEvents").list_value().values();
  std::vector<const Value*> thunks;
  const Value* loop = nullptr;
  int acc = 0;
  bool stream0 = false;
  for (const Value& v : list) {
    if (Field(v, "ph").string_value() == "M") {
      stream0 |= Field(v, "name").string_value() == "thread_name" &&
                 Field(Field(v, "args"), "name").string_value() == "stream 0";
      continue;
    }
    thunks.push_back(&v);
    if (Field(v, "name").string_value() == "loop") loop = &v;
    if (Field(v, "name").string_value() == "acc.3") ++acc;
  }
  EXPECT_TRUE(stream0);
  ASSERT_EQ(thunks.size(), 7u) << text.str();
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(acc, 3);
  const double loop_begin = Field(*loop, "ts").number_value();
  const double loop_end = loop_begin + Field(*loop, "dur").number_value();
  double previous_end = 0;
  for (const Value* v : thunks) {
    const double ts = Field(*v, "ts").number_value(), dur = Field(*v, "dur").number_value();
    EXPECT_GE(dur, 0);
    if (Field(*v, "name").string_value() != "acc.3") continue;
    EXPECT_EQ(Field(Field(*v, "args"), "depth").number_value(), 1);
    EXPECT_GE(ts, loop_begin);
    EXPECT_LE(ts + dur, loop_end);
    EXPECT_GE(ts, previous_end);  // iterations run one after another
    previous_end = ts + dur;
  }
  std::ostringstream out2, err2;
  EXPECT_EQ(RunRun({artifact, "--random_inputs", "--trace="}, out2, err2), kExitUsage);
}

}  // namespace
}  // namespace xla::cli
