// Forward compatibility: every freshly compiled golden module, decoded with
// the newest released schema (schemas/vN.pb, dynamic messages), may carry
// fields that schema does not know only when an old runtime can safely
// ignore them or would refuse the artifact cleanly:
//   * the field is a construct of the feature registry and its feature is
//     listed in header.required_runtime_features (an old runtime refuses the
//     artifact naming it), or
//   * the field is optional and outside any oneof (the SAFE kind: unset means
//     the legacy behaviour).
// Anything else (an unknown oneof case, enum value or field an old runtime
// would silently misread) fails, naming the message and field.
#include <algorithm>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/unknown_field_set.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/backends/gpu/runtime/feature_registry.h"

namespace xla::gpu {
namespace {

namespace pb = ::google::protobuf;

const char kNewestBaseline[] = "tests/aot_compatibility/gpu/schemas/v1.pb";
const char kModules[] = "tests/aot_compatibility/gpu/executables/host/v2";
const char* const kModuleNames[] = {"mlp", "softmax", "layer_norm", "while_loop"};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Unknown fields of `old_message` (decoded with the baseline) that an old
// runtime would misread, as "Message.field: why" lines. `current` is the
// descriptor of the same message in today's schema.
void Check(const pb::Message& old_message, const pb::Descriptor* current,
           const std::set<std::string>& required, std::vector<std::string>* out) {
  const pb::Reflection* r = old_message.GetReflection();
  const pb::UnknownFieldSet& unknown = r->GetUnknownFields(old_message);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const int number = unknown.field(i).number();
    const pb::FieldDescriptor* f = current->FindFieldByNumber(number);
    const std::string construct =
        absl::StrCat(current->name(), ".", f != nullptr ? f->name() : absl::StrCat("#", number));
    if (f == nullptr) {
      out->push_back(construct + ": not in today's schema either");
      continue;
    }
    if (const RuntimeFeature* feature = FindRuntimeFeatureByConstruct(construct)) {
      if (!required.count(feature->name)) {
        out->push_back(absl::StrCat(construct, ": feature `", feature->name,
                                    "` is not listed in required_runtime_features"));
      }
      continue;
    }
    if (f->real_containing_oneof() != nullptr || f->is_required()) {
      out->push_back(construct + ": a oneof case or required field the old schema lacks and "
                                 "no registered feature guards");
    }
  }
  const pb::Descriptor* d = old_message.GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const pb::FieldDescriptor* f = d->field(i);
    if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    const pb::FieldDescriptor* cf = current->FindFieldByNumber(f->number());
    if (cf == nullptr || cf->message_type() == nullptr) continue;
    if (f->is_repeated()) {
      for (int k = 0; k < r->FieldSize(old_message, f); ++k) {
        Check(r->GetRepeatedMessage(old_message, f, k), cf->message_type(), required, out);
      }
    } else if (r->HasField(old_message, f)) {
      Check(r->GetMessage(old_message, f), cf->message_type(), required, out);
    }
  }
}

class ForwardCompat : public ::testing::Test {
 protected:
  void SetUp() override {
    pb::FileDescriptorSet set;
    ASSERT_TRUE(set.ParseFromString(ReadFile(kNewestBaseline))) << kNewestBaseline;
    for (const pb::FileDescriptorProto& file : set.file()) {
      ASSERT_NE(pool_.BuildFile(file), nullptr) << file.name();
    }
    old_root_ = pool_.FindMessageTypeByName("xla.gpu.GpuExecutableProto");
    ASSERT_NE(old_root_, nullptr);
  }

  // The violations for artifact `bytes`.
  std::vector<std::string> Violations(const std::string& bytes) {
    std::unique_ptr<pb::Message> old(factory_.GetPrototype(old_root_)->New());
    EXPECT_TRUE(old->ParseFromString(bytes));
    GpuExecutableProto current;
    EXPECT_TRUE(current.ParseFromString(bytes));
    std::set<std::string> required(current.header().required_runtime_features().begin(),
                                   current.header().required_runtime_features().end());
    std::vector<std::string> out;
    Check(*old, GpuExecutableProto::descriptor(), required, &out);
    return out;
  }

  pb::DescriptorPool pool_;
  pb::DynamicMessageFactory factory_{&pool_};
  const pb::Descriptor* old_root_ = nullptr;
};

