// Host transfers end to end (issue 28): modules with send/recv
// (is_host_transfer=true) compiled with --emit_host_transfers for the host,
// run on the host platform with recording callbacks (what a send sees is
// its operand's bytes, what a recv returns is what its callback fed), the
// four corpus modules among them, checked against the evaluator with the
// same host side; the same modules compile for sm_90;
// without the flag, for a runtime before the feature, or without
// callbacks, the failure names why.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/testing/corpus.h"
#include "xla/types/literal.h"
#include "xla/types/xla_data_convert.h"

namespace xla::aot {
namespace {

CompileOptions Options(const std::string& target = "host", bool emit = true) {
  CompileOptions options;
  options.target = target;
  options.opt_level = 1;
  options.host_cpu_variants.clear();
  options.production_date = "2026-12-03T00:00:00Z";
  options.emit_host_transfers = emit;
  return options;
}

// One send or recv as the callbacks saw it.
struct Call {
  bool send;
  int64_t channel;
  std::string rendezvous;
  std::string shape;
  std::vector<uint8_t> bytes;  // sent, or fed
};

// Callbacks that record every call; recv feeds `fill`(i) for byte i,
// distinct per channel.
class Recorder {
 public:
  gpu::HostTransferCallbacks Callbacks() {
    gpu::HostTransferCallbacks c;
    c.send = [this](int64_t channel, absl::string_view name, const Shape& shape,
                    absl::Span<const uint8_t> data) {
      calls.push_back({true, channel, std::string(name), shape.ToString(false),
                       std::vector<uint8_t>(data.begin(), data.end())});
      return absl::OkStatus();
    };
    c.recv = [this](int64_t channel, absl::string_view name, const Shape& shape,
                    absl::Span<uint8_t> data) {
      for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(7 * i + channel + 1);
      calls.push_back({false, channel, std::string(name), shape.ToString(false),
                       std::vector<uint8_t>(data.begin(), data.end())});
      return absl::OkStatus();
    };
    return c;
  }
  std::vector<Call> calls;
};

// The evaluator's side of the same host transfers: records sends, and a
// recv gets the bytes Recorder feeds (7i + channel + 1).
struct HloEvaluatorHook {
  explicit HloEvaluatorHook(std::vector<Call>* calls) {
    hook.send = [calls](int64_t channel, absl::string_view name, const Literal& data) {
      calls->push_back({true, channel, std::string(name), data.shape().ToString(false),
                        std::vector<uint8_t>(data.data().begin(), data.data().end())});
      return absl::OkStatus();
    };
    hook.recv = [calls](int64_t channel, absl::string_view name,
                        const Shape& shape) -> absl::StatusOr<Literal> {
      Literal l(shape);
      absl::Span<uint8_t> d = l.mutable_data();
      for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<uint8_t>(7 * i + channel + 1);
      calls->push_back({false, channel, std::string(name), shape.ToString(false),
                        std::vector<uint8_t>(d.begin(), d.end())});
      return l;
    };
  }
  HostTransferHook hook;
};

void AppendArrayLeafBytes(const Literal& l, std::vector<std::vector<uint8_t>>* out) {
  if (l.shape().IsArray()) out->emplace_back(l.data().begin(), l.data().end());
  for (const Literal& e : l.tuple_elements()) AppendArrayLeafBytes(e, out);
}

// The bytes of every array leaf, depth-first (tokens left out).
std::vector<std::vector<uint8_t>> ArrayLeafBytes(const Literal& l) {
  std::vector<std::vector<uint8_t>> out;
  AppendArrayLeafBytes(l, &out);
  return out;
}
std::vector<std::vector<uint8_t>> ArrayLeafBytes(const std::vector<Literal>& leaves) {
  std::vector<std::vector<uint8_t>> out;
  for (const Literal& l : leaves) AppendArrayLeafBytes(l, &out);
  return out;
}

// Literal of `shape` with non-zero bytes 3i + seed.
Literal Filled(const Shape& shape, int seed) {
  Literal l(shape);
  absl::Span<uint8_t> d = l.mutable_data();
  for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<uint8_t>(3 * i + seed);
  return l;
}

// Compiles `hlo` for the host with the flag and runs it with `recorder`'s
// callbacks on `args`.
absl::StatusOr<std::vector<Literal>> RunOnHost(const std::string& hlo,
                                               const std::vector<Literal>& args,
                                               const gpu::HostTransferCallbacks* callbacks) {
  absl::StatusOr<CompiledArtifact> compiled = Compile(hlo, Options());
  if (!compiled.ok()) return compiled.status();
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
  if (!exe.ok()) return exe.status();
  ExecuteOptions options;
  options.host_transfers = callbacks;
  return ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), args, options);
}

std::vector<uint8_t> Bytes(const Literal& l) { return {l.data().begin(), l.data().end()}; }

