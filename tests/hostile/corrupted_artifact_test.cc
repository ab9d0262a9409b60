// Hostile artifacts: real artifacts, compiled here from small HLO modules,
// are truncated, bit-flipped, reordered and edited to absurd sizes. Every
// result must either be rejected with InvalidArgument (a message naming the
// problem) or load, run and give exactly the original outputs. Never a
// crash, a hang, or a load that allocates much more than the file.
//
// A loaded mutant whose payload differs from the original, or whose
// outputs differ, is "undetected corruption" and fails the test. The
// checksum detection rate (flips rejected among flips that changed the
// payload) and the peak heap during load are printed.
//
// What xla/aot/malformed_artifact_test.cc already covers (one hand-written
// artifact, one edit per validation rule, a coarse truncation sweep, a
// recursion bomb) is not repeated here.
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/stubs/logging.h"
#include "gtest/gtest.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/compiler/host_compiler.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/backends/gpu/runtime/program.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/util/logging.h"

// ---- Heap accounting: every operator new in this binary is counted, so the
// peak live heap during one load can be measured.
namespace {

std::atomic<int64_t> g_live{0};
std::atomic<int64_t> g_peak{0};

void* Counted(size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  const int64_t usable = static_cast<int64_t>(malloc_usable_size(p));
  const int64_t live = g_live.fetch_add(usable) + usable;
  int64_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return p;
}

void Uncounted(void* p) {
  if (p == nullptr) return;
  g_live.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)));
  std::free(p);
}

}  // namespace

