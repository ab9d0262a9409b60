#include "xla/backends/gpu/runtime/runtime_test_util.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/thunk_deserializer.h"
#include "xla/stream_executor/host/elf_test_util.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/util/logging.h"
#include "xla/util/proto_util.h"

namespace xla::gpu::testing {

std::string ReadRunfile(absl::string_view relative) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  XLA_CHECK(srcdir != nullptr) << "run under bazel test";
  std::ifstream file(absl::StrCat(srcdir, "/xla_aot/", relative), std::ios::binary);
  XLA_CHECK(file.good()) << "cannot read runfile " << relative;
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

std::string TestKernels() {
  static const std::string* bytes = new std::string(
      ReadRunfile("xla/backends/gpu/runtime/libruntime_test_kernels.so"));
  return *bytes;
}

std::string TestKernelsExporting(const std::set<std::string>& symbols) {
  return stream_executor::host::HideExportsExcept(TestKernels(), symbols);
}

std::string ReadTestdata(absl::string_view name) {
  return ReadRunfile(absl::StrCat("xla/backends/gpu/runtime/testdata/", name));
}

GpuExecutableProto MakeArtifact(absl::string_view text) {
  GpuExecutableProto artifact;
  XLA_CHECK(google::protobuf::TextFormat::ParseFromString(std::string(text), &artifact))
      << "bad text proto";
  ArtifactHeaderProto* h = artifact.mutable_header();
  if (h->format_version() == 0) h->set_format_version(1);
  if (h->target().empty()) h->set_target("host");
  if (h->compiler_version().empty()) h->set_compiler_version("handwritten-test");
  GpuExecutablePayloadProto* p = artifact.mutable_payload();
  std::set<std::string> host_symbols;
  for (const KernelProto& k : p->kernels()) {
    if (k.has_host_symbol()) host_symbols.insert(k.host_symbol());
  }
  if (!host_symbols.empty() && p->host_shared_object().empty()) {
    p->set_host_shared_object(TestKernelsExporting(host_symbols));
  }
  SealArtifact(&artifact);
  return artifact;
}

std::string SerializeArtifact(const GpuExecutableProto& artifact) {
  return SerializeDeterministically(artifact);
}

stream_executor::StreamExecutor* HostExecutor() {
  auto platform = stream_executor::PlatformRegistry::GetPlatform("host");
  XLA_CHECK(platform.ok()) << platform.status();
  auto device = (*platform)->GetDevice(0);
  XLA_CHECK(device.ok()) << device.status();
  return *device;
}

ThunkTestContext::ThunkTestContext() {
  target_ = *ParseTarget("host");
  allocations_ = {{0, 64, true, 0, false, 0, false, false, kDeviceMemorySpace},
                  {1, 64, true, 1, false, 0, false, false, kDeviceMemorySpace},
                  {2, 64, false, 0, false, 0, true, false, kDeviceMemorySpace},
                  {3, 4, false, 0, false, 0, false, true, kDeviceMemorySpace},
                  {4, 1024, false, 0, false, 0, false, true, kDeviceMemorySpace},
                  {5, 256, false, 0, false, 0, false, true, kHostMemorySpace}};
  KernelSpec add;
  add.name = "add";
  add.kind = KernelSpec::Kind::kHostSymbol;
  add.entry = "add_f32";
  KernelSpec iota;
  iota.name = "iota";
  iota.kind = KernelSpec::Kind::kRegistered;
  iota.entry = "xla.runtime.iota_s32";
  iota.registered = FindRegisteredKernel(iota.entry);
  KernelSpec wide;
  wide.name = "wide";
  wide.kind = KernelSpec::Kind::kPtx;
  wide.code = ".entry wide(.param .u64 wide_param_0) { ret; }";
  wide.entry = "wide";
  kernels_ = {add, iota, wide};
  tables_.allocations = allocations_;
  tables_.kernels = kernels_;
  tables_.num_streams = 2;
  tables_.target = &target_;
  tables_.ffi = &ffi::FfiRegistry::Global();
  tables_.deserializer = &DeserializeThunk;
  tables_.async_ids = &async_ids_;
}

absl::StatusOr<std::unique_ptr<Thunk>> ThunkTestContext::Deserialize(const ThunkProto& proto) const {
  async_ids_.clear();
  return DeserializeThunk(proto, context());
}

void ExpectRoundTripMatchesGolden(absl::string_view golden) {
  const std::string text = ReadTestdata(golden);
  ThunkProto proto;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &proto)) << golden;
  ThunkTestContext ctx;
  absl::StatusOr<std::unique_ptr<Thunk>> thunk = ctx.Deserialize(proto);
  ASSERT_TRUE(thunk.ok()) << thunk.status();
  absl::StatusOr<ThunkProto> back = (*thunk)->ToProto();
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(SerializeDeterministically(*back), SerializeDeterministically(proto));
  std::string printed;
  google::protobuf::TextFormat::PrintToString(*back, &printed);
  EXPECT_EQ(printed, text) << "golden " << golden << " differs; ToProto prints:\n" << printed;
  // And once more: FromProto(ToProto(x)) gives the same proto again.
  absl::StatusOr<std::unique_ptr<Thunk>> again = ctx.Deserialize(*back);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(SerializeDeterministically(*(*again)->ToProto()), SerializeDeterministically(*back));
}

std::string DeserializeError(absl::string_view text) {
  ThunkProto proto;
  XLA_CHECK(google::protobuf::TextFormat::ParseFromString(std::string(text), &proto)) << text;
  absl::StatusOr<std::unique_ptr<Thunk>> thunk = ThunkTestContext().Deserialize(proto);
  if (thunk.ok()) return "";
  EXPECT_EQ(thunk.status().code(), absl::StatusCode::kInvalidArgument) << thunk.status();
  return std::string(thunk.status().message());
}

}  // namespace xla::gpu::testing