// send x (f32[37], odd), recv y (f32[37]), return x + y: the result is x
// plus what the recv callback fed, elementwise.
TEST(HostTransferTest, SendXRecvYReturnsXPlusWhatTheCallbackFed) {
  const std::string hlo = R"(HloModule xy
ENTRY main {
  x = f32[37] parameter(0)
  tok = token[] parameter(1)
  s = (f32[37], u32[], token[]) send(x, tok), channel_id=2, is_host_transfer=true, frontend_attributes={_xla_host_transfer_rendezvous="x_dtoh"}
  sd = token[] send-done(s), channel_id=2, is_host_transfer=true
  r = (f32[37], u32[], token[]) recv(sd), channel_id=3, is_host_transfer=true, frontend_attributes={_xla_host_transfer_rendezvous="y_htod"}
  rd = (f32[37], token[]) recv-done(r), channel_id=3, is_host_transfer=true
  y = f32[37] get-tuple-element(rd), index=0
  ROOT sum = f32[37] add(x, y)
})";
  std::vector<Literal> args;
  Literal x(Shape::Array(PrimitiveType::F32, {37}));
  float* xs = reinterpret_cast<float*>(x.mutable_data().data());
  for (int i = 0; i < 37; ++i) xs[i] = 0.5f * i - 7.25f;
  args.push_back(x);
  args.push_back(Literal(Shape::Token()));
  gpu::HostTransferCallbacks callbacks;
  std::vector<float> fed(37);
  for (int i = 0; i < 37; ++i) fed[i] = 100.0f + 3 * i;
  std::vector<uint8_t> sent;
  callbacks.send = [&](int64_t channel, absl::string_view name, const Shape& shape,
                       absl::Span<const uint8_t> data) {
    EXPECT_EQ(channel, 2);
    EXPECT_EQ(name, "x_dtoh");
    sent.assign(data.begin(), data.end());
    return absl::OkStatus();
  };
  callbacks.recv = [&](int64_t channel, absl::string_view name, const Shape& shape,
                       absl::Span<uint8_t> data) {
    EXPECT_EQ(channel, 3);
    EXPECT_EQ(name, "y_htod");
    EXPECT_EQ(shape.ToString(false), "f32[37]");
    if (data.size() != fed.size() * 4) return absl::InternalError("size");
    std::memcpy(data.data(), fed.data(), data.size());
    return absl::OkStatus();
  };
  absl::StatusOr<std::vector<Literal>> out = RunOnHost(hlo, args, &callbacks);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(sent, Bytes(x));
  ASSERT_EQ(out->size(), 1u);
  const float* sum = reinterpret_cast<const float*>((*out)[0].data().data());
  for (int i = 0; i < 37; ++i) EXPECT_EQ(sum[i], xs[i] + fed[i]) << i;

  // Without callbacks the run fails naming the thunk, channel and rendezvous.
  absl::StatusOr<std::vector<Literal>> none = RunOnHost(hlo, args, nullptr);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition) << none.status();
  EXPECT_TRUE(absl::StrContains(none.status().message(), "host_send thunk 's'")) << none.status();
  EXPECT_TRUE(absl::StrContains(none.status().message(), "channel 2, rendezvous \"x_dtoh\""))
      << none.status();
}

// A get-tuple-element of the send's element {0} reads the data it sent
// (s32[5], odd): -x back, and x to the callback.
TEST(HostTransferTest, TheSendsOwnDataElementHoldsItsOperand) {
  const std::string hlo = R"(HloModule sg
ENTRY main {
  x = s32[5] parameter(0)
  tok = token[] parameter(1)
  s = (s32[5], u32[], token[]) send(x, tok), channel_id=2, is_host_transfer=true
  sd = token[] send-done(s), channel_id=2, is_host_transfer=true
  g = s32[5] get-tuple-element(s), index=0
  ROOT n = s32[5] negate(g)
})";
  std::vector<Literal> args;
  args.push_back(Filled(Shape::Array(PrimitiveType::S32, {5}), 9));
  args.push_back(Literal(Shape::Token()));
  Recorder recorder;
  const gpu::HostTransferCallbacks callbacks = recorder.Callbacks();
  absl::StatusOr<std::vector<Literal>> out = RunOnHost(hlo, args, &callbacks);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(recorder.calls.size(), 1u);
  EXPECT_EQ(recorder.calls[0].bytes, Bytes(args[0]));
  const int32_t* x = reinterpret_cast<const int32_t*>(args[0].data().data());
  const int32_t* n = reinterpret_cast<const int32_t*>((*out)[0].data().data());
  for (int i = 0; i < 5; ++i) EXPECT_EQ(n[i], -x[i]) << i;
}

std::string ReadCorpus(const std::string& part) {
  absl::StatusOr<std::string> dir = FindHloCorpusDir();
  EXPECT_TRUE(dir.ok()) << dir.status();
  const std::string path = absl::StrCat(dir.value_or("."),
                                        "/xla/hlo__translate__hlo_to_mhlo__tests__", part, ".hlo");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << path;
  return text.str();
}

