#include "xla/backends/gpu/runtime/memory_report.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace xla::gpu {
namespace {

BufferAllocationProto* Add(GpuExecutablePayloadProto* p, int64_t size) {
  BufferAllocationProto* a = p->add_allocations();
  a->set_index(p->allocations_size() - 1);
  a->set_size(size);
  return a;
}

// Two parameters (one aliased with an output), a constant, an output, a
// device temp of 1000 bytes (rounded to 1024) and a host temp of 300
// (rounded to 512): figures computed by hand.
GpuExecutablePayloadProto SmallPayload() {
  GpuExecutablePayloadProto p;
  Add(&p, 140)->set_is_parameter(true);
  BufferAllocationProto* aliased = Add(&p, 60);
  aliased->set_is_parameter(true);
  aliased->set_parameter_number(1);
  aliased->set_is_output(true);
  Add(&p, 12)->set_is_constant(true);
  Add(&p, 36)->set_is_output(true);
  Add(&p, 1000)->set_is_temp(true);
  BufferAllocationProto* host = Add(&p, 300);
  host->set_is_temp(true);
  host->set_memory_space(5);
  return p;
}

TEST(MemoryReportTest, FiguresOfASmallTable) {
  const MemoryReport r = ComputeMemoryReport(SmallPayload());
  EXPECT_EQ(r.parameter_bytes, 200);
  EXPECT_EQ(r.aliased_bytes, 60);
  EXPECT_EQ(r.constant_bytes, 12);
  EXPECT_EQ(r.output_bytes, 36);
  EXPECT_EQ(r.temp_bytes, 1024);
  EXPECT_EQ(r.host_offloaded_bytes, 512);
  EXPECT_EQ(r.peak_bytes, 200 + 12 + 36 + 1024);
  const std::string text = FormatMemoryReport(r, "");
  EXPECT_TRUE(absl::StrContains(text, "peak 1.2 KiB (1272 bytes)")) << text;
  EXPECT_TRUE(absl::StrContains(text, "temporaries 1.0 KiB (1024 bytes)")) << text;
  EXPECT_TRUE(absl::StrContains(text, "host memory (offloaded): 512 bytes")) << text;
}

TEST(MemoryReportTest, NoHostLineWithoutOffloading) {
  GpuExecutablePayloadProto p;
  Add(&p, 8)->set_is_output(true);
  const std::string text = FormatMemoryReport(ComputeMemoryReport(p), "  ");
  EXPECT_FALSE(absl::StrContains(text, "host memory")) << text;
  EXPECT_TRUE(absl::StartsWith(text, "  device memory per device: peak 8 bytes")) << text;
}

TEST(MemoryReportTest, RefusesAPeakAboveTheLimitNamingEachPart) {
  const MemoryReport r = ComputeMemoryReport(SmallPayload());
  EXPECT_TRUE(CheckFitsDeviceMemory(r, 1272, "m.hlo").ok());
  EXPECT_TRUE(CheckFitsDeviceMemory(r, 0, "m.hlo").ok());
  const absl::Status s = CheckFitsDeviceMemory(r, 1271, "m.hlo");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  for (const char* part : {"m.hlo: needs 1.2 KiB (1272 bytes)", "parameters 200 bytes",
                           "outputs 36 bytes", "temporaries 1.0 KiB (1024 bytes)",
                           "constants 12 bytes", "host-offloaded 512 bytes",
                           "the device has 1.2 KiB (1271 bytes)"}) {
    EXPECT_TRUE(absl::StrContains(s.message(), part)) << part << "\n" << s.message();
  }
}

TEST(MemoryReportTest, SumsSaturateAndNegativeSizesCountAsZero) {
  GpuExecutablePayloadProto p;
  Add(&p, int64_t{1} << 62)->set_is_temp(true);
  Add(&p, int64_t{1} << 62)->set_is_temp(true);
  Add(&p, int64_t{1} << 62)->set_is_output(true);
  Add(&p, -5)->set_is_output(true);
  const MemoryReport r = ComputeMemoryReport(p);
  EXPECT_EQ(r.output_bytes, int64_t{1} << 62);
  EXPECT_EQ(r.peak_bytes, std::numeric_limits<int64_t>::max());
}

TEST(MemoryReportTest, ParsesByteSizes) {
  EXPECT_EQ(*ParseByteSize("80GiB"), int64_t{80} << 30);
  EXPECT_EQ(*ParseByteSize("141GiB"), int64_t{141} << 30);
  EXPECT_EQ(*ParseByteSize("512MiB"), int64_t{512} << 20);
  EXPECT_EQ(*ParseByteSize("1.5KiB"), 1536);
  EXPECT_EQ(*ParseByteSize("2GB"), 2000000000);
  EXPECT_EQ(*ParseByteSize("12345"), 12345);
  EXPECT_EQ(*ParseByteSize("7B"), 7);
  for (const char* bad : {"", "GiB", "-1", "0", "1.5", "12XB", "1e30GiB", "nanGiB"}) {
    absl::StatusOr<int64_t> r = ParseByteSize(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    }
  }
}

}  // namespace
}  // namespace xla::gpu
