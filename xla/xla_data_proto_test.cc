// Pins the contract of xla_data.proto: the enum numbers never change, and the
// file stays free of HLO (the runtime links it without the compiler).
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "xla/xla_data.pb.h"

namespace xla {
namespace {

TEST(XlaDataProto, PrimitiveTypeNumbersNeverChange) {
  // Append new types here; never edit or remove a line.
  const std::map<std::string, int> expected = {
      {"PRIMITIVE_TYPE_INVALID", 0},      {"PRIMITIVE_TYPE_PRED", 1},
      {"PRIMITIVE_TYPE_S8", 2},           {"PRIMITIVE_TYPE_S16", 3},
      {"PRIMITIVE_TYPE_S32", 4},          {"PRIMITIVE_TYPE_S64", 5},
      {"PRIMITIVE_TYPE_U8", 6},           {"PRIMITIVE_TYPE_U16", 7},
      {"PRIMITIVE_TYPE_U32", 8},          {"PRIMITIVE_TYPE_U64", 9},
      {"PRIMITIVE_TYPE_F16", 10},         {"PRIMITIVE_TYPE_F32", 11},
      {"PRIMITIVE_TYPE_F64", 12},         {"PRIMITIVE_TYPE_TUPLE", 13},
      {"PRIMITIVE_TYPE_OPAQUE_TYPE", 14}, {"PRIMITIVE_TYPE_C64", 15},
      {"PRIMITIVE_TYPE_BF16", 16},        {"PRIMITIVE_TYPE_TOKEN", 17},
      {"PRIMITIVE_TYPE_C128", 18},        {"PRIMITIVE_TYPE_F8E5M2", 19},
      {"PRIMITIVE_TYPE_F8E4M3FN", 20},    {"PRIMITIVE_TYPE_S4", 21},
      {"PRIMITIVE_TYPE_U4", 22},          {"PRIMITIVE_TYPE_F8E4M3B11FNUZ", 23},
      {"PRIMITIVE_TYPE_F8E5M2FNUZ", 24},  {"PRIMITIVE_TYPE_F8E4M3FNUZ", 25},
      {"PRIMITIVE_TYPE_S2", 26},          {"PRIMITIVE_TYPE_U2", 27},
      {"PRIMITIVE_TYPE_F8E4M3", 28},      {"PRIMITIVE_TYPE_F8E3M4", 29},
      {"PRIMITIVE_TYPE_S1", 30},          {"PRIMITIVE_TYPE_U1", 31},
      {"PRIMITIVE_TYPE_F4E2M1FN", 32},    {"PRIMITIVE_TYPE_F8E8M0FNU", 33},
      {"PRIMITIVE_TYPE_BUFFER", 34},
  };
  const google::protobuf::EnumDescriptor* e = PrimitiveTypeProto_descriptor();
  std::map<std::string, int> actual;
  for (int i = 0; i < e->value_count(); ++i) actual[e->value(i)->name()] = e->value(i)->number();
  EXPECT_EQ(actual, expected);
}

TEST(XlaDataProto, FieldNumbersNeverChange) {
  struct Field {
    const google::protobuf::Descriptor* message;
    const char* name;
    int number;
  };
  const Field fields[] = {
      {LayoutProto::descriptor(), "minor_to_major", 1},
      {LayoutProto::descriptor(), "suffix", 2},
      {ShapeProto::descriptor(), "element_type", 1},
      {ShapeProto::descriptor(), "dimensions", 2},
      {ShapeProto::descriptor(), "is_dynamic_dimension", 3},
      {ShapeProto::descriptor(), "tuple_shapes", 4},
      {ShapeProto::descriptor(), "layout", 5},
      {ProgramShapeProto::descriptor(), "parameters", 1},
      {ProgramShapeProto::descriptor(), "parameter_names", 2},
      {ProgramShapeProto::descriptor(), "result", 3},
      {LiteralProto::descriptor(), "shape", 1},
      {LiteralProto::descriptor(), "data", 2},
      {LiteralProto::descriptor(), "tuple_elements", 3},
      {LiteralProto::descriptor(), "elided", 4},
  };
  for (const Field& f : fields) {
    const google::protobuf::FieldDescriptor* d = f.message->FindFieldByName(f.name);
    ASSERT_NE(d, nullptr) << f.message->name() << "." << f.name;
    EXPECT_EQ(d->number(), f.number) << f.message->name() << "." << f.name;
  }
}

TEST(XlaDataProto, MentionsNoHlo) {
  const google::protobuf::FileDescriptor* file = ShapeProto::descriptor()->file();
  EXPECT_EQ(file->dependency_count(), 0);
  for (int i = 0; i < file->message_type_count(); ++i) {
    EXPECT_EQ(file->message_type(i)->name().find("Hlo"), std::string::npos)
        << file->message_type(i)->name();
  }
}

}  // namespace
}  // namespace xla