void* operator new(size_t size) { return Counted(size); }
void* operator new[](size_t size) { return Counted(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  try {
    return Counted(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  try {
    return Counted(size);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { Uncounted(p); }
void operator delete[](void* p) noexcept { Uncounted(p); }
void operator delete(void* p, size_t) noexcept { Uncounted(p); }
void operator delete[](void* p, size_t) noexcept { Uncounted(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { Uncounted(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { Uncounted(p); }

namespace xla::aot {
namespace {

// Protobuf logs every invalid UTF-8 string field it meets while parsing a
// flipped artifact; thousands of those lines would drown the report.
void QuietProtobufLog(google::protobuf::LogLevel, const char*, int, const std::string&) {}
[[maybe_unused]] const bool kQuiet = (google::protobuf::SetLogHandler(&QuietProtobufLog), true);

using ::xla::gpu::GpuExecutableProto;
using ::xla::gpu::ThunkProto;

// Peak heap during a load, in bytes above what was live before it, must
// stay under heap_factor * file size + kHeapSlack. Real artifacts (and
// their flips, truncations, swaps) stay under 8x: ~18x is measured only
// for the 4-6 KiB originals, where the 4 MiB slack dominates. Artifacts of
// hundreds of thousands of tiny messages cost far more heap per wire byte
// (a KernelProto or ThunkProto object plus the runtime object built from
// it, for ~10 wire bytes each): measured ~11x for 200,000 kernels and ~40x
// for 200,000 memset thunks, so those cases get kManySmallMessagesFactor.
constexpr double kHeapFactor = 8.0;
constexpr double kManySmallMessagesFactor = 64.0;
constexpr int64_t kHeapSlack = 4 << 20;
// A load (or a load plus one run) slower than this is a hang.
constexpr double kMaxSeconds = 20.0;

constexpr char kElementwise[] = R"(
HloModule elementwise
ENTRY main {
  x = f32[7,13]{1,0} parameter(0)
  b = f32[13]{0} parameter(1)
  c = f32[13]{0} constant({1.5, -2, 3, 0.25, 5, -6, 7, 8.5, 9, -10, 11, 12, 13.75})
  bc = f32[13]{0} multiply(b, c)
  bb = f32[7,13]{1,0} broadcast(bc), dimensions={1}
  s = f32[7,13]{1,0} add(x, bb)
  m = f32[7,13]{1,0} multiply(s, x)
  ROOT t = f32[7,13]{1,0} tanh(m)
}
)";

constexpr char kDense[] = R"(
HloModule dense
ENTRY main {
  x = f32[5,7]{1,0} parameter(0)
  w = f32[7,3]{1,0} parameter(1)
  b = f32[3]{0} parameter(2)
  d = f32[5,3]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[5,3]{1,0} broadcast(b), dimensions={1}
  s = f32[5,3]{1,0} add(d, bb)
  th = f32[5,3]{1,0} tanh(s)
  ROOT t = (f32[5,3]{1,0}, f32[5,7]{1,0}) tuple(th, x)
}
)";

constexpr char kWhile[] = R"(
HloModule loop
cond {
  p = (s32[], f32[9,11]{1,0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[9,11]{1,0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  v = f32[9,11]{1,0} get-tuple-element(p), index=1
  h = f32[] constant(0.5)
  hb = f32[9,11]{1,0} broadcast(h), dimensions={}
  v1 = f32[9,11]{1,0} multiply(v, hb)
  c = f32[9,11]{1,0} cosine(v)
  v2 = f32[9,11]{1,0} add(v1, c)
  ROOT t = (s32[], f32[9,11]{1,0}) tuple(i1, v2)
}
ENTRY main {
  x = f32[9,11]{1,0} parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[9,11]{1,0}) tuple(zero, x)
  w = (s32[], f32[9,11]{1,0}) while(init), condition=cond, body=body
  ROOT r = f32[9,11]{1,0} get-tuple-element(w), index=1
}
)";

// An artifact compiled from HLO, with its inputs and the outputs the
// unmodified artifact gives.
struct Original {
  std::string name;
  std::string bytes;
  GpuExecutableProto proto;
  std::string payload;  // deterministic serialization of proto.payload()
  std::vector<Literal> args;
  std::vector<Literal> outputs;
};

std::string PayloadBytes(const GpuExecutableProto& a) {
  std::string s;
  google::protobuf::io::StringOutputStream out(&s);
  google::protobuf::io::CodedOutputStream coded(&out);
  coded.SetSerializationDeterministic(true);
  a.payload().SerializeToCodedStream(&coded);
  coded.Trim();
  return s;
}

const Original& GetOriginal(int i) {
  static const std::vector<Original>* all = [] {
    auto* v = new std::vector<Original>();
    const std::pair<const char*, const char*> modules[] = {
        {"elementwise", kElementwise}, {"dense", kDense}, {"while", kWhile}};
    gpu::HostCompilerOptions options;
    options.production_date = "2026-01-01T00:00:00Z";
    options.include_optimized_hlo = true;  // a realistic string section
    uint64_t seed = 11;
    for (const auto& [name, text] : modules) {
      Original o;
      o.name = name;
      auto bytes = gpu::CompileHloToHostArtifact(text, options);
      XLA_CHECK(bytes.ok()) << name << ": " << bytes.status();
      o.bytes = *bytes;
      XLA_CHECK(o.proto.ParseFromString(o.bytes));
      o.payload = PayloadBytes(o.proto);
      auto module = ParseHloModule(text);
      XLA_CHECK(module.ok()) << module.status();
      auto args = MakeRandomInputs(**module, seed++);
      XLA_CHECK(args.ok()) << args.status();
      o.args = std::move(*args);
      auto exe = Executable::LoadFromBytes(o.bytes);
      XLA_CHECK(exe.ok()) << exe.status();
      auto outputs = ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), o.args);
      XLA_CHECK(outputs.ok()) << outputs.status();
      o.outputs = std::move(*outputs);
      v->push_back(std::move(o));
    }
    return v;
  }();
  return (*all)[i];
}
constexpr int kNumOriginals = 3;

enum class Outcome {
  kRejectedParse,     // not a valid GpuExecutableProto
  kRejectedChecksum,  // header.payload_checksum
  kRejectedOther,     // header or validation error
  kLoadedSame,        // loaded, ran, bitwise-equal outputs
  kLoadedRunError,    // loaded, then Initialize/Execute returned an error
  kUndetected,        // loaded with a different payload, or different outputs
};

const char* OutcomeName(Outcome o) {
  static const char* kNames[] = {"rejected_parse", "rejected_checksum", "rejected_other",
                                 "loaded_same",    "loaded_run_error",  "UNDETECTED"};
  return kNames[static_cast<int>(o)];
}

// Counts per outcome, the largest load heap ratio and the slowest case.
struct Tally {
  std::map<Outcome, int64_t> counts;
  int64_t total = 0;
  double max_heap_ratio = 0;
  int64_t max_heap_bytes = 0;
  double max_seconds = 0;
  // Flips only: how many changed the payload, and how many of those were
  // rejected.
  int64_t payload_changed = 0;
  int64_t payload_changed_rejected = 0;

  std::string Summary(const std::string& what) const {
    std::string s = absl::StrCat(what, ": ", total, " cases;");
    for (const auto& [o, n] : counts) absl::StrAppend(&s, " ", OutcomeName(o), "=", n);
    absl::StrAppend(&s, "; peak load heap ", max_heap_bytes, " B (", max_heap_ratio,
                    " x file); slowest ", max_seconds, " s");
    return s;
  }
};

// Loads `bytes`; when it loads, runs it on the original's inputs. Records
// the outcome; fails the test on anything but a clear InvalidArgument, a
// bitwise-identical run, or (when `run_error_ok`) a clean run error.
Outcome Check(const Original& o, const std::string& bytes, const std::string& what, Tally* tally,
              bool run_error_ok = false, double heap_factor = kHeapFactor) {
  ++tally->total;
  const auto start = std::chrono::steady_clock::now();
  const int64_t live_before = g_live.load();
  g_peak.store(live_before);
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(bytes);
  const int64_t heap = g_peak.load() - live_before;
  tally->max_heap_bytes = std::max(tally->max_heap_bytes, heap);
  tally->max_heap_ratio =
      std::max(tally->max_heap_ratio, static_cast<double>(heap) / std::max<size_t>(bytes.size(), 1));
  EXPECT_LE(heap, heap_factor * bytes.size() + kHeapSlack) << o.name << " " << what;
  Outcome outcome;
  if (!exe.ok()) {
    EXPECT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument) << o.name << " " << what << ": " << exe.status();
    EXPECT_GT(exe.status().message().size(), 10u) << o.name << " " << what;
    const absl::string_view msg = exe.status().message();
    if (absl::StrContains(msg, "not a valid GpuExecutableProto")) {
      outcome = Outcome::kRejectedParse;
    } else if (absl::StrContains(msg, "payload_checksum")) {
      outcome = Outcome::kRejectedChecksum;
    } else {
      outcome = Outcome::kRejectedOther;
    }
  } else {
    GpuExecutableProto parsed;
    const bool same_payload = parsed.ParseFromString(bytes) && PayloadBytes(parsed) == o.payload;
    auto outputs = ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), o.args);
    if (!outputs.ok()) {
      outcome = Outcome::kLoadedRunError;
      EXPECT_TRUE(run_error_ok) << o.name << " " << what << ": loaded but failed to run: " << outputs.status();
    } else {
      bool same = outputs->size() == o.outputs.size();
      for (size_t i = 0; same && i < outputs->size(); ++i) same = (*outputs)[i] == o.outputs[i];
      outcome = same ? Outcome::kLoadedSame : Outcome::kUndetected;
      // A changed payload that loads is undetected corruption unless the
      // case deliberately re-sealed it (then only the outputs count).
      if (!same_payload && !run_error_ok) outcome = Outcome::kUndetected;
    }
    EXPECT_NE(outcome, Outcome::kUndetected)
        << o.name << " " << what << ": loaded (payload " << (same_payload ? "unchanged" : "CHANGED")
        << ") and gave different outputs or a changed payload passed the checksum";
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  tally->max_seconds = std::max(tally->max_seconds, seconds);
  EXPECT_LT(seconds, kMaxSeconds) << o.name << " " << what;
  ++tally->counts[outcome];
  return outcome;
}

bool IsRejected(Outcome o) {
  return o == Outcome::kRejectedParse || o == Outcome::kRejectedChecksum || o == Outcome::kRejectedOther;
}

// Also (re)writes the loader fuzzers' seed artifacts: with
// --test_env=XLA_WRITE_SEED_ARTIFACTS=/abs/path/tests/fuzz/corpus/artifact
// each original is written there as <name>.xaot.
TEST(CorruptedArtifact, OriginalsLoadAndRun) {
  const char* seed_dir = getenv("XLA_WRITE_SEED_ARTIFACTS");
  for (int i = 0; i < kNumOriginals; ++i) {
    const Original& o = GetOriginal(i);
    if (seed_dir != nullptr) {
      const std::string path = absl::StrCat(seed_dir, "/", o.name, ".xaot");
      FILE* f = fopen(path.c_str(), "wb");
      ASSERT_NE(f, nullptr) << path;
      ASSERT_EQ(fwrite(o.bytes.data(), 1, o.bytes.size(), f), o.bytes.size());
      fclose(f);
    }
    Tally t;
    EXPECT_EQ(Check(o, o.bytes, "unmodified", &t), Outcome::kLoadedSame) << o.name;
    EXPECT_FALSE(o.proto.payload().host_shared_object().empty()) << o.name;
    EXPECT_GT(o.outputs.size(), 0u);
    printf("%s: %zu bytes, %d thunks, %d allocations, %d kernels\n", o.name.c_str(), o.bytes.size(),
           o.proto.payload().thunks_size(), o.proto.payload().allocations_size(),
           o.proto.payload().kernels_size());
  }
}

TEST(CorruptedArtifact, EveryTruncationOnAGridIsRejected) {
  Tally tally;
  for (int i = 0; i < kNumOriginals; ++i) {
    const Original& o = GetOriginal(i);
    const size_t size = o.bytes.size();
    std::vector<size_t> lengths;
    for (size_t n = 0; n < std::min<size_t>(64, size); ++n) lengths.push_back(n);
    for (size_t n = size > 64 ? size - 64 : 0; n < size; ++n) lengths.push_back(n);
    for (int k = 1; k < 64; ++k) lengths.push_back(size * k / 64);
    std::sort(lengths.begin(), lengths.end());
    lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
    for (size_t n : lengths) {
      const Outcome outcome = Check(o, o.bytes.substr(0, n), absl::StrCat("truncated to ", n), &tally);
      // A strict prefix always drops part of the payload or the header.
      EXPECT_TRUE(IsRejected(outcome)) << o.name << " truncated to " << n << " of " << size;
    }
  }
  printf("%s\n", tally.Summary("truncations").c_str());
  EXPECT_GE(tally.total, 3 * 150);
}

// Single-byte and multi-byte flips at random positions (fixed seed).
TEST(CorruptedArtifact, RandomFlipsAreRejectedOrHarmless) {
  constexpr int kSingle = 2000;
  constexpr int kMulti = 700;
  Tally tally;
  std::mt19937_64 rng(20261129);
  for (int i = 0; i < kNumOriginals; ++i) {
    const Original& o = GetOriginal(i);
    for (int f = 0; f < kSingle + kMulti; ++f) {
      std::string bytes = o.bytes;
      std::string what;
      if (f < kSingle) {
        const size_t at = rng() % bytes.size();
        const uint8_t mask = static_cast<uint8_t>(1 + rng() % 255);
        bytes[at] = static_cast<char>(bytes[at] ^ mask);
        what = absl::StrCat("byte ", at, " ^= ", mask);
      } else if (f % 2 == 0) {  // a burst of 2-16 contiguous bytes
        const size_t len = 2 + rng() % 15;
        const size_t at = rng() % (bytes.size() - len);
        for (size_t k = 0; k < len; ++k) bytes[at + k] = static_cast<char>(rng());
        what = absl::StrCat("burst of ", len, " at ", at);
      } else {  // 2-8 scattered bytes
        const int n = 2 + static_cast<int>(rng() % 7);
        what = "bytes";
        for (int k = 0; k < n; ++k) {
          const size_t at = rng() % bytes.size();
          bytes[at] = static_cast<char>(bytes[at] ^ static_cast<uint8_t>(1 + rng() % 255));
          absl::StrAppend(&what, " ", at);
        }
      }
      if (bytes == o.bytes) continue;
      GpuExecutableProto parsed;
      const bool payload_changed = !parsed.ParseFromString(bytes) || PayloadBytes(parsed) != o.payload;
      const Outcome outcome = Check(o, bytes, what, &tally);
      if (payload_changed) {
        ++tally.payload_changed;
        if (IsRejected(outcome)) ++tally.payload_changed_rejected;
      }
    }
  }
  const int64_t rejected = tally.counts[Outcome::kRejectedParse] + tally.counts[Outcome::kRejectedChecksum] +
                           tally.counts[Outcome::kRejectedOther];
  printf("%s\n", tally.Summary("flips").c_str());
  printf("flips: rejected %lld of %lld applied (%.4f); payload-changing flips rejected %lld of %lld (%.4f)\n",
         static_cast<long long>(rejected), static_cast<long long>(tally.total),
         static_cast<double>(rejected) / tally.total, static_cast<long long>(tally.payload_changed_rejected),
         static_cast<long long>(tally.payload_changed),
         static_cast<double>(tally.payload_changed_rejected) / std::max<int64_t>(1, tally.payload_changed));
  EXPECT_EQ(tally.counts[Outcome::kUndetected], 0);
  EXPECT_EQ(tally.payload_changed_rejected, tally.payload_changed);
  EXPECT_GE(tally.total, 3 * 2600);
}

// ---- Wire-level sections: the top-level records of a message.
struct Record {
  int field;
  size_t begin;
  size_t end;
};

bool ReadVarint(const std::string& s, size_t* pos, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64 && *pos < s.size(); shift += 7) {
    const uint8_t b = static_cast<uint8_t>(s[(*pos)++]);
    *value |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

std::vector<Record> Records(const std::string& s) {
  std::vector<Record> out;
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t begin = pos;
    uint64_t tag = 0, v = 0;
    XLA_CHECK(ReadVarint(s, &pos, &tag));
    switch (tag & 7) {
      case 0:
        XLA_CHECK(ReadVarint(s, &pos, &v));
        break;
      case 1:
        pos += 8;
        break;
      case 2:
        XLA_CHECK(ReadVarint(s, &pos, &v));
        pos += v;
        break;
      case 5:
        pos += 4;
        break;
      default:
        XLA_CHECK(false) << "unexpected wire type " << (tag & 7);
    }
    out.push_back({static_cast<int>(tag >> 3), begin, pos});
  }
  return out;
}

std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

std::string Slice(const std::string& s, const Record& r) { return s.substr(r.begin, r.end - r.begin); }

TEST(CorruptedArtifact, SwappedSections) {
  Tally same_meaning, changed_meaning, raw;
  std::mt19937_64 rng(77);
  for (int i = 0; i < kNumOriginals; ++i) {
    const Original& o = GetOriginal(i);
    const std::vector<Record> top = Records(o.bytes);
    ASSERT_EQ(top.size(), 2u) << o.name;
    std::string header_rec, payload;
    for (const Record& r : top) {
      if (r.field == 1) header_rec = Slice(o.bytes, r);
      if (r.field == 2) {
        size_t pos = r.begin + 1;
        uint64_t len = 0;
        ASSERT_TRUE(ReadVarint(o.bytes, &pos, &len));
        payload = o.bytes.substr(pos, len);
      }
    }
    const std::string payload_rec = "\x12" + Varint(payload.size()) + payload;
    // Payload before header: the same message.
    EXPECT_EQ(Check(o, payload_rec + header_rec, "payload before header", &same_meaning), Outcome::kLoadedSame)
        << o.name;
    // Every pair of adjacent payload records swapped. Different fields: the
    // same message (must load and match). The same repeated field: a
    // different order, a different payload (the checksum must reject it,
    // unless both records are equal).
    const std::vector<Record> recs = Records(payload);
    for (size_t k = 0; k + 1 < recs.size(); ++k) {
      std::string p = payload.substr(0, recs[k].begin) + Slice(payload, recs[k + 1]) + Slice(payload, recs[k]) +
                      payload.substr(recs[k + 1].end);
      const std::string bytes = header_rec + "\x12" + Varint(p.size()) + p;
      const std::string what = absl::StrCat("payload records ", k, " (field ", recs[k].field, ") <-> ", k + 1,
                                            " (field ", recs[k + 1].field, ")");
      if (recs[k].field != recs[k + 1].field || Slice(payload, recs[k]) == Slice(payload, recs[k + 1])) {
        EXPECT_EQ(Check(o, bytes, what, &same_meaning), Outcome::kLoadedSame) << o.name << " " << what;
      } else {
        EXPECT_EQ(Check(o, bytes, what, &changed_meaning), Outcome::kRejectedChecksum) << o.name << " " << what;
      }
    }
    // Random non-adjacent record swaps and raw swaps of equal-size chunks.
    for (int k = 0; k < 100 && recs.size() > 2; ++k) {
      size_t a = rng() % recs.size(), b = rng() % recs.size();
      if (a == b) continue;
      if (a > b) std::swap(a, b);
      std::string p = payload.substr(0, recs[a].begin) + Slice(payload, recs[b]) +
                      payload.substr(recs[a].end, recs[b].begin - recs[a].end) + Slice(payload, recs[a]) +
                      payload.substr(recs[b].end);
      Check(o, header_rec + "\x12" + Varint(p.size()) + p, absl::StrCat("records ", a, " <-> ", b), &raw);
    }
    for (int k = 0; k < 200; ++k) {
      const size_t len = 4 + rng() % 253;
      if (o.bytes.size() < 2 * len) continue;
      const size_t a = rng() % (o.bytes.size() - 2 * len);
      const size_t b = a + len + rng() % (o.bytes.size() - a - 2 * len + 1);
      std::string bytes = o.bytes;
      std::swap_ranges(bytes.begin() + a, bytes.begin() + a + len, bytes.begin() + b);
      if (bytes == o.bytes) continue;
      Check(o, bytes, absl::StrCat("chunks [", a, ", +", len, ") <-> [", b, ", +", len, ")"), &raw);
    }
  }
  printf("%s\n%s\n%s\n", same_meaning.Summary("swaps keeping the meaning").c_str(),
         changed_meaning.Summary("swaps changing the meaning").c_str(), raw.Summary("random swaps").c_str());
  EXPECT_GE(same_meaning.total, 3 * 3);
  EXPECT_GE(raw.total, 3 * 200);
}

// ---- Absurd sizes, re-sealed so that they pass the checksum and reach
// validation.

ThunkProto WrapSequential(std::vector<ThunkProto> thunks, int depth) {
  ThunkProto t;
  for (ThunkProto& inner : thunks) *t.mutable_sequential()->add_thunks() = std::move(inner);
  for (int d = 1; d < depth; ++d) {
    ThunkProto outer;
    *outer.mutable_sequential()->add_thunks() = std::move(t);
    t = std::move(outer);
  }
  return t;
}

ThunkProto WrapWhile(std::vector<ThunkProto> thunks, int depth, const gpu::BufferSliceProto& predicate) {
  ThunkProto t = WrapSequential(std::move(thunks), 1);
  for (int d = 0; d < depth; ++d) {
    ThunkProto outer;
    auto* w = outer.mutable_while_();
    *w->mutable_predicate() = predicate;
    w->set_known_trip_count(1);
    *w->mutable_body()->add_thunks() = std::move(t);
    t = std::move(outer);
  }
  return t;
}

std::string Sealed(GpuExecutableProto a) {
  gpu::SealArtifact(&a);
  return gpu::testing::SerializeArtifact(a);
}

TEST(CorruptedArtifact, AbsurdSizesAreRejectedWithoutHugeAllocations) {
  Tally tally;
  int loaded_valid_programs = 0;
  for (int i = 0; i < kNumOriginals; ++i) {
    const Original& o = GetOriginal(i);
    const auto& payload = o.proto.payload();
    const std::vector<int64_t> huge = {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max() - 7,
                                       int64_t{1} << 62, int64_t{1} << 40};
    // Every allocation's size near 2^63 (rejected at load), and 2^40: a
    // temporary buffer of 1 TiB is structurally valid, so it may load; the
    // run must then fail cleanly (RESOURCE_EXHAUSTED from the device).
    for (int a = 0; a < payload.allocations_size(); ++a) {
      for (int64_t size : huge) {
        GpuExecutableProto m = o.proto;
        m.mutable_payload()->mutable_allocations(a)->set_size(size);
        const bool may_load = size == (int64_t{1} << 40) && payload.allocations(a).is_temp();
        const Outcome outcome =
            Check(o, Sealed(m), absl::StrCat("allocations[", a, "].size = ", size), &tally, may_load);
        if (may_load) {
          EXPECT_NE(outcome, Outcome::kLoadedSame) << o.name << " a 1 TiB temp allocation cannot run";
        } else {
          EXPECT_TRUE(IsRejected(outcome)) << o.name << " allocation " << a << " size " << size;
        }
      }
    }
    // Slices of the first kernel thunk near 2^63.
    for (int t = 0; t < payload.thunks_size(); ++t) {
      if (!payload.thunks(t).has_kernel() || payload.thunks(t).kernel().args_size() == 0) continue;
      for (int64_t v : huge) {
        GpuExecutableProto m = o.proto;
        m.mutable_payload()->mutable_thunks(t)->mutable_kernel()->mutable_args(0)->set_offset(v);
        EXPECT_TRUE(IsRejected(Check(o, Sealed(m), absl::StrCat("thunks[", t, "] args[0].offset = ", v), &tally)));
        m = o.proto;
        m.mutable_payload()->mutable_thunks(t)->mutable_kernel()->mutable_args(0)->set_size(v);
        EXPECT_TRUE(IsRejected(Check(o, Sealed(m), absl::StrCat("thunks[", t, "] args[0].size = ", v), &tally)));
      }
      break;
    }
    // A parameter dimension of 2^40 and num_streams of INT64_MAX.
    if (payload.program_shape().parameters_size() > 0 &&
        payload.program_shape().parameters(0).dimensions_size() > 0) {
      GpuExecutableProto m = o.proto;
      m.mutable_payload()->mutable_program_shape()->mutable_parameters(0)->set_dimensions(0, int64_t{1} << 40);
      EXPECT_TRUE(IsRejected(Check(o, Sealed(m), "parameter dimension 2^40", &tally)));
    }
    {
      GpuExecutableProto m = o.proto;
      m.mutable_payload()->set_num_streams(std::numeric_limits<int64_t>::max());
      EXPECT_TRUE(IsRejected(Check(o, Sealed(m), "num_streams = INT64_MAX", &tally)));
    }
    // 200,000 kernels (unused copies of the first, distinct names): either
    // rejected by a limit or a valid program that runs as before.
    if (payload.kernels_size() > 0) {
      GpuExecutableProto m = o.proto;
      for (int k = 0; k < 200000; ++k) {
        gpu::KernelProto* kernel = m.mutable_payload()->add_kernels();
        *kernel = payload.kernels(0);
        kernel->set_name(absl::StrCat("unused_copy_", k));
      }
      if (!IsRejected(Check(o, Sealed(m), "200000 extra kernels", &tally, /*run_error_ok=*/true,
                               kManySmallMessagesFactor))) {
        ++loaded_valid_programs;
      }
    }
    // 200,000 extra thunks: memsets of the first output allocation, in front
    // of the real program (which then overwrites it), so a load must give
    // the same outputs.
    {
      const gpu::BufferSliceProto out = payload.outputs(0).slice();
      GpuExecutableProto m = o.proto;
      auto* thunks = m.mutable_payload()->mutable_thunks();
      google::protobuf::RepeatedPtrField<ThunkProto> all;
      for (int k = 0; k < 200000; ++k) *all.Add()->mutable_memset()->mutable_destination() = out;
      for (const ThunkProto& t : *thunks) *all.Add() = t;
      thunks->Swap(&all);
      if (!IsRejected(Check(o, Sealed(m), "200000 leading memset thunks", &tally, /*run_error_ok=*/true,
                               kManySmallMessagesFactor))) {
        ++loaded_valid_programs;
      }
    }
    // The whole program nested in sequential thunks: shallow nesting keeps
    // the meaning (must load and match), deep nesting must be rejected.
    std::vector<ThunkProto> program(payload.thunks().begin(), payload.thunks().end());
    for (int depth : {1, 4, 8, 33, 100, 1000, 5000}) {
      GpuExecutableProto m = o.proto;
      m.mutable_payload()->clear_thunks();
      *m.mutable_payload()->add_thunks() = WrapSequential(program, depth);
      const Outcome outcome =
          Check(o, Sealed(m), absl::StrCat("sequential nesting ", depth), &tally, /*run_error_ok=*/true);
      if (depth <= 8) {
        EXPECT_EQ(outcome, Outcome::kLoadedSame) << o.name << " depth " << depth;
      } else {
        EXPECT_TRUE(IsRejected(outcome)) << o.name << " depth " << depth;
      }
    }
    // Nested while thunks (trip count 1) around the program.
    const auto& alloc0 = payload.allocations(0);
    gpu::BufferSliceProto predicate;
    predicate.set_allocation(alloc0.index());
    predicate.set_size(1);
    for (int depth : {40, 1000, 3000}) {
      GpuExecutableProto m = o.proto;
      m.mutable_payload()->clear_thunks();
      *m.mutable_payload()->add_thunks() = WrapWhile(program, depth, predicate);
      EXPECT_TRUE(IsRejected(Check(o, Sealed(m), absl::StrCat("while nesting ", depth), &tally)))
          << o.name << " while depth " << depth;
    }
  }
  printf("%s\n", tally.Summary("absurd sizes").c_str());
  printf("absurd sizes: %d huge-but-valid programs loaded and ran\n", loaded_valid_programs);
  EXPECT_GE(tally.total, 3 * 20);
}

}  // namespace
}  // namespace xla::aot
