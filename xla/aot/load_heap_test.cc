// Measures the peak heap that loading an artifact takes, against the
// artifact's size: every operator new in this binary is counted. Loading
// must not copy a large payload twice (docs/perf.md, "Runtime load"), and
// an artifact of many tiny thunks costs its runtime thunk objects and
// nothing per thunk besides (docs/reliability.md, "Peak heap during load").
#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>

#include "gtest/gtest.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/ffi/ffi_registry.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/program.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace {

std::atomic<int64_t> g_live{0};
std::atomic<int64_t> g_peak{0};

void* Counted(size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  const int64_t live = g_live.fetch_add(malloc_usable_size(p)) + malloc_usable_size(p);
  int64_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return p;
}

void Uncounted(void* p) {
  if (p == nullptr) return;
  g_live.fetch_sub(malloc_usable_size(p));
  std::free(p);
}

}  // namespace

void* operator new(size_t size) { return Counted(size); }
void* operator new[](size_t size) { return Counted(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept { return std::malloc(size); }
void operator delete(void* p) noexcept { Uncounted(p); }
void operator delete[](void* p) noexcept { Uncounted(p); }
void operator delete(void* p, size_t) noexcept { Uncounted(p); }
void operator delete[](void* p, size_t) noexcept { Uncounted(p); }

namespace xla::aot {
namespace {

// An artifact whose size is dominated by constants (what a real model's
// payload is: weights) plus the optimized HLO text.
std::string BigArtifact(int64_t* size) {
  gpu::GpuExecutableProto a = gpu::testing::MakeArtifact(R"pb(
payload {
  module_name: "big"
  program_shape { result { element_type: PRIMITIVE_TYPE_F32 dimensions: 4 } }
  allocations { index: 0 size: 16 is_output: true }
  outputs { slice { allocation: 0 size: 16 } }
  thunks { memset { destination { allocation: 0 size: 16 } } }
}
)pb");
  auto* p = a.mutable_payload();
  for (int i = 0; i < 12; ++i) {
    std::string content(4 << 20, static_cast<char>('a' + i));
    p->add_constants()->set_content(content);
    auto* alloc = p->add_allocations();
    alloc->set_index(p->allocations_size() - 1);
    alloc->set_size(content.size());
    alloc->set_is_constant(true);
    alloc->set_constant_index(i);
  }
  p->set_optimized_hlo_text(std::string(8 << 20, 'h'));
  gpu::SealArtifact(&a);
  std::string bytes = gpu::testing::SerializeArtifact(a);
  *size = static_cast<int64_t>(bytes.size());
  return bytes;
}

TEST(LoadHeap, PeakHeapDuringLoadIsAboutOneArtifact) {
  int64_t size = 0;
  std::string bytes = BigArtifact(&size);
  const std::string path = std::string(getenv("TEST_TMPDIR")) + "/big.xaot";
  std::ofstream(path, std::ios::binary) << bytes;

  g_peak = g_live.load();
  int64_t base = g_live.load();
  auto from_bytes = Executable::LoadFromBytes(bytes);
  ASSERT_TRUE(from_bytes.ok()) << from_bytes.status();
  const double bytes_ratio = double(g_peak.load() - base) / size;
  const double bytes_retained = double(g_live.load() - base) / size;
  from_bytes->reset();

  bytes.clear();
  bytes.shrink_to_fit();
  base = g_live.load();
  g_peak = base;
  auto from_file = Executable::LoadFromFile(path);
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  const double file_ratio = double(g_peak.load() - base) / size;
  const double file_retained = double(g_live.load() - base) / size;

  std::printf("RUNTIME_LOAD artifact_bytes=%lld from_bytes_peak_ratio=%.3f from_bytes_retained_ratio=%.3f "
              "from_file_peak_ratio=%.3f from_file_retained_ratio=%.3f\n",
              static_cast<long long>(size), bytes_ratio, bytes_retained, file_ratio, file_retained);
  RecordProperty("from_bytes_peak_ratio", std::to_string(bytes_ratio));
  RecordProperty("from_file_peak_ratio", std::to_string(file_ratio));
  // One copy of the payload (the parsed artifact), plus small tables.
  EXPECT_LT(bytes_ratio, 1.2);
  EXPECT_LT(file_ratio, 1.2);
}


// The smallest thunk kinds on the wire: the worst case for load memory,
// since every thunk becomes a runtime object however small its encoding.
enum class TinyThunk { kMemset, kKernel };

// An artifact of `n` thunks of one kind: memsets of 4 bytes (about 10 bytes
// each on the wire, no annotation), or launches of a host kernel with three
// argument slices and a short annotation (about 50 bytes each).
std::string ManyThunkArtifact(TinyThunk kind, int n, int64_t* size) {
  gpu::GpuExecutableProto a = gpu::testing::MakeArtifact(R"pb(
payload {
  module_name: "many"
  program_shape { result { element_type: PRIMITIVE_TYPE_F32 dimensions: 4 } }
  kernels { name: "add" host_symbol: "add_f32" }
  allocations { index: 0 size: 16 is_output: true }
  outputs { slice { allocation: 0 size: 16 } }
}
)pb");
  auto* thunks = a.mutable_payload()->mutable_thunks();
  thunks->Reserve(n);
  for (int i = 0; i < n; ++i) {
    gpu::ThunkProto* t = thunks->Add();
    if (kind == TinyThunk::kMemset) {
      gpu::BufferSliceProto* d = t->mutable_memset()->mutable_destination();
      d->set_offset(4 * (i % 4));
      d->set_size(4);
      continue;
    }
    t->set_profile_annotation("add." + std::to_string(i));
    gpu::KernelThunkProto* k = t->mutable_kernel();
    for (int j = 0; j < 3; ++j) {
      gpu::BufferSliceProto* arg = k->add_args();
      arg->set_offset(4 * ((i + j) % 4));
      arg->set_size(4);
    }
    gpu::LaunchDimensionsProto* d = k->mutable_launch_dimensions();
    d->set_grid_x(1);
    d->set_grid_y(1);
    d->set_grid_z(1);
    d->set_block_x(1);
    d->set_block_y(1);
    d->set_block_z(1);
  }
  gpu::SealArtifact(&a);
  std::string bytes = gpu::testing::SerializeArtifact(a);
  *size = static_cast<int64_t>(bytes.size());
  return bytes;
}

// How a test loads the artifact.
enum class Path {
  kBytes,        // Executable::LoadFromBytes (a copy of the thunk records)
  kBytesInPlace, // gpu::LoadProgramFromBytes (thunks read from the input)
  kFile,         // Executable::LoadFromFile (thunks read from the mapping)
};

const char* PathName(Path path) {
  switch (path) {
    case Path::kBytes:
      return "LoadFromBytes";
    case Path::kBytesInPlace:
      return "LoadProgramFromBytes";
    case Path::kFile:
      return "LoadFromFile";
  }
  return "?";
}

// The peak heap of one load of `bytes` (stored at `path_name` for kFile),
// relative to the heap before it; checks that all `n` thunks were built.
int64_t PeakOfLoad(Path path, const std::string& bytes, const std::string& file, int n,
                   int64_t* retained) {
  const int64_t base = g_live.load();
  g_peak = base;
  size_t thunks = 0;
  switch (path) {
    case Path::kBytes: {
      auto e = Executable::LoadFromBytes(bytes);
      EXPECT_TRUE(e.ok()) << e.status();
      *retained = g_live.load() - base;
      if (e.ok()) thunks = (*e)->program().root->thunks().size();
      break;
    }
    case Path::kBytesInPlace: {
      auto p = gpu::LoadProgramFromBytes(bytes, gpu::ffi::FfiRegistry::Global());
      EXPECT_TRUE(p.ok()) << p.status();
      *retained = g_live.load() - base;
      if (p.ok()) thunks = (*p)->root->thunks().size();
      break;
    }
    case Path::kFile: {
      auto e = Executable::LoadFromFile(file);
      EXPECT_TRUE(e.ok()) << e.status();
      *retained = g_live.load() - base;
      if (e.ok()) thunks = (*e)->program().root->thunks().size();
      break;
    }
  }
  EXPECT_EQ(thunks, static_cast<size_t>(n)) << PathName(path);
  return g_peak.load() - base;
}

// What the runtime keeps per thunk of each kind (measured; see
// docs/reliability.md): the thunk object, its heap parts (kernel argument
// slices) and its slot in the sequence, plus a few bytes of slack.
constexpr int64_t kMemsetRuntimeBytes = 120;  // measured 112
constexpr int64_t kKernelRuntimeBytes = 320;  // measured 312 (3 arguments; 296 before the
                                               // argument-table pointer, issue 25)

// Loads of 100,000 thunks of ~10 (memset) and ~46 (kernel) wire bytes. A
// runtime thunk is larger than that, so the peak is bounded per thunk:
//   peak <= 1.25 x artifact + 1 MiB + runtime bytes per thunk x thunks,
// where the 1.25 x artifact covers the copy of the thunk records that
// LoadFromBytes makes (the other two paths read them in place). The
// protobuf tree of the thunk list is never alive: one ThunkProto at a time.
TEST(LoadHeap, ManyTinyThunksCostTheirRuntimeObjectsOnly) {
  constexpr int kThunks = 100000;
  for (TinyThunk kind : {TinyThunk::kMemset, TinyThunk::kKernel}) {
    int64_t size = 0;
    const std::string bytes = ManyThunkArtifact(kind, kThunks, &size);
    const std::string file = std::string(getenv("TEST_TMPDIR")) + "/many.xaot";
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    const int64_t per_thunk =
        kind == TinyThunk::kMemset ? kMemsetRuntimeBytes : kKernelRuntimeBytes;
    const int64_t bound = size + size / 4 + (int64_t{1} << 20) + per_thunk * kThunks;
    for (Path path : {Path::kBytes, Path::kBytesInPlace, Path::kFile}) {
      int64_t retained = 0;
      const int64_t peak = PeakOfLoad(path, bytes, file, kThunks, &retained);
      std::printf("MANY_THUNKS kind=%s path=%s thunks=%d artifact_bytes=%lld wire_bytes_per_thunk=%.2f "
                  "peak=%lld retained=%lld peak_ratio=%.2f peak_bytes_per_thunk=%.1f "
                  "retained_bytes_per_thunk=%.1f bound=%lld\n",
                  kind == TinyThunk::kMemset ? "memset" : "kernel", PathName(path), kThunks,
                  static_cast<long long>(size), double(size) / kThunks, static_cast<long long>(peak),
                  static_cast<long long>(retained), double(peak) / size, double(peak) / kThunks,
                  double(retained) / kThunks, static_cast<long long>(bound));
      EXPECT_LE(peak, bound) << PathName(path);
      // Reading in place costs no copy: the runtime objects only.
      if (path != Path::kBytes) {
        EXPECT_LE(peak, (int64_t{1} << 20) + per_thunk * kThunks) << PathName(path);
      }
    }
  }
}

}  // namespace
}  // namespace xla::aot
