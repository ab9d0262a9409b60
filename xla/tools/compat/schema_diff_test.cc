#include "xla/tools/compat/schema_diff.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/executable.pb.h"

namespace xla::compat {
namespace {

namespace pb = google::protobuf;

// The real artifact schema, from the descriptors compiled into this test:
// xla_data.proto first, then executable.proto (as --include_imports orders
// them).
pb::FileDescriptorSet RealSchema() {
  pb::FileDescriptorSet set;
  const pb::FileDescriptor* file = gpu::GpuExecutableProto::descriptor()->file();
  for (int i = 0; i < file->dependency_count(); ++i) file->dependency(i)->CopyTo(set.add_file());
  file->CopyTo(set.add_file());
  return set;
}

pb::DescriptorProto* Message(pb::FileDescriptorSet& set, absl::string_view full_name) {
  for (pb::FileDescriptorProto& file : *set.mutable_file()) {
    for (pb::DescriptorProto& m : *file.mutable_message_type()) {
      if (file.package() + "." + m.name() == full_name) return &m;
    }
  }
  ADD_FAILURE() << "no message " << full_name;
  return nullptr;
}

pb::EnumDescriptorProto* Enum(pb::FileDescriptorSet& set, absl::string_view full_name) {
  for (pb::FileDescriptorProto& file : *set.mutable_file()) {
    for (pb::EnumDescriptorProto& e : *file.mutable_enum_type()) {
      if (file.package() + "." + e.name() == full_name) return &e;
    }
  }
  ADD_FAILURE() << "no enum " << full_name;
  return nullptr;
}

pb::FieldDescriptorProto* Field(pb::DescriptorProto* m, absl::string_view name) {
  for (pb::FieldDescriptorProto& f : *m->mutable_field()) {
    if (f.name() == name) return &f;
  }
  ADD_FAILURE() << "no field " << name << " in " << m->name();
  return nullptr;
}

void RemoveField(pb::DescriptorProto* m, absl::string_view name) {
  for (int i = 0; i < m->field_size(); ++i) {
    if (m->field(i).name() == name) {
      m->mutable_field()->DeleteSubrange(i, 1);
      return;
    }
  }
  ADD_FAILURE() << "no field " << name << " in " << m->name();
}

void RemoveValue(pb::EnumDescriptorProto* e, absl::string_view name) {
  for (int i = 0; i < e->value_size(); ++i) {
    if (e->value(i).name() == name) {
      e->mutable_value()->DeleteSubrange(i, 1);
      return;
    }
  }
  ADD_FAILURE() << "no value " << name << " in " << e->name();
}

void Reserve(pb::DescriptorProto* m, int number, absl::string_view name) {
  pb::DescriptorProto::ReservedRange* r = m->add_reserved_range();
  r->set_start(number);
  r->set_end(number + 1);
  if (!name.empty()) m->add_reserved_name(std::string(name));
}

pb::FieldDescriptorProto* AddField(pb::DescriptorProto* m, absl::string_view name, int number,
                                   pb::FieldDescriptorProto::Type type) {
  pb::FieldDescriptorProto* f = m->add_field();
  f->set_name(std::string(name));
  f->set_number(number);
  f->set_type(type);
  f->set_label(pb::FieldDescriptorProto::LABEL_OPTIONAL);
  return f;
}

std::vector<SchemaDifference> Diff(const pb::FileDescriptorSet& old_set, const pb::FileDescriptorSet& new_set) {
  absl::StatusOr<std::vector<SchemaDifference>> diffs = DiffSchemas(old_set, new_set);
  EXPECT_TRUE(diffs.ok()) << diffs.status();
  return diffs.ok() ? *diffs : std::vector<SchemaDifference>{};
}

std::string Lines(const std::vector<SchemaDifference>& diffs) {
  std::string out;
  for (const SchemaDifference& d : diffs) out += d.ToString() + "\n";
  return out;
}

// Asserts exactly one difference and returns it.
SchemaDifference Only(const std::vector<SchemaDifference>& diffs) {
  EXPECT_EQ(diffs.size(), 1u) << Lines(diffs);
  return diffs.empty() ? SchemaDifference{Verdict::kSafe, "<none>", "", ""} : diffs[0];
}

class SchemaDiffTest : public ::testing::Test {
 protected:
  pb::FileDescriptorSet old_ = RealSchema();
  pb::FileDescriptorSet new_ = RealSchema();
};

TEST_F(SchemaDiffTest, IdenticalSchemasHaveNoDifference) { EXPECT_EQ(Lines(Diff(old_, new_)), ""); }

TEST_F(SchemaDiffTest, RenumberIsForbidden) {
  Field(Message(new_, "xla.gpu.GemmThunkProto"), "m")->set_number(30);
  SchemaDifference d = Only(Diff(old_, new_));
  EXPECT_EQ(d.verdict, Verdict::kForbidden);
  EXPECT_EQ(d.path, "GpuExecutableProto.payload.thunks.gemm.m");
  EXPECT_THAT(d.message, ::testing::HasSubstr("renumbered 5 -> 30"));
  EXPECT_TRUE(IsViolation(d, [](const std::string&) { return true; }));
}

TEST_F(SchemaDiffTest, ScalarRetypeIsForbidden) {
  Field(Message(new_, "xla.gpu.GpuExecutablePayloadProto"), "num_streams")
      ->set_type(pb::FieldDescriptorProto::TYPE_INT32);
  SchemaDifference d = Only(Diff(old_, new_));
  EXPECT_EQ(d.verdict, Verdict::kForbidden);
  EXPECT_EQ(d.path, "GpuExecutableProto.payload.num_streams");
  EXPECT_THAT(d.message, ::testing::HasSubstr("optional int64 -> optional int32"));
}

TEST_F(SchemaDiffTest, RepeatednessChangeIsForbidden) {
  Field(Message(new_, "xla.gpu.KernelThunkProto"), "args")->set_label(pb::FieldDescriptorProto::LABEL_OPTIONAL);
  SchemaDifference d = Only(Diff(old_, new_));
  EXPECT_EQ(d.verdict, Verdict::kForbidden);
  EXPECT_EQ(d.path, "GpuExecutableProto.payload.thunks.kernel.args");
  EXPECT_THAT(d.message, ::testing::HasSubstr("repeated .xla.gpu.BufferSliceProto -> optional"));
}

TEST_F(SchemaDiffTest, MessageTypeNameChangeIsForbidden) {
  Field(Message(new_, "xla.gpu.BufferSliceProto"), "shape")->set_type_name(".xla.LayoutProto");
  SchemaDifference d = Only(Diff(old_, new_));
  EXPECT_EQ(d.verdict, Verdict::kForbidden);
  // BufferSliceProto is first reached through the outputs table.
  EXPECT_EQ(d.path, "GpuExecutableProto.payload.outputs.slice.shape");
  EXPECT_THAT(d.message, ::testing::HasSubstr(".xla.ShapeProto -> optional .xla.LayoutProto"));
}

TEST_F(SchemaDiffTest, ReusedNumberIsForbidden) {
  pb::DescriptorProto* thunk = Message(new_, "xla.gpu.ThunkProto");
  Field(thunk, "profile_annotation")->set_name("label");
  SchemaDifference d = Only(Diff(old_, new_));
  EXPECT_EQ(d.verdict, Verdict::kForbidden);
  EXPECT_EQ(d.path, "GpuExecutableProto.payload.thunks.profile_annotation");
  EXPECT_THAT(d.message, ::testing::HasSubstr("number 2 was 'profile_annotation'"));
}

TEST_F(SchemaDiffTest, ReusedNameIsForbidden) {
  // num_streams = 9 removed and reserved, then the name comes back at 99
  // (a number no real schema version uses).
  pb::DescriptorProto* payload = Message(new_, "xla.gpu.GpuExecutablePayloadProto");
  Field(payload, "num_streams")->set_number(99);
  Reserve(payload, 9, "");
  SchemaDifference d = Only(Diff(old_, new_));
  EXPECT_EQ(d.verdict, Verdict::kForbidden);
  EXPECT_EQ(d.path, "GpuExecutableProto.payload.num_streams");
  EXPECT_THAT(d.message, ::testing::HasSubstr("name 'num_streams' reused: was number 9 (now reserved)"));
}

TEST_F(SchemaDiffTest, RemovalWithoutReservedIsBreaking) {
  RemoveField(Message(new_, "xla.gpu.ArtifactHeaderProto"), "production_date");
  SchemaDifference d = Only(Diff(old_, new_));
  EXPECT_EQ(d.verdict, Verdict::kBreakingBackward);
  EXPECT_EQ(d.path, "GpuExecutableProto.header.production_date");
  EXPECT_THAT(d.message, ::testing::HasSubstr("reserved 3; reserved \"production_date\";"));
}

TEST_F(SchemaDiffTest, RemovalWithOnlyNumberReservedIsBreaking) {
  pb::DescriptorProto* header = Message(new_, "xla.gpu.ArtifactHeaderProto");
  RemoveField(header, "production_date");
  Reserve(header, 3, "");
  SchemaDifference d = Only(Diff(old_, new_));
  EXPECT_EQ(d.verdict, Verdict::kBreakingBackward);
  EXPECT_THAT(d.message, ::testing::HasSubstr("without reserving its name"));
}

TEST_F(SchemaDiffTest, RemovalWithReservedIsSafe) {
  pb::DescriptorProto* header = Message(new_, "xla.gpu.ArtifactHeaderProto");
  RemoveField(header, "production_date");
  Reserve(header, 3, "production_date");
  std::vector<SchemaDifference> diffs = Diff(old_, new_);
  SchemaDifference d = Only(diffs);
  EXPECT_EQ(d.verdict, Verdict::kSafe);
  EXPECT_EQ(d.path, "GpuExecutableProto.header.production_date");
  EXPECT_TRUE(Violations(diffs, nullptr).empty());
}

TEST_F(SchemaDiffTest, OneofCaseRemovalIsBreaking) {
  RemoveField(Message(new_, "xla.gpu.KernelProto"), "cubin");
  SchemaDifference d = Only(Diff(old_, new_));
  EXPECT_EQ(d.verdict, Verdict::kBreakingBackward);
  EXPECT_EQ(d.path, "GpuExecutableProto.payload.kernels.cubin");
  EXPECT_THAT(d.message, ::testing::HasSubstr("oneof case 'spec.cubin' = 3"));
}

TEST_F(SchemaDiffTest, NewOptionalFieldIsSafe) {
  // A number and name no real schema version uses.
  AddField(Message(new_, "xla.gpu.ArtifactHeaderProto"), "build_id", 99, pb::FieldDescriptorProto::TYPE_STRING);
  AddField(Message(new_, "xla.gpu.CopyThunkProto"), "extra", 98, pb::FieldDescriptorProto::TYPE_INT64)
      ->set_label(pb::FieldDescriptorProto::LABEL_REPEATED);
  std::vector<SchemaDifference> diffs = Diff(old_, new_);
  ASSERT_EQ(diffs.size(), 2u) << Lines(diffs);
  EXPECT_EQ(diffs[0].ToString(),
            "SAFE GpuExecutableProto.header.build_id: new optional field 'build_id' = 99 (optional string)");
  EXPECT_EQ(diffs[1].verdict, Verdict::kSafe);
  EXPECT_EQ(diffs[1].path, "GpuExecutableProto.payload.thunks.copy.extra");
  EXPECT_TRUE(Violations(diffs, nullptr).empty());
}

TEST_F(SchemaDiffTest, NewOneofCaseNeedsAGate) {
  // A number and name no real schema version uses.
  pb::DescriptorProto* thunk = Message(new_, "xla.gpu.ThunkProto");
  pb::FieldDescriptorProto* f = AddField(thunk, "hypothetical_case", 999, pb::FieldDescriptorProto::TYPE_MESSAGE);
  f->set_type_name(".xla.gpu.AllReduceThunkProto");
  f->set_oneof_index(Field(thunk, "gemm")->oneof_index());
  std::vector<SchemaDifference> diffs = Diff(old_, new_);
  SchemaDifference d = Only(diffs);
  EXPECT_EQ(d.verdict, Verdict::kStagedRollout);
  EXPECT_EQ(d.path, "GpuExecutableProto.payload.thunks.hypothetical_case");
  EXPECT_THAT(d.message, ::testing::HasSubstr("new oneof case 'hypothetical_case' = 999"));

  EXPECT_EQ(d.construct, "ThunkProto.hypothetical_case");

  EXPECT_TRUE(IsViolation(d, nullptr));
  std::vector<std::string> asked;
  auto gate_hypothetical_case = [&asked](const std::string& construct) {
    asked.push_back(construct);
    return construct == "ThunkProto.hypothetical_case";
  };
  EXPECT_FALSE(IsViolation(d, gate_hypothetical_case));
  // The gate is asked about the construct, not the path from the root.
  EXPECT_THAT(asked, ::testing::ElementsAre("ThunkProto.hypothetical_case"));
  EXPECT_TRUE(IsViolation(d, [](const std::string& construct) { return construct == "ThunkProto.something_else"; }));
  EXPECT_TRUE(Violations(diffs, gate_hypothetical_case).empty());
  EXPECT_EQ(Violations(diffs, nullptr).size(), 1u);
}

TEST_F(SchemaDiffTest, NewEnumValueNeedsAGate) {
  pb::EnumValueDescriptorProto* v = Enum(new_, "xla.gpu.AliasKindProto")->add_value();
  v->set_name("ALIAS_KIND_SHARED");
  v->set_number(3);
  SchemaDifference d = Only(Diff(old_, new_));
  EXPECT_EQ(d.verdict, Verdict::kStagedRollout);
  EXPECT_EQ(d.path, "GpuExecutableProto.payload.input_output_aliases.kind.ALIAS_KIND_SHARED");
  EXPECT_EQ(d.construct, "AliasKindProto.ALIAS_KIND_SHARED");
  EXPECT_TRUE(IsViolation(d, nullptr));
}

TEST_F(SchemaDiffTest, EnumValueRemoval) {
  RemoveValue(Enum(new_, "xla.gpu.AliasKindProto"), "ALIAS_KIND_MUST_ALIAS");
  SchemaDifference d = Only(Diff(old_, new_));
  EXPECT_EQ(d.verdict, Verdict::kBreakingBackward);
  EXPECT_EQ(d.path, "GpuExecutableProto.payload.input_output_aliases.kind.ALIAS_KIND_MUST_ALIAS");

  pb::EnumDescriptorProto* e = Enum(new_, "xla.gpu.AliasKindProto");
  pb::EnumDescriptorProto::EnumReservedRange* r = e->add_reserved_range();
  r->set_start(2);
  r->set_end(2);  // inclusive
  e->add_reserved_name("ALIAS_KIND_MUST_ALIAS");
  EXPECT_EQ(Only(Diff(old_, new_)).verdict, Verdict::kSafe);
}

TEST_F(SchemaDiffTest, EnumValueInImportedFileIsChecked) {
  // PrimitiveTypeProto lives in xla_data.proto and is reached through
  // ShapeProto.element_type.
  pb::EnumDescriptorProto* e = Enum(new_, "xla.PrimitiveTypeProto");
  e->mutable_value(1)->set_number(99);
  std::vector<SchemaDifference> diffs = Diff(old_, new_);
  ASSERT_FALSE(diffs.empty());
  EXPECT_EQ(diffs[0].verdict, Verdict::kForbidden) << Lines(diffs);
  EXPECT_THAT(diffs[0].path, ::testing::StartsWith("GpuExecutableProto.payload.program_shape."));
  EXPECT_THAT(diffs[0].construct, ::testing::StartsWith("PrimitiveTypeProto."));
}

TEST_F(SchemaDiffTest, UnreachableMessageIsIgnored) {
  // LiteralProto (xla_data.proto) is not reachable from GpuExecutableProto.
  RemoveField(Message(new_, "xla.LiteralProto"), "elided");
  EXPECT_EQ(Lines(Diff(old_, new_)), "");
  // The same kind of change in a reachable message of the same file is seen.
  RemoveField(Message(new_, "xla.LayoutProto"), "suffix");
  SchemaDifference d = Only(Diff(old_, new_));
  EXPECT_EQ(d.verdict, Verdict::kBreakingBackward);
  EXPECT_EQ(d.path, "GpuExecutableProto.payload.program_shape.parameters.layout.suffix");
  EXPECT_EQ(d.construct, "LayoutProto.suffix");  // package-relative: xla.LayoutProto
}

TEST_F(SchemaDiffTest, ReservedNumberAndNameStayReserved) {
  // A baseline that already reserves 3 and "production_date".
  pb::DescriptorProto* old_header = Message(old_, "xla.gpu.ArtifactHeaderProto");
  RemoveField(old_header, "production_date");
  Reserve(old_header, 3, "production_date");
  pb::DescriptorProto* new_header = Message(new_, "xla.gpu.ArtifactHeaderProto");
  Field(new_header, "production_date")->set_name("build_date");  // reuses 3, drops both reservations
  std::vector<SchemaDifference> diffs = Diff(old_, new_);
  ASSERT_EQ(diffs.size(), 3u) << Lines(diffs);
  for (const SchemaDifference& d : diffs) EXPECT_EQ(d.verdict, Verdict::kForbidden) << d.ToString();
  EXPECT_THAT(diffs[0].message, ::testing::HasSubstr("reuses a reserved number"));
  EXPECT_THAT(diffs[1].message, ::testing::HasSubstr("reserved number(s) 3 no longer reserved"));
  EXPECT_THAT(diffs[2].message, ::testing::HasSubstr("reserved name 'production_date' no longer reserved"));
}

TEST_F(SchemaDiffTest, MovingAFieldIntoAOneofIsForbidden) {
  pb::DescriptorProto* attr = Message(new_, "xla.gpu.FfiAttributeProto");
  Field(attr, "name")->set_oneof_index(Field(attr, "i64")->oneof_index());
  SchemaDifference d = Only(Diff(old_, new_));
  EXPECT_EQ(d.verdict, Verdict::kForbidden);
  EXPECT_THAT(d.message, ::testing::HasSubstr("moved from oneof (none) to oneof value"));
}

TEST(SchemaDiffProto2Test, NewRequiredFieldNeedsAGate) {
  pb::FileDescriptorSet old_set;
  pb::FileDescriptorProto* file = old_set.add_file();
  file->set_name("t.proto");
  file->set_package("t");
  file->set_syntax("proto2");
  pb::DescriptorProto* root = file->add_message_type();
  root->set_name("Root");
  AddField(root, "a", 1, pb::FieldDescriptorProto::TYPE_INT32);
  pb::FileDescriptorSet new_set = old_set;
  AddField(new_set.mutable_file(0)->mutable_message_type(0), "b", 2, pb::FieldDescriptorProto::TYPE_INT32)
      ->set_label(pb::FieldDescriptorProto::LABEL_REQUIRED);
  absl::StatusOr<std::vector<SchemaDifference>> diffs = DiffSchemas(old_set, new_set, "t.Root");
  ASSERT_TRUE(diffs.ok()) << diffs.status();
  SchemaDifference d = Only(*diffs);
  EXPECT_EQ(d.verdict, Verdict::kStagedRollout);
  EXPECT_EQ(d.path, "Root.b");
}

TEST(SchemaDiffErrorsTest, MissingRootOrImportIsAnError) {
  pb::FileDescriptorSet set = RealSchema();
  absl::StatusOr<std::vector<SchemaDifference>> diffs = DiffSchemas(set, set, "xla.gpu.NoSuchProto");
  ASSERT_FALSE(diffs.ok());
  EXPECT_THAT(std::string(diffs.status().message()), ::testing::HasSubstr("no message 'xla.gpu.NoSuchProto'"));

  pb::FileDescriptorSet without_import;
  *without_import.add_file() = set.file(1);  // executable.proto alone
  diffs = DiffSchemas(set, without_import);
  ASSERT_FALSE(diffs.ok());
  EXPECT_THAT(std::string(diffs.status().message()), ::testing::HasSubstr("current schema: cannot build"));
  EXPECT_THAT(std::string(diffs.status().message()), ::testing::HasSubstr("--include_imports"));
}

TEST(SchemaDiffErrorsTest, ParseDescriptorSetRejectsGarbage) {
  EXPECT_FALSE(ParseDescriptorSet("\xff\xff\xff", "bad.pb").ok());
  absl::StatusOr<pb::FileDescriptorSet> empty = ParseDescriptorSet("", "empty.pb");
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(std::string(empty.status().message()), ::testing::HasSubstr("empty.pb"));
  std::string bytes;
  ASSERT_TRUE(RealSchema().SerializeToString(&bytes));
  absl::StatusOr<pb::FileDescriptorSet> parsed = ParseDescriptorSet(bytes, "real.pb");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->file_size(), 2);
}

TEST(VerdictTest, Names) {
  EXPECT_EQ(VerdictName(Verdict::kSafe), "SAFE");
  EXPECT_EQ(VerdictName(Verdict::kStagedRollout), "STAGED_ROLLOUT");
  EXPECT_EQ(VerdictName(Verdict::kBreakingBackward), "BREAKING_BACKWARD");
  EXPECT_EQ(VerdictName(Verdict::kForbidden), "FORBIDDEN");
  EXPECT_FALSE(IsViolation({Verdict::kSafe, "p", "", "M.p"}, nullptr));
  EXPECT_TRUE(IsViolation({Verdict::kForbidden, "p", "", "M.p"}, [](const std::string&) { return true; }));
  EXPECT_TRUE(IsViolation({Verdict::kBreakingBackward, "p", "", "M.p"}, [](const std::string&) { return true; }));
}

}  // namespace
}  // namespace xla::compat
