// Fuzz target for the thunk deserializer and the artifact validation behind
// it, on structured mutations of valid artifacts. The input is artifact
// bytes; the harness parses them (with the loader's own limits), re-seals
// the payload checksum and loads the proto, so every edit reaches
// validation and DeserializeThunk instead of failing the checksum. The
// custom mutator (used by libFuzzer and by fuzz_driver_main.cc) parses the
// input, applies one to three reflection edits (proto_mutator.h) and
// re-serializes; inputs that do not parse get libFuzzer's byte mutations.
// Nothing is executed. Load failures must be InvalidArgument, and loading
// the sealed bytes from a file (read whole, its large fields left in the
// buffer: program.h) must end exactly as loading the proto does.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>

#include <unistd.h>

#include "absl/strings/string_view.h"
#include "google/protobuf/stubs/logging.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/backends/gpu/runtime/program.h"
#include "xla/util/proto_util.h"
#include "tests/fuzz/proto_mutator.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

// Protobuf logs each invalid UTF-8 string it parses; at thousands of
// inputs a second that is only noise (and slows the fuzzer down).
void QuietProtobufLog(google::protobuf::LogLevel, const char*, int, const std::string&) {}
[[maybe_unused]] const bool kQuiet = (google::protobuf::SetLogHandler(&QuietProtobufLog), true);

}  // namespace

namespace {

// Outcome counts, printed at exit when $FUZZ_STATS is set (to check that
// mutants reach validation and that some still load).
struct Stats {
  int64_t unparsable = 0, rejected = 0, loaded = 0;
  ~Stats() {
    if (getenv("FUZZ_STATS") == nullptr) return;
    fprintf(stderr, "artifact_structure_fuzzer: %lld unparsable, %lld rejected by validation, %lld loaded\n",
            static_cast<long long>(unparsable), static_cast<long long>(rejected), static_cast<long long>(loaded));
  }
};
Stats g_stats;

// Where each sealed mutant is written for LoadFromFile: one file per
// process, under $TEST_TMPDIR (or /tmp).
const std::string& SealedFilePath() {
  static const std::string* path = [] {
    const char* dir = getenv("TEST_TMPDIR");
    return new std::string(std::string(dir != nullptr ? dir : "/tmp") + "/artifact_structure_fuzzer." +
                           std::to_string(getpid()) + ".xaot");
  }();
  return *path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto artifact = xla::gpu::ParseArtifact(bytes);
  if (!artifact.ok()) {
    ++g_stats.unparsable;
    return 0;
  }
  xla::gpu::SealArtifact(artifact->get());
  const std::string sealed = xla::SerializeDeterministically(**artifact);
  auto exe = xla::aot::Executable::LoadFromProto(std::move(*artifact));
  ++(exe.ok() ? g_stats.loaded : g_stats.rejected);
  // A malformed artifact is InvalidArgument; one the trust policy refuses
  // (a signature by a key nobody trusts) is PermissionDenied.
  if (!exe.ok() && exe.status().code() != absl::StatusCode::kInvalidArgument &&
      exe.status().code() != absl::StatusCode::kPermissionDenied) {
    fprintf(stderr, "artifact_structure_fuzzer: load failed with %s, expected InvalidArgument or PermissionDenied\n",
            exe.status().ToString().c_str());
    abort();
  }
  const std::string& path = SealedFilePath();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(sealed.data(), static_cast<std::streamsize>(sealed.size()));
    if (!out.good()) return 0;  // no room to write: nothing to compare
  }
  auto from_file = xla::aot::Executable::LoadFromFile(path);
  if (from_file.ok() != exe.ok() ||
      (!exe.ok() && from_file.status().message() != exe.status().message())) {
    fprintf(stderr,
            "artifact_structure_fuzzer: LoadFromProto and LoadFromFile of the same sealed artifact disagree:\n"
            "  proto: %s\n  file:  %s\n",
            exe.ok() ? "OK" : exe.status().ToString().c_str(),
            from_file.ok() ? "OK" : from_file.status().ToString().c_str());
    abort();
  }
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  auto artifact = xla::gpu::ParseArtifact(absl::string_view(reinterpret_cast<const char*>(data), size));
  if (!artifact.ok()) return LLVMFuzzerMutate(data, size, max_size);
  std::mt19937_64 rng(seed);
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < edits; ++i) xla::fuzz::MutateMessage(artifact->get(), rng);
  std::string out;
  if (!(*artifact)->SerializeToString(&out) || out.size() > max_size) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  memcpy(data, out.data(), out.size());
  return out.size();
}
