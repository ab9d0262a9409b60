// Measures the peak heap that loading an artifact takes, against the
// artifact's size: every operator new in this binary is counted. Loading
// must not copy a large payload twice (docs/perf.md, "Runtime load").
#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>

#include "gtest/gtest.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/runtime/checksum.h"
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

}  // namespace
}  // namespace xla::aot
