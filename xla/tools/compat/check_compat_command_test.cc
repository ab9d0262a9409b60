#include "xla/tools/compat/check_compat_command.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.pb.h"
#include "gtest/gtest.h"
#include "xla/tools/exit_codes.h"

namespace xla::cli {
namespace {

namespace pb = google::protobuf;

// Built by the :gpu_executable_descriptor_set genrule.
const char kCurrent[] = "xla/tools/compat/gpu_executable_descriptor_set.pb";

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir == nullptr ? "/tmp" : dir) + "/" + name;
}

pb::FileDescriptorSet ReadCurrent() {
  std::ifstream in(kCurrent, std::ios::binary);
  pb::FileDescriptorSet set;
  EXPECT_TRUE(set.ParseFromIstream(&in)) << kCurrent;
  return set;
}

std::string Write(const std::string& name, const std::string& bytes) {
  std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string Write(const std::string& name, const pb::FileDescriptorSet& set) {
  return Write(name, set.SerializeAsString());
}

pb::EnumDescriptorProto* AliasKind(pb::FileDescriptorSet& set) {
  for (pb::FileDescriptorProto& f : *set.mutable_file()) {
    for (pb::EnumDescriptorProto& e : *f.mutable_enum_type()) {
      if (e.name() == "AliasKindProto") return &e;
    }
  }
  ADD_FAILURE() << "no AliasKindProto";
  return nullptr;
}

struct Result {
  int code;
  std::string out, err;
};

Result RunCmd(const std::vector<std::string>& args, const compat::GatePredicate& gate = nullptr) {
  std::ostringstream out, err;
  int code = RunCheckCompatWithGate(args, gate, out, err);
  return {code, out.str(), err.str()};
}

TEST(CheckCompatCommandTest, SameSchemaPasses) {
  Result r = RunCmd({std::string("--baseline=") + kCurrent, std::string("--current=") + kCurrent});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("0 difference(s), 0 violation(s)"));
}

TEST(CheckCompatCommandTest, RemovedFieldFails) {
  // The baseline knows a field that the current schema lacks.
  pb::FileDescriptorSet baseline = ReadCurrent();
  ASSERT_EQ(baseline.file(baseline.file_size() - 1).name(), "xla/backends/gpu/runtime/executable.proto");
  pb::DescriptorProto* header = nullptr;
  for (pb::DescriptorProto& m : *baseline.mutable_file(baseline.file_size() - 1)->mutable_message_type()) {
    if (m.name() == "ArtifactHeaderProto") header = &m;
  }
  ASSERT_NE(header, nullptr);
  pb::FieldDescriptorProto* f = header->add_field();
  f->set_name("old_flag");
  f->set_number(40);
  f->set_type(pb::FieldDescriptorProto::TYPE_BOOL);
  f->set_label(pb::FieldDescriptorProto::LABEL_OPTIONAL);
  std::ostringstream out, err;
  int code = RunCheckCompat({"--baseline=" + Write("removed.pb", baseline), std::string("--current=") + kCurrent},
                            out, err);
  EXPECT_EQ(code, kExitBadInput);
  EXPECT_THAT(out.str(), ::testing::HasSubstr("BREAKING_BACKWARD GpuExecutableProto.header.old_flag: "));
  EXPECT_THAT(out.str(), ::testing::HasSubstr("1 difference(s), 1 violation(s)"));
  EXPECT_THAT(err.str(), ::testing::HasSubstr("1 violation(s)"));
}

TEST(CheckCompatCommandTest, NewEnumValuePassesOnlyWhenGated) {
  // The baseline lacks ALIAS_KIND_MUST_ALIAS: the current schema adds it.
  pb::FileDescriptorSet baseline = ReadCurrent();
  pb::EnumDescriptorProto* e = AliasKind(baseline);
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(e->value(e->value_size() - 1).name(), "ALIAS_KIND_MUST_ALIAS");
  e->mutable_value()->RemoveLast();
  std::vector<std::string> args = {"--baseline=" + Write("enum.pb", baseline), std::string("--current=") + kCurrent};

  Result ungated = RunCmd(args);
  EXPECT_EQ(ungated.code, kExitBadInput);
  EXPECT_THAT(ungated.out,
              ::testing::HasSubstr("STAGED_ROLLOUT GpuExecutableProto.payload.input_output_aliases.kind."
                                   "ALIAS_KIND_MUST_ALIAS: "));
  EXPECT_THAT(ungated.out, ::testing::HasSubstr("[not gated]"));

  Result gated = RunCmd(args, [](const std::string& construct) { return construct == "AliasKindProto.ALIAS_KIND_MUST_ALIAS"; });
  EXPECT_EQ(gated.code, kExitOk) << gated.out << gated.err;
  EXPECT_THAT(gated.out, ::testing::HasSubstr("[gated]"));
  EXPECT_THAT(gated.out, ::testing::HasSubstr("1 difference(s), 0 violation(s)"));
}

