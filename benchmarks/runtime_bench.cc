// Runtime figures for docs/perf.md (issue 11): load time against reading the
// same bytes from disk, and dispatch overhead per thunk on the host stream.
//
//   bazel run -c opt //benchmarks:runtime_bench
//
// Load: artifacts written to a temporary directory, then
//   BM_ReadFile        reads the file into a string (the floor);
//   BM_LoadFromFile    Executable::LoadFromFile (parse, checksum, validate,
//                      dlopen of the kernels' shared object);
//   BM_LoadAndInit     LoadFromFile + Initialize on the host device (what a
//                      server pays before its first Execute).
// for "weights" (twelve 4 MiB constants, the shape of a real model's
// payload) and "mlp" (a compiled 3-layer MLP, small payload, one .so);
// "_signed" ones are signed (issue 24) and loaded trusting the key, so the
// difference to the unsigned row is the signature check.
//   BM_PayloadDigest/T the signature's BLAKE2b tree digest of 48 MiB on T
//                      threads (what verification costs beyond Ed25519).
//
// Dispatch: chains of N dependent f32[1] adds compiled without fusion, so
// the program is N kernel thunks of one element each ("empty" kernels).
// BM_ExecuteChain/N reports the Execute time and `per_kernel` (that time
// over the kernel count); the marginal cost of one more kernel thunk is
// (t(512) - t(1)) / 511, computed by hand in docs/perf.md.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "xla/aot/artifact_signing.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/runtime/artifact_signature.h"
#include "xla/backends/gpu/compiler/host_compiler.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/stream_executor/host/host_platform.h"
#include "xla/stream_executor/owning_device_memory.h"
#include "xla/util/logging.h"
#include "xla/util/proto_util.h"

