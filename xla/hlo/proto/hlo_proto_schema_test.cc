// Pins the wire contract of hlo.proto and xla_data.proto: every message,
// field (number, type, label, oneof) and enum value, compared against
// testdata/hlo_proto_schema.txt. A failure means a field was renumbered,
// retyped or removed (never allowed), or a new one was added (then append its
// line to the golden file, as the failure message prints it).
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xla/hlo/proto/hlo.pb.h"

namespace xla {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;

void AddEnum(const EnumDescriptor* e, std::set<std::string>* lines) {
  for (int i = 0; i < e->value_count(); ++i) {
    lines->insert(absl::StrCat("enum ", e->full_name(), ".", e->value(i)->name(), " = ",
                               e->value(i)->number()));
  }
}

void AddMessage(const Descriptor* m, std::set<std::string>* lines) {
  lines->insert(absl::StrCat("message ", m->full_name()));
  for (int i = 0; i < m->field_count(); ++i) {
    const FieldDescriptor* f = m->field(i);
    std::string type = f->type_name();
    if (f->message_type() != nullptr) type = f->message_type()->full_name();
    if (f->enum_type() != nullptr) type = f->enum_type()->full_name();
    std::string label = f->is_repeated() ? "repeated " : f->has_presence() ? "optional " : "";
    std::string oneof;
    if (f->real_containing_oneof() != nullptr) {
      oneof = absl::StrCat(" (oneof ", f->real_containing_oneof()->name(), ")");
      label = "";
    }
    lines->insert(absl::StrCat("field ", m->full_name(), ".", f->name(), " = ", f->number(), " ",
                               label, type, oneof));
  }
  for (int i = 0; i < m->nested_type_count(); ++i) AddMessage(m->nested_type(i), lines);
  for (int i = 0; i < m->enum_type_count(); ++i) AddEnum(m->enum_type(i), lines);
}

void AddFile(const FileDescriptor* file, std::set<std::string>* lines) {
  for (int i = 0; i < file->message_type_count(); ++i) AddMessage(file->message_type(i), lines);
  for (int i = 0; i < file->enum_type_count(); ++i) AddEnum(file->enum_type(i), lines);
}

TEST(HloProtoSchema, MatchesTheGolden) {
  std::set<std::string> current;
  AddFile(HloModuleProto::descriptor()->file(), &current);
  AddFile(ShapeProto::descriptor()->file(), &current);

  const std::string path = "xla/hlo/proto/testdata/hlo_proto_schema.txt";
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "cannot read " << path;
  std::set<std::string> golden;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') golden.insert(line);
  }
  std::vector<std::string> removed, added;
  for (const std::string& l : golden) {
    if (current.count(l) == 0) removed.push_back(l);
  }
  for (const std::string& l : current) {
    if (golden.count(l) == 0) added.push_back(l);
  }
  EXPECT_TRUE(removed.empty()) << "These schema lines changed or disappeared; fields and enum "
                                  "values are never renumbered, retyped or removed:\n  "
                               << absl::StrJoin(removed, "\n  ");
  EXPECT_TRUE(added.empty()) << "New schema lines; append them to " << path << ":\n"
                             << absl::StrJoin(added, "\n");
}

}  // namespace
}  // namespace xla