// Issue 28: host_send and host_recv, two oneof cases of one feature
// ("host_transfers", whose construct lists both), are each gated by the
// registry while its stage 1 is in flight.
TEST(CheckCompatCommandTest, BothHostTransferCasesAreGatedByTheRegistry) {
  pb::FileDescriptorSet baseline = ReadCurrent();
  int removed = 0;
  for (pb::FileDescriptorProto& f : *baseline.mutable_file()) {
    for (pb::DescriptorProto& m : *f.mutable_message_type()) {
      if (m.name() != "ThunkProto") continue;
      auto* fields = m.mutable_field();
      for (int i = fields->size() - 1; i >= 0; --i) {
        if (fields->Get(i).name() != "host_send" && fields->Get(i).name() != "host_recv") continue;
        fields->DeleteSubrange(i, 1);
        ++removed;
      }
    }
  }
  ASSERT_EQ(removed, 2);
  std::ostringstream out, err;
  const int code = RunCheckCompat(
      {"--baseline=" + Write("host_transfers.pb", baseline), std::string("--current=") + kCurrent},
      out, err);
  EXPECT_EQ(code, kExitOk) << out.str() << err.str();
  EXPECT_THAT(out.str(), ::testing::HasSubstr("STAGED_ROLLOUT GpuExecutableProto.payload.thunks.host_send"));
  EXPECT_THAT(out.str(), ::testing::HasSubstr("STAGED_ROLLOUT GpuExecutableProto.payload.thunks.host_recv"));
  EXPECT_THAT(out.str(), ::testing::Not(::testing::HasSubstr("[not gated]")));
  EXPECT_THAT(out.str(), ::testing::HasSubstr("2 difference(s), 0 violation(s)"));
}

// The registry gates "FfiAttributeProto.b" (feature ffi_attributes.bool). A
// new oneof case of ThunkProto that happens to be called `b` too is another
// construct: it is not gated by that entry, so it is a violation.
TEST(CheckCompatCommandTest, SameFieldNameInAnotherMessageIsNotGated) {
  const pb::FileDescriptorSet baseline = ReadCurrent();
  pb::FileDescriptorSet current = baseline;
  int added = 0;
  for (pb::FileDescriptorProto& f : *current.mutable_file()) {
    for (pb::DescriptorProto& m : *f.mutable_message_type()) {
      if (m.name() != "ThunkProto") continue;
      int kind_oneof = -1;
      for (const pb::FieldDescriptorProto& field : m.field()) {
        if (field.name() == "kernel") kind_oneof = field.oneof_index();
      }
      ASSERT_GE(kind_oneof, 0);
      pb::FieldDescriptorProto* b = m.add_field();
      b->set_name("b");
      b->set_number(999);
      b->set_type(pb::FieldDescriptorProto::TYPE_BOOL);
      b->set_label(pb::FieldDescriptorProto::LABEL_OPTIONAL);
      b->set_oneof_index(kind_oneof);
      ++added;
    }
  }
  ASSERT_EQ(added, 1);
  std::ostringstream out, err;
  const int code = RunCheckCompat(
      {"--baseline=" + Write("same_name_base.pb", baseline), "--current=" + Write("same_name.pb", current)}, out,
      err);
  EXPECT_EQ(code, kExitBadInput) << out.str();
  EXPECT_THAT(out.str(), ::testing::HasSubstr("STAGED_ROLLOUT GpuExecutableProto.payload.thunks.b: "));
  EXPECT_THAT(out.str(), ::testing::HasSubstr("[not gated]"));
  EXPECT_THAT(out.str(), ::testing::HasSubstr("1 difference(s), 1 violation(s)"));

  // The registry's own construct is still gated.
  EXPECT_TRUE(FeatureRegistryGate()("FfiAttributeProto.b"));
  EXPECT_FALSE(FeatureRegistryGate()("ThunkProto.b"));
}

TEST(CheckCompatCommandTest, UnreadableFilesAreReported) {
  Result missing = RunCmd({"--baseline=/nonexistent/v9.pb", std::string("--current=") + kCurrent});
  EXPECT_EQ(missing.code, kExitBadInput);
  EXPECT_THAT(missing.err, ::testing::HasSubstr("/nonexistent/v9.pb: cannot open"));

  std::string garbage = Write("garbage.pb", std::string("\xff\xff\xff\x01", 4));
  Result bad = RunCmd({std::string("--baseline=") + kCurrent, "--current=" + garbage});
  EXPECT_EQ(bad.code, kExitBadInput);
  EXPECT_THAT(bad.err, ::testing::HasSubstr("not a binary FileDescriptorSet"));
}

TEST(CheckCompatCommandTest, BadUsage) {
  EXPECT_EQ(RunCmd({}).code, kExitUsage);
  EXPECT_EQ(RunCmd({"--baseline=a.pb"}).code, kExitUsage);
  EXPECT_EQ(RunCmd({"--baseline=a.pb", "--current=b.pb", "extra"}).code, kExitUsage);
  Result help = RunCmd({"--help"});
  EXPECT_EQ(help.code, kExitOk);
  EXPECT_THAT(help.out, ::testing::HasSubstr("--baseline=FILE"));
}

}  // namespace
}  // namespace xla::cli