namespace {

namespace se = stream_executor;

se::StreamExecutor* Host() {
  static se::host::HostPlatform* platform = new se::host::HostPlatform();
  static se::StreamExecutor* executor = [] {
    auto device = platform->GetDevice(0);
    XLA_CHECK(device.ok()) << device.status();
    return *device;
  }();
  return executor;
}

std::string TempPath(const std::string& name) {
  static const std::string dir = [] {
    std::string d = (std::filesystem::temp_directory_path() / "xla_aot_runtime_bench").string();
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir + "/" + name;
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  XLA_CHECK(out.good()) << "cannot write " << path;
}

std::string CompileOrDie(const std::string& hlo, bool fusion,
                         xla::gpu::ChecksumAlgorithmProto checksum =
                             xla::gpu::CHECKSUM_ALGORITHM_FNV1A_64) {
  xla::gpu::HostCompilerOptions options;
  options.checksum = checksum;
  options.middle_end.fusion = fusion;
  options.middle_end.multi_output_fusion = fusion;
  options.production_date = "2026-11-30T00:00:00Z";
  absl::StatusOr<std::string> bytes = xla::gpu::CompileHloToHostArtifact(hlo, options);
  XLA_CHECK(bytes.ok()) << bytes.status();
  return *bytes;
}

// Twelve 4 MiB constants and a memset: a payload of weights.
std::string WeightsArtifact(xla::gpu::ChecksumAlgorithmProto checksum) {
  xla::gpu::GpuExecutableProto a;
  a.mutable_header()->set_checksum_algorithm(checksum);
  if (checksum == xla::gpu::CHECKSUM_ALGORITHM_CRC32C) {
    a.mutable_header()->add_required_runtime_features("payload_checksum.crc32c");
  }
  a.mutable_header()->set_format_version(1);
  a.mutable_header()->set_target("host");
  a.mutable_header()->set_compiler_version("runtime_bench");
  auto* p = a.mutable_payload();
  p->set_module_name("weights");
  auto* result = p->mutable_program_shape()->mutable_result();
  result->set_element_type(xla::PRIMITIVE_TYPE_F32);
  result->add_dimensions(4);
  auto* out = p->add_allocations();
  out->set_index(0);
  out->set_size(16);
  out->set_is_output(true);
  auto* slice = p->add_outputs()->mutable_slice();
  slice->set_allocation(0);
  slice->set_size(16);
  auto* dest = p->add_thunks()->mutable_memset()->mutable_destination();
  dest->set_allocation(0);
  dest->set_size(16);
  for (int i = 0; i < 12; ++i) {
    p->add_constants()->set_content(std::string(4 << 20, static_cast<char>('a' + i)));
    auto* alloc = p->add_allocations();
    alloc->set_index(p->allocations_size() - 1);
    alloc->set_size(4 << 20);
    alloc->set_is_constant(true);
    alloc->set_constant_index(i);
  }
  xla::gpu::SealArtifact(&a);
  return xla::SerializeDeterministically(a);
}

const char kMlp[] = R"(
HloModule mlp
ENTRY main {
  x = f32[64,256] parameter(0)
  w1 = f32[256,256] parameter(1)
  w2 = f32[256,64] parameter(2)
  h = f32[64,256] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[64,256] constant(0)
  r = f32[64,256] maximum(h, z)
  ROOT y = f32[64,64] dot(r, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

std::string ChainHlo(int n) {
  std::string text = "HloModule chain\nENTRY main {\n  v0 = f32[1] parameter(0)\n  c = f32[1] parameter(1)\n";
  for (int i = 1; i <= n; ++i) absl::StrAppend(&text, "  v", i, " = f32[1] add(v", i - 1, ", c)\n");
  absl::StrAppend(&text, "  ROOT r = f32[1] copy(v", n, ")\n}\n");
  return text;
}

// The benchmark's signing key, made once in memory.
const xla::aot::SigningKey& BenchKey() {
  static const auto* key = new xla::aot::SigningKey(*xla::aot::GenerateSigningKey());
  return *key;
}

// Artifact files by name, written once.
const std::string& ArtifactFile(const std::string& name) {
  static auto* files = new std::map<std::string, std::string>();
  auto it = files->find(name);
  if (it != files->end()) return it->second;
  const auto checksum = absl::StrContains(name, "_crc32c") ? xla::gpu::CHECKSUM_ALGORITHM_CRC32C
                                                         : xla::gpu::CHECKSUM_ALGORITHM_FNV1A_64;
  std::string bytes = absl::StartsWith(name, "weights") ? WeightsArtifact(checksum)
                                                        : CompileOrDie(kMlp, true, checksum);
  if (absl::EndsWith(name, "_signed")) bytes = *xla::aot::SignArtifactBytes(BenchKey(), bytes, name);
  const std::string path = TempPath(name + ".xaot");
  WriteFile(path, bytes);
  return files->emplace(name, path).first->second;
}

// The same two with CRC-32C checksums (stage 1 of payload_checksum.crc32c).
const char* const kLoadArtifacts[] = {"weights",        "mlp",           "weights_crc32c",
                                      "mlp_crc32c",     "weights_crc32c_signed", "mlp_crc32c_signed"};

xla::aot::LoadOptions TrustingBenchKey() {
  xla::aot::LoadOptions options;
  options.trust.trusted_keys.push_back(BenchKey().public_key);
  return options;
}

void BM_ReadFile(benchmark::State& state) {
  const std::string& path = ArtifactFile(kLoadArtifacts[state.range(0)]);
  int64_t bytes = 0;
  for (auto _ : state) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    std::string data = s.str();
    bytes = static_cast<int64_t>(data.size());
    benchmark::DoNotOptimize(data);
  }
  state.SetLabel(kLoadArtifacts[state.range(0)]);
  state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK(BM_ReadFile)->DenseRange(0, 5)->Unit(benchmark::kMillisecond);

void BM_LoadFromFile(benchmark::State& state) {
  const std::string& path = ArtifactFile(kLoadArtifacts[state.range(0)]);
  for (auto _ : state) {
    auto exe = xla::aot::Executable::LoadFromFile(path, TrustingBenchKey());
    XLA_CHECK(exe.ok()) << exe.status();
    benchmark::DoNotOptimize(exe);
  }
  state.SetLabel(kLoadArtifacts[state.range(0)]);
  state.SetBytesProcessed(state.iterations() * std::filesystem::file_size(path));
}
BENCHMARK(BM_LoadFromFile)->DenseRange(0, 5)->Unit(benchmark::kMillisecond);

void BM_PayloadDigest(benchmark::State& state) {
  const std::string payload(size_t{48} << 20, 'w');
  for (auto _ : state) benchmark::DoNotOptimize(xla::gpu::PayloadDigest(payload, static_cast<int>(state.range(0))));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(payload.size()));
}
BENCHMARK(BM_PayloadDigest)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

void BM_LoadAndInit(benchmark::State& state) {
  const std::string& path = ArtifactFile(kLoadArtifacts[state.range(0)]);
  for (auto _ : state) {
    auto exe = xla::aot::Executable::LoadFromFile(path, TrustingBenchKey());
    XLA_CHECK(exe.ok()) << exe.status();
    XLA_CHECK((*exe)->Initialize(Host()).ok());
    benchmark::DoNotOptimize(exe);
  }
  state.SetLabel(kLoadArtifacts[state.range(0)]);
}
BENCHMARK(BM_LoadAndInit)->DenseRange(0, 5)->Unit(benchmark::kMillisecond);

void BM_ExecuteChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  auto loaded = xla::aot::Executable::LoadFromBytes(CompileOrDie(ChainHlo(n), /*fusion=*/false));
  XLA_CHECK(loaded.ok()) << loaded.status();
  std::unique_ptr<xla::aot::Executable> exe = *std::move(loaded);
  XLA_CHECK(exe->Initialize(Host()).ok());
  auto a = Host()->Allocate(4);
  auto b = Host()->Allocate(4);
  XLA_CHECK(a.ok() && b.ok());
  *static_cast<float*>(a->opaque) = 1.5f;
  *static_cast<float*>(b->opaque) = 0.25f;
  auto run = [&] {
    std::vector<xla::aot::ExecutionArgument> args;
    args.push_back(xla::aot::ExecutionArgument::Borrow(*a));
    args.push_back(xla::aot::ExecutionArgument::Borrow(*b));
    auto out = exe->Execute(Host(), std::move(args));
    XLA_CHECK(out.ok()) << out.status();
    return std::move(*out);
  };
  {
    // The result is checked once: 1.5 + n * 0.25.
    auto out = run();
    const float got = *static_cast<const float*>(out[0].get().opaque);
    XLA_CHECK(got == 1.5f + 0.25f * n) << "chain of " << n << " gave " << got;
  }
  const double kernels = static_cast<double>(exe->program().kernels.size());
  for (auto _ : state) benchmark::DoNotOptimize(run());
  state.counters["kernels"] = kernels;
  // Seconds per kernel thunk, fixed per-Execute cost included.
  state.counters["per_kernel"] = benchmark::Counter(
      kernels, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  XLA_CHECK(Host()->Deallocate(*a).ok());
  XLA_CHECK(Host()->Deallocate(*b).ok());
}
BENCHMARK(BM_ExecuteChain)->Arg(1)->Arg(16)->Arg(128)->Arg(512)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