TEST_F(ForwardCompat, FreshlyCompiledGoldenModulesAreSafeForTheNewestReleasedSchema) {
  int checked = 0, with_new_constructs = 0;
  for (const char* name : kModuleNames) {
    const std::string hlo = ReadFile(absl::StrCat(kModules, "/", name, "/module.hlo"));
    ASSERT_FALSE(hlo.empty()) << name;
    aot::CompileOptions options;  // as xla_aot compile
    options.production_date = "2026-11-29T00:00:00Z";
    absl::StatusOr<aot::CompiledArtifact> h = aot::Compile(hlo, options);
    ASSERT_TRUE(h.ok()) << name << ": " << h.status();
    std::vector<std::string> v = Violations(h->bytes);
    EXPECT_TRUE(v.empty()) << name << " (host): " << absl::StrJoin(v, "\n");
    ++checked;
    options.target = "sm_90";
    options.emit_cubin_with_ptx = true;
    absl::StatusOr<aot::CompiledArtifact> g = aot::Compile(hlo, options);
    ASSERT_TRUE(g.ok()) << name << ": " << g.status();
    v = Violations(g->bytes);
    EXPECT_TRUE(v.empty()) << name << " (sm_90): " << absl::StrJoin(v, "\n");
    GpuExecutableProto parsed;
    ASSERT_TRUE(parsed.ParseFromString(g->bytes));
    for (const KernelProto& k : parsed.payload().kernels()) {
      with_new_constructs += k.has_cubin_with_ptx() ? 1 : 0;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 8);
  // Only meaningful when ptxas made cubins (it is at /usr/local/cuda/bin in
  // this project's environment); without it the kernels are plain PTX.
  std::printf("checked %d artifacts; %d kernels use cubin_with_ptx\n", checked,
              with_new_constructs);
}

// The check can fail: a compiler that emitted cubin_with_ptx without
// listing its feature would let an old runtime see an unset kernel spec.
TEST_F(ForwardCompat, UnlistedNewConstructIsAViolation) {
  GpuExecutableProto a;
  a.mutable_header()->set_format_version(1);
  CubinWithPtxKernelSpecProto* k = a.mutable_payload()->add_kernels()->mutable_cubin_with_ptx();
  k->set_cubin("ELF");
  k->set_ptx(".version 7.8");
  k->set_entry("f");
  std::vector<std::string> v = Violations(a.SerializeAsString());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("KernelProto.cubin_with_ptx"), std::string::npos) << v[0];
  a.mutable_header()->add_required_runtime_features("kernel_spec.cubin_with_ptx");
  EXPECT_TRUE(Violations(a.SerializeAsString()).empty());
}

// Issue 25: a copy with a dynamic offset needs its feature listed (an old
// runtime would copy at the fixed offset every iteration), wherever it is
// nested; the compiler lists it for the scan-stack golden module.
TEST_F(ForwardCompat, ACopyWithADynamicOffsetNeedsItsFeatureListed) {
  GpuExecutableProto a;
  a.mutable_header()->set_format_version(1);
  ThunkProto* body = a.mutable_payload()->add_thunks()->mutable_while_()->mutable_body()->add_thunks();
  body->mutable_copy()->mutable_dynamic_offset()->set_destination_stride(132);
  std::vector<std::string> v = Violations(a.SerializeAsString());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("CopyThunkProto.dynamic_offset"), std::string::npos) << v[0];
  a.mutable_header()->add_required_runtime_features("copy_thunk.dynamic_offset");
  EXPECT_TRUE(Violations(a.SerializeAsString()).empty());

  const std::string hlo =
      ReadFile("tests/aot_compatibility/gpu/executables/host_offload/v1/scan_stack/module.hlo");
  ASSERT_FALSE(hlo.empty());
  aot::CompileOptions options;
  options.production_date = "2026-12-03T00:00:00Z";
  options.offload_scan_stacks = true;
  absl::StatusOr<aot::CompiledArtifact> h = aot::Compile(hlo, options);
  ASSERT_TRUE(h.ok()) << h.status();
  GpuExecutableProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(h->bytes));
  const auto& features = parsed.header().required_runtime_features();
  EXPECT_NE(std::find(features.begin(), features.end(), "copy_thunk.dynamic_offset"),
            features.end());
  v = Violations(h->bytes);
  EXPECT_TRUE(v.empty()) << absl::StrJoin(v, "\n");
}

}  // namespace
}  // namespace xla::gpu