// The corpus modules and what their callbacks must see: the sends (with
// the argument they send) and the recvs (whose data the result returns).
struct CorpusCase {
  const char* part;
  std::vector<std::string> calls;  // "send 3 _foo_dtoh_0 s32[]", in order
  int sent_parameter;              // -1: none
  int fed_result;                  // result leaf holding the recv's data; -1: none
};

TEST(HostTransferTest, TheCorpusModulesRunOnTheHostWithCallbacks) {
  const CorpusCase cases[] = {
      {"import_async__part000", {"send 3 _foo_dtoh_0 s32[]", "recv 5 _foo_htod_0 s32[]"}, 0, 0},
      {"import_async__part005", {"recv 5  s32[3,4]"}, -1, 0},
      {"import_async__part006", {"send 5  s32[3,4]"}, 0, -1},
      {"import_emit_stablehlo__part104",
       {"send 1 channel_dtoh_0 f32[3,4]", "recv 2 channel_htod_0 f32[3,4]"}, 0, 0},
  };
  for (const CorpusCase& c : cases) {
    SCOPED_TRACE(c.part);
    const std::string hlo = ReadCorpus(c.part);
    absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(hlo, Options());
    ASSERT_TRUE(proto.ok()) << proto.status();
    const auto& features = proto->header().required_runtime_features();
    EXPECT_EQ(std::count(features.begin(), features.end(), "host_transfers"), 1);
    std::vector<Literal> args;
    for (const auto& p : proto->payload().program_shape().parameters()) {
      absl::StatusOr<Shape> shape = ShapeFromProto(p);
      ASSERT_TRUE(shape.ok());
      args.push_back(shape->IsToken() ? Literal(*shape) : Filled(*shape, 5));
    }
    Recorder recorder;
    const gpu::HostTransferCallbacks callbacks = recorder.Callbacks();
    absl::StatusOr<std::vector<Literal>> out = RunOnHost(hlo, args, &callbacks);
    ASSERT_TRUE(out.ok()) << out.status();
    std::vector<std::string> seen;
    for (const Call& call : recorder.calls) {
      seen.push_back(absl::StrCat(call.send ? "send " : "recv ", call.channel, " ",
                                  call.rendezvous, " ", call.shape));
    }
    EXPECT_EQ(seen, c.calls);
    // The evaluator with the same host side is the oracle for the rest.
    std::vector<Call> eval_calls;
    HloEvaluatorHook hook(&eval_calls);
    EvaluatorOptions eval_options;
    eval_options.host_transfers = &hook.hook;
    absl::StatusOr<Literal> want = evaluator_test::EvalText(hlo, args, eval_options);
    ASSERT_TRUE(want.ok()) << want.status();
    EXPECT_EQ(ArrayLeafBytes(*want), ArrayLeafBytes(*out));
    ASSERT_EQ(eval_calls.size(), recorder.calls.size());
    for (size_t i = 0; i < eval_calls.size(); ++i) EXPECT_EQ(eval_calls[i].bytes, recorder.calls[i].bytes);
    for (const Call& call : recorder.calls) {
      if (call.send && c.sent_parameter >= 0) {
        EXPECT_EQ(call.bytes, Bytes(args[c.sent_parameter]));
      }
      if (!call.send && c.fed_result >= 0) {
        ASSERT_GT(out->size(), static_cast<size_t>(c.fed_result));
        EXPECT_EQ(Bytes((*out)[c.fed_result]), call.bytes);
      }
    }
  }
}

TEST(HostTransferTest, TheCorpusModulesCompileForSm90IntoHostTransferThunks) {
  for (const char* part : {"import_async__part000", "import_async__part005",
                           "import_async__part006", "import_emit_stablehlo__part104"}) {
    SCOPED_TRACE(part);
    absl::StatusOr<gpu::GpuExecutableProto> proto =
        CompileToProto(ReadCorpus(part), Options("sm_90"));
    ASSERT_TRUE(proto.ok()) << proto.status();
    int transfers = 0;
    for (const gpu::ThunkProto& t : proto->payload().thunks()) {
      transfers += t.has_host_send() || t.has_host_recv();
    }
    EXPECT_GE(transfers, 1);
  }
}

TEST(HostTransferTest, WithoutTheFlagOrForAnOlderRuntimeCompilationFailsNamingWhy) {
  const std::string hlo = ReadCorpus("import_emit_stablehlo__part104");
  for (const char* target : {"host", "sm_90"}) {
    absl::StatusOr<CompiledArtifact> off = Compile(hlo, Options(target, false));
    ASSERT_FALSE(off.ok());
    EXPECT_TRUE(absl::StrContains(off.status().message(), "--emit_host_transfers")) << off.status();
    CompileOptions older = Options(target);
    older.target_runtime = "2026-12-02";
    absl::StatusOr<CompiledArtifact> old = Compile(hlo, older);
    ASSERT_FALSE(old.ok());
    EXPECT_TRUE(absl::StrContains(old.status().message(), "runtime feature `host_transfers`"))
        << old.status();
  }
}

}  // namespace
}  // namespace xla::aot
