#include "xla/hlo/proto/hlo_proto_convert.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/stubs/logging.h"
#include "gtest/gtest.h"
#include "xla/hlo/ir/conv_dim_labels.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/ir/hlo_module.h"

namespace xla {
namespace {

constexpr int kAttrCount = 0
#define XLA_TEST_ATTR_COUNT_(e, name, kind, allowed) +1
    XLA_HLO_ATTRIBUTES(XLA_TEST_ATTR_COUNT_)
#undef XLA_TEST_ATTR_COUNT_
    ;

Shape F32(std::vector<int64_t> dims) { return Shape::Array(PrimitiveType::F32, dims); }

// A sample value of attribute `id` with the type its kind uses; `variant`
// picks between two sets of values so that both defaults and unusual values
// are covered.
AttrValue SampleValue(AttrId id, HloComputation* a, HloComputation* b, int variant) {
  const bool alt = variant == 1;
  switch (AttrKindOf(id)) {
    case AttrKind::kInt:
      return alt ? std::numeric_limits<int64_t>::min() : int64_t{3} + static_cast<int>(id);
    case AttrKind::kFloat:
      return alt ? -0.0 : 1.0000000000000002e-05;
    case AttrKind::kBool:
      return !alt;
    case AttrKind::kIntList:
      return alt ? std::vector<int64_t>{} : std::vector<int64_t>{2, 0, 1};
    case AttrKind::kBoolList:
      return alt ? std::vector<bool>{} : std::vector<bool>{true, false, true};
    case AttrKind::kIdent: {
      const absl::string_view allowed = AttrAllowedValues(id);
      if (allowed.empty()) return std::string(alt ? "x" : "some_ident");
      const size_t bar = allowed.rfind('|');
      return std::string(alt ? allowed.substr(bar + 1) : allowed.substr(0, allowed.find('|')));
    }
    case AttrKind::kIdentList:
      return alt ? std::vector<std::string>{} : std::vector<std::string>{"high", "highest"};
    case AttrKind::kString:
      return std::string(alt ? "" : "a \"quoted\"\n\tstring\x01\xff");
    case AttrKind::kSlice:
      return alt ? std::vector<SliceDim>{} : std::vector<SliceDim>{{0, 4, 2}, {1, 3, 1}};
    case AttrKind::kWindow: {
      Window w;
      if (!alt) {
        w.dims.push_back(WindowDim{3, 2, 1, -1, 2, 3, true});
        w.dims.push_back(WindowDim{});
        w.dims.push_back(WindowDim{0, 0, 0, 0, 0, 0, false});
      }
      return w;
    }
    case AttrKind::kDimLabels:
      return *ParseConvDimLabels(alt ? "fb01_io01->01bf" : "b01f_01io->b01f");
    case AttrKind::kPadding:
      return alt ? std::vector<PaddingDim>{} : std::vector<PaddingDim>{{1, 2, 0}, {0, -1, 3}};
    case AttrKind::kComputation:
      return alt ? b : a;
    case AttrKind::kComputationList:
      return alt ? std::vector<HloComputation*>{a} : std::vector<HloComputation*>{a, b, a};
    case AttrKind::kReplicaGroups: {
      ReplicaGroups g;
      if (alt) {
        g.groups = {{0, 1}, {2, 3}, {}};
      } else if (variant == 2) {
        g.raw = "mesh[2,2] {...}";
      } else {
        g.iota = true;
        g.group_dims = {2, 2};
        g.reshape_dims = {2, 2};
        g.transpose = {1, 0};
      }
      return g;
    }
    case AttrKind::kIntListList:
      return alt ? std::vector<std::vector<int64_t>>{}
                 : std::vector<std::vector<int64_t>>{{0, 1}, {1, 0}, {}};
    case AttrKind::kShape:
      return alt ? Shape::Token() : Shape::Tuple({F32({2}), Shape::Scalar(PrimitiveType::S32)});
    case AttrKind::kShapeList: {
      Shape column_major = Shape::Array(PrimitiveType::S32, {2, 3});
      column_major.set_layout(Layout{{0, 1}, ""});
      return alt ? std::vector<Shape>{} : std::vector<Shape>{F32({4}), column_major};
    }
    case AttrKind::kRaw:
      return std::string(alt ? "{}"
                             : "{op_name=\"jit(f)/add\" source_file=\"a.py\" source_line=3}");
  }
  return int64_t{0};
}

// A scalar f32 computation `name(x, y) = add(x, y)`.
HloComputation* AddScalarComputation(HloModule* module, const std::string& name) {
  HloComputation* c = module->AddComputation(std::make_unique<HloComputation>(name));
  const Shape s = Shape::Scalar(PrimitiveType::F32);
  HloInstruction* x = c->AddInstruction(HloInstruction::CreateParameter(0, s, "x." + name));
  HloInstruction* y = c->AddInstruction(HloInstruction::CreateParameter(1, s, "y." + name));
  c->set_root_instruction(
      c->AddInstruction(HloInstruction::Create(HloOpcode::kAdd, s, {x, y}, "sum." + name)));
  c->set_has_printed_signature(true);
  return c;
}

// One custom-call per attribute of the table, each carrying that attribute.
std::unique_ptr<HloModule> EveryAttributeModule(int variant) {
  auto module = std::make_unique<HloModule>("every_attribute");
  HloComputation* a = AddScalarComputation(module.get(), "a");
  HloComputation* b = AddScalarComputation(module.get(), "b");
  HloComputation* entry = module->AddComputation(std::make_unique<HloComputation>("main"));
  HloInstruction* p = entry->AddInstruction(HloInstruction::CreateParameter(0, F32({4}), "p"));
  std::vector<HloInstruction*> calls;
  for (int i = 0; i < kAttrCount; ++i) {
    const AttrId id = static_cast<AttrId>(i);
    HloInstruction* call = entry->AddInstruction(HloInstruction::Create(
        HloOpcode::kCustomCall, F32({4}), {p}, absl::StrCat("attr.", AttrName(id))));
    call->SetAttr(id, SampleValue(id, a, b, variant));
    calls.push_back(call);
  }
  entry->set_root_instruction(entry->AddInstruction(HloInstruction::Create(
      HloOpcode::kTuple, Shape::Tuple(std::vector<Shape>(calls.size(), F32({4}))), calls, "root")));
  module->set_entry_computation(entry);
  return module;
}

// Literals of many types, in one place so the tests can reuse them.
std::vector<Literal> SampleLiterals() {
  std::vector<Literal> out;
  Literal bf16(Shape::Array(PrimitiveType::BF16, {2, 3}));
  for (int i = 0; i < 6; ++i) bf16.SetDouble(i, 0.5 * i - 1);
  out.push_back(bf16);
  Literal s4(Shape::Array(PrimitiveType::S4, {3}));
  s4.SetInt(0, -8);
  s4.SetInt(1, 7);
  s4.SetInt(2, -1);
  out.push_back(s4);
  Literal c64(Shape::Array(PrimitiveType::C64, {2}));
  c64.SetComplex(0, {1.5, -2});
  c64.SetComplex(1, {std::nan(""), 0});
  out.push_back(c64);
  Literal pred(Shape::Array(PrimitiveType::PRED, {2}));
  pred.SetInt(1, 1);
  out.push_back(pred);
  Literal f8(Shape::Array(PrimitiveType::F8E4M3FN, {4}));
  f8.SetDouble(0, 448);
  f8.SetDouble(1, -0.0);
  f8.SetDouble(2, 0.1);
  f8.SetBits(3, 0x7f);  // NaN
  out.push_back(f8);
  Literal u4(Shape::Array(PrimitiveType::U4, {2}));
  u4.SetInt(0, 15);
  out.push_back(u4);
  Literal f4(Shape::Array(PrimitiveType::F4E2M1FN, {2}));
  f4.SetDouble(0, -6);
  f4.SetDouble(1, 0.5);
  out.push_back(f4);
  out.push_back(Literal::Elided(Shape::Array(PrimitiveType::F32, {1024, 1024})));
  Literal inner(Shape::Tuple({pred.shape(), F32({8})}));
  (*inner.mutable_tuple_elements())[0] = pred;
  (*inner.mutable_tuple_elements())[1] = Literal::Elided(F32({8}));
  Literal tuple(Shape::Tuple({s4.shape(), inner.shape(), Shape::Tuple({})}));
  (*tuple.mutable_tuple_elements())[0] = s4;
  (*tuple.mutable_tuple_elements())[1] = inner;
  out.push_back(tuple);
  return out;
}

// A module touching every part of the IR: shapes, literals, attributes,
// control edges, config and debug sections.
std::unique_ptr<HloModule> KitchenSinkModule() {
  auto module = std::make_unique<HloModule>("kitchen_sink");
  HloComputation* add = AddScalarComputation(module.get(), "add");
  HloComputation* rootless = module->AddComputation(std::make_unique<HloComputation>("rootless"));
  rootless->AddInstruction(HloInstruction::CreateParameter(0, Shape::Token(), "tok"));
  HloComputation* main = module->AddComputation(std::make_unique<HloComputation>("main"));

  Shape dynamic = Shape::Array(PrimitiveType::F32, {});
  dynamic.add_dimension(4, /*dynamic=*/true);
  dynamic.add_dimension(kUnboundedSize);
  dynamic.set_layout(Layout{{1, 0}, "T(8,128)S(1)"});
  HloInstruction* p0 = main->AddInstruction(HloInstruction::CreateParameter(0, dynamic, "p0"));
  HloInstruction* p1 = main->AddInstruction(
      HloInstruction::CreateParameter(1, Shape::Tuple({F32({2}), Shape::Token()}), "p1"));
  HloInstruction* p2 =
      main->AddInstruction(HloInstruction::CreateParameter(2, Shape::Buffer(F32({4})), "p2"));
  std::vector<HloInstruction*> constants;
  int n = 0;
  for (Literal& literal : SampleLiterals()) {
    constants.push_back(main->AddInstruction(
        HloInstruction::CreateConstant(std::move(literal), absl::StrCat("constant.", n++))));
  }
  HloInstruction* zero = main->AddInstruction(
      HloInstruction::CreateConstant(Literal(Shape::Scalar(PrimitiveType::F32)), "zero"));
  HloInstruction* gte = main->AddInstruction(
      HloInstruction::Create(HloOpcode::kGetTupleElement, F32({2}), {p1}, "gte"));
  gte->SetAttr(AttrId::kIndex, int64_t{0});
  HloInstruction* reduce = main->AddInstruction(HloInstruction::Create(
      HloOpcode::kReduce, Shape::Scalar(PrimitiveType::F32), {gte, zero}, "reduce"));
  reduce->SetAttr(AttrId::kDimensions, std::vector<int64_t>{0});
  reduce->SetAttr(AttrId::kToApply, add);
  reduce->SetAttr(AttrId::kMetadata, std::string("{op_name=\"sum\"}"));
  reduce->AddControlPredecessor(p2);
  reduce->AddControlPredecessor(constants[0]);
  HloInstruction* all_reduce = main->AddInstruction(
      HloInstruction::Create(HloOpcode::kAllReduce, F32({2}), {gte}, "all-reduce"));
  all_reduce->SetAttr(AttrId::kReplicaGroups, SampleValue(AttrId::kReplicaGroups, add, add, 1));
  all_reduce->SetAttr(AttrId::kChannelId, int64_t{5});
  all_reduce->SetAttr(AttrId::kToApply, add);
  HloInstruction* custom = main->AddInstruction(HloInstruction::Create(
      HloOpcode::kCustomCall, dynamic, {p0, all_reduce, all_reduce}, "custom-call"));
  custom->SetAttr(AttrId::kCustomCallTarget, std::string("my\"target"));
  custom->SetAttr(AttrId::kBackendConfig, std::string("{\"k\": [1, 2]}"));
  custom->SetAttr(AttrId::kApiVersion, std::string("API_VERSION_TYPED_FFI"));
  custom->SetAttr(AttrId::kOperandLayoutConstraints,
                  SampleValue(AttrId::kOperandLayoutConstraints, add, add, 0));
  std::vector<HloInstruction*> elements = {p0, reduce, custom};
  elements.insert(elements.end(), constants.begin(), constants.end());
  std::vector<Shape> element_shapes;
  for (const HloInstruction* e : elements) element_shapes.push_back(e->shape());
  main->set_root_instruction(main->AddInstruction(
      HloInstruction::Create(HloOpcode::kTuple, Shape::Tuple(element_shapes), elements, "t")));
  main->set_has_printed_signature(false);
  add->set_execution_thread("host\x01\xff");
  module->set_entry_computation(main);

  HloModuleConfig* config = module->mutable_config();
  config->entry_computation_layout = main->ComputeProgramShape();
  config->entry_computation_layout->parameter_names.clear();
  config->input_output_alias = {{{0}, 1, {0}, "may-alias"}, {{1, 2}, 0, {}, ""}};
  config->has_input_output_alias = true;
  config->has_buffer_donor = true;  // present but empty
  config->replica_count = 2;
  config->num_partitions = 0;
  config->is_scheduled = false;
  config->other_attributes = {{"frontend_attributes", "{a=\"b\"}"}, {"allow_spmd", "{true}"}};
  module->mutable_debug_sections()->push_back({"FileNames", {{1, "\"a.py\""}, {2, "\"b.py\""}}});
  module->mutable_debug_sections()->push_back(
      {"StackFrames", {{1, "{file_location_id=1 parent_frame_id=1}"}}});
  return module;
}

void ExpectSameModule(const HloModule& a, const HloModule& b) {
  EXPECT_EQ(a.name(), b.name());
  ASSERT_EQ(a.computations().size(), b.computations().size());
  for (size_t ci = 0; ci < a.computations().size(); ++ci) {
    const HloComputation& ca = *a.computations()[ci];
    const HloComputation& cb = *b.computations()[ci];
    SCOPED_TRACE(ca.name());
    EXPECT_EQ(ca.name(), cb.name());
    EXPECT_EQ(ca.has_printed_signature(), cb.has_printed_signature());
    EXPECT_EQ(ca.execution_thread(), cb.execution_thread());
    EXPECT_EQ(ca.is_entry(), cb.is_entry());
    EXPECT_EQ(ca.num_parameters(), cb.num_parameters());
    EXPECT_EQ(ca.ComputeProgramShape().ToString(), cb.ComputeProgramShape().ToString());
    ASSERT_EQ(ca.instruction_count(), cb.instruction_count());
    EXPECT_EQ(ca.root_instruction() == nullptr, cb.root_instruction() == nullptr);
    if (ca.root_instruction() != nullptr && cb.root_instruction() != nullptr) {
      EXPECT_EQ(ca.root_instruction()->name(), cb.root_instruction()->name());
    }
    for (int64_t i = 0; i < ca.instruction_count(); ++i) {
      const HloInstruction& ia = *ca.instructions()[i];
      const HloInstruction& ib = *cb.instructions()[i];
      EXPECT_EQ(ia.ToString(), ib.ToString());
      EXPECT_EQ(ia.shape(), ib.shape()) << ia.name();
      EXPECT_EQ(ia.attrs().size(), ib.attrs().size()) << ia.name();
      EXPECT_EQ(ia.users().size(), ib.users().size()) << ia.name();
      if (ia.opcode() == HloOpcode::kConstant) {
        EXPECT_EQ(ia.literal(), ib.literal()) << ia.name();
        EXPECT_EQ(ia.literal().shape(), ib.literal().shape()) << ia.name();
      }
    }
  }
  ASSERT_EQ(a.entry_computation() == nullptr, b.entry_computation() == nullptr);
  if (a.entry_computation() != nullptr) {
    EXPECT_EQ(a.entry_computation()->name(), b.entry_computation()->name());
  }
  const HloModuleConfig& ca = a.config();
  const HloModuleConfig& cb = b.config();
  EXPECT_EQ(ca.entry_computation_layout.has_value(), cb.entry_computation_layout.has_value());
  if (ca.entry_computation_layout && cb.entry_computation_layout) {
    EXPECT_EQ(ca.entry_computation_layout->ToString(), cb.entry_computation_layout->ToString());
  }
  EXPECT_EQ(ca.input_output_alias, cb.input_output_alias);
  EXPECT_EQ(ca.buffer_donor, cb.buffer_donor);
  EXPECT_EQ(ca.has_input_output_alias, cb.has_input_output_alias);
  EXPECT_EQ(ca.has_buffer_donor, cb.has_buffer_donor);
  EXPECT_EQ(ca.replica_count, cb.replica_count);
  EXPECT_EQ(ca.num_partitions, cb.num_partitions);
  EXPECT_EQ(ca.is_scheduled, cb.is_scheduled);
  EXPECT_EQ(ca.other_attributes, cb.other_attributes);
  EXPECT_EQ(a.debug_sections(), b.debug_sections());
}

// IR -> proto -> IR -> proto: identical bytes, identical IR.
void ExpectRoundTrip(const HloModule& module) {
  const HloModuleProto proto = ModuleToProto(module);
  absl::StatusOr<std::unique_ptr<HloModule>> back = ModuleFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(SerializeDeterministically(ModuleToProto(**back)), SerializeDeterministically(proto));
  ExpectSameModule(module, **back);
}

TEST(HloProtoConvert, EveryAttributeRoundTrips) {
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant);
    std::unique_ptr<HloModule> module = EveryAttributeModule(variant);
    ExpectRoundTrip(*module);
  }
}

TEST(HloProtoConvert, AttributesAreStoredByName) {
  std::unique_ptr<HloModule> module = EveryAttributeModule(0);
  const HloModuleProto proto = ModuleToProto(*module);
  const HloComputationProto& main = proto.computations(2);
  const HloInstructionProto& window = main.instructions(1 + static_cast<int>(AttrId::kWindow));
  ASSERT_EQ(window.attributes_size(), 1);
  EXPECT_EQ(window.attributes(0).name(), "window");
  EXPECT_EQ(window.attributes(0).window().dims(0).rhs_dilate(), 3);
  const HloInstructionProto& calls = main.instructions(1 + static_cast<int>(AttrId::kCalls));
  EXPECT_EQ(calls.attributes(0).computations().ids_size(), 3);
  EXPECT_EQ(calls.opcode(), "custom-call");
}

TEST(HloProtoConvert, KitchenSinkRoundTrips) {
  std::unique_ptr<HloModule> module = KitchenSinkModule();
  ExpectRoundTrip(*module);
}

TEST(HloProtoConvert, IdsAreDenseInModuleOrder) {
  std::unique_ptr<HloModule> module = KitchenSinkModule();
  const HloModuleProto proto = ModuleToProto(*module);
  int64_t next = 0;
  for (int ci = 0; ci < proto.computations_size(); ++ci) {
    EXPECT_EQ(proto.computations(ci).id(), ci);
    for (const HloInstructionProto& instr : proto.computations(ci).instructions()) {
      EXPECT_EQ(instr.id(), next++);
    }
  }
  EXPECT_FALSE(proto.computations(1).has_root_id());
  EXPECT_EQ(proto.entry_computation_id(), 2);
  EXPECT_EQ(proto.entry_computation_name(), "main");
}

TEST(HloProtoConvert, EmptyModuleRoundTrips) {
  HloModule module("empty");
  const HloModuleProto proto = ModuleToProto(module);
  EXPECT_FALSE(proto.has_entry_computation_id());
  ExpectRoundTrip(module);
}

TEST(HloProtoConvert, AcceptsSparseIdsAndForwardReferences) {
  std::unique_ptr<HloModule> module = KitchenSinkModule();
  HloModuleProto proto = ModuleToProto(*module);
  // Re-number with large, sparse ids; reverse the instruction order of the
  // callee so operands come after their users.
  for (HloComputationProto& c : *proto.mutable_computations()) {
    c.set_id(c.id() * 1000 + 7);
    for (HloInstructionProto& instr : *c.mutable_instructions()) {
      instr.set_id(instr.id() * 31 + 1000000);
      for (int64_t& op : *instr.mutable_operand_ids()) op = op * 31 + 1000000;
      for (int64_t& op : *instr.mutable_control_predecessor_ids()) op = op * 31 + 1000000;
      for (HloAttributeProto& attr : *instr.mutable_attributes()) {
        if (attr.has_computation()) attr.set_computation(attr.computation() * 1000 + 7);
        if (attr.has_computations()) {
          for (int64_t& id : *attr.mutable_computations()->mutable_ids()) id = id * 1000 + 7;
        }
      }
    }
    if (c.has_root_id()) c.set_root_id(c.root_id() * 31 + 1000000);
  }
  proto.set_entry_computation_id(proto.entry_computation_id() * 1000 + 7);
  absl::StatusOr<std::unique_ptr<HloModule>> back = ModuleFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameModule(*module, **back);
  EXPECT_EQ(SerializeDeterministically(ModuleToProto(**back)),
            SerializeDeterministically(ModuleToProto(*module)));
}

// Flips random bytes of a valid serialized module: whatever parses must
// either be rejected cleanly or round-trip.
TEST(HloProtoConvert, CorruptedBytesNeverCrash) {
  const std::string bytes = SerializeDeterministically(ModuleToProto(*KitchenSinkModule()));
  std::mt19937 rng(1234);
  google::protobuf::LogSilencer silence_invalid_utf8_reports;
  int accepted = 0;
  int rejected = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    std::string corrupted = bytes;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      corrupted[rng() % corrupted.size()] = static_cast<char>(rng() % 256);
    }
    HloModuleProto proto;
    if (!proto.ParseFromString(corrupted)) continue;
    absl::StatusOr<std::unique_ptr<HloModule>> module = ModuleFromProto(proto);
    if (!module.ok()) {
      EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
      ++rejected;
      continue;
    }
    ++accepted;
    const HloModuleProto again = ModuleToProto(**module);
    absl::StatusOr<std::unique_ptr<HloModule>> back = ModuleFromProto(again);
    ASSERT_TRUE(back.ok()) << back.status();
    ASSERT_EQ(SerializeDeterministically(ModuleToProto(**back)), SerializeDeterministically(again));
  }
  EXPECT_GT(accepted, 0);
  EXPECT_GT(rejected, 0);
}

// The module the malformed-proto cases start from:
//   add(x: f32[], y: f32[]) -> f32[]              ids: computation 0; x 0, y 1, sum 2
//   ENTRY main: p0 = f32[4] parameter(0)           computation 1; p0 3
//               c = f32[4] constant({0, 0, 0, 0})  c 4
//               zero = f32[] constant(0)           zero 5
//               a = f32[4] add(p0, c)              a 6
//               r = f32[] reduce(a, zero), dimensions={0}, to_apply=add   r 7
HloModuleProto SmallModuleProto() {
  HloModule module("small");
  HloComputation* add = AddScalarComputation(&module, "add");
  HloComputation* main = module.AddComputation(std::make_unique<HloComputation>("main"));
  HloInstruction* p0 = main->AddInstruction(HloInstruction::CreateParameter(0, F32({4}), "p0"));
  HloInstruction* c = main->AddInstruction(HloInstruction::CreateConstant(Literal(F32({4})), "c"));
  HloInstruction* zero = main->AddInstruction(
      HloInstruction::CreateConstant(Literal(Shape::Scalar(PrimitiveType::F32)), "zero"));
  HloInstruction* a =
      main->AddInstruction(HloInstruction::Create(HloOpcode::kAdd, F32({4}), {p0, c}, "a"));
  HloInstruction* r = main->AddInstruction(HloInstruction::Create(
      HloOpcode::kReduce, Shape::Scalar(PrimitiveType::F32), {a, zero}, "r"));
  r->SetAttr(AttrId::kDimensions, std::vector<int64_t>{0});
  r->SetAttr(AttrId::kToApply, add);
  main->set_root_instruction(r);
  module.set_entry_computation(main);
  return ModuleToProto(module);
}

HloInstructionProto* Instr(HloModuleProto* p, int computation, int instruction) {
  return p->mutable_computations(computation)->mutable_instructions(instruction);
}

HloAttributeProto* AddAttr(HloInstructionProto* instr, const std::string& name) {
  HloAttributeProto* attr = instr->add_attributes();
  attr->set_name(name);
  return attr;
}

struct MalformedCase {
  std::string what;
  std::function<void(HloModuleProto*)> mutate;
  std::string error;  // a substring of the expected message
};

std::vector<MalformedCase> MalformedCases() {
  const std::string r = "HloModuleProto.computations[1].instructions[4]";
  return {
      {"unknown opcode", [](HloModuleProto* p) { Instr(p, 1, 3)->set_opcode("frobnicate"); },
       "HloModuleProto.computations[1].instructions[3].opcode: unknown opcode \"frobnicate\" "
       "(instruction \"a\" of computation \"main\")"},
      {"unknown attribute",
       [](HloModuleProto* p) { Instr(p, 1, 4)->mutable_attributes(0)->set_name("dimensionz"); },
       r + ".attributes[0].name: unknown attribute name \"dimensionz\""},
      {"attribute of the wrong kind",
       [](HloModuleProto* p) { Instr(p, 1, 4)->mutable_attributes(0)->set_float_value(1); },
       "attribute dimensions holds float_value, but its kind needs ints"},
      {"attribute without value",
       [](HloModuleProto* p) { Instr(p, 1, 4)->mutable_attributes(0)->clear_value(); },
       "attribute dimensions holds no value, but its kind needs ints"},
      {"identifier outside the allowed set",
       [](HloModuleProto* p) { AddAttr(Instr(p, 1, 3), "direction")->set_ident("XX"); },
       "attribute direction has value \"XX\"; allowed: EQ|NE|LT|LE|GT|GE"},
      {"repeated attribute",
       [](HloModuleProto* p) { AddAttr(Instr(p, 1, 4), "dimensions")->mutable_ints(); },
       r + ".attributes[2]: attribute dimensions is given twice"},
      {"malformed dim_labels",
       [](HloModuleProto* p) {
         AddAttr(Instr(p, 1, 4), "dim_labels")->set_dim_labels("b01f_0io->b0f");
       },
       r + ".attributes[2].dim_labels: dim_labels 'b01f_0io->b0f'"},
      {"verbatim replica groups mixed with iota fields",
       [](HloModuleProto* p) {
         ReplicaGroupsProto* g =
             AddAttr(Instr(p, 1, 4), "replica_groups")->mutable_replica_groups();
         g->set_raw("mesh[4] {...}");
         g->add_group_dims(1);
       },
       "verbatim replica groups \"mesh[4] {...}\" carry other replica group fields too"},
      {"bad iota replica groups",
       [](HloModuleProto* p) {
         ReplicaGroupsProto* g =
             AddAttr(Instr(p, 1, 4), "replica_groups")->mutable_replica_groups();
         g->set_iota(true);
         g->add_group_dims(2);
         g->add_group_dims(3);
         g->add_reshape_dims(4);
       },
       "must be non-negative and hold the same number of devices"},
      {"dangling operand", [](HloModuleProto* p) { Instr(p, 1, 3)->set_operand_ids(0, 999); },
       "HloModuleProto.computations[1].instructions[3].operand_ids[0]: id 999 names no "
       "instruction"},
      {"operand of another computation",
       [](HloModuleProto* p) { Instr(p, 1, 3)->set_operand_ids(1, 0); },
       "operand_ids[1]: id 0 names instruction \"x.add\" of computation \"add\", not of this "
       "computation"},
      {"control predecessor of another computation",
       [](HloModuleProto* p) { Instr(p, 1, 3)->add_control_predecessor_ids(2); },
       "control_predecessor_ids[0]: id 2 names instruction \"sum.add\""},
      {"repeated instruction id", [](HloModuleProto* p) { Instr(p, 1, 0)->set_id(1); },
       "HloModuleProto.computations[1].instructions[0].id: instruction id 1 is already used by "
       "HloModuleProto.computations[0].instructions[1]"},
      {"negative instruction id", [](HloModuleProto* p) { Instr(p, 0, 0)->set_id(-5); },
       "instruction id -5 is negative"},
      {"repeated computation id", [](HloModuleProto* p) { p->mutable_computations(1)->set_id(0); },
       "HloModuleProto.computations[1].id: computation id 0 is used twice"},
      {"repeated computation name",
       [](HloModuleProto* p) { p->mutable_computations(1)->set_name("add"); },
       "computation name \"add\" is already used"},
      {"repeated instruction name", [](HloModuleProto* p) { Instr(p, 1, 3)->set_name("c"); },
       "instruction name \"c\" is used twice in computation \"main\""},
      {"empty instruction name", [](HloModuleProto* p) { Instr(p, 1, 3)->set_name(""); },
       "instruction name is empty"},
      {"dangling root", [](HloModuleProto* p) { p->mutable_computations(1)->set_root_id(42); },
       "HloModuleProto.computations[1].root_id: id 42 names no instruction"},
      {"root in another computation",
       [](HloModuleProto* p) { p->mutable_computations(0)->set_root_id(7); },
       "computations[0].root_id: id 7 names instruction \"r\" of computation \"main\""},
      {"dangling called computation",
       [](HloModuleProto* p) { Instr(p, 1, 4)->mutable_attributes(1)->set_computation(9); },
       r + ".attributes[1].computation: computation id 9 names no computation"},
      {"computation calling itself",
       [](HloModuleProto* p) { AddAttr(Instr(p, 0, 2), "to_apply")->set_computation(0); },
       "computations call each other in a cycle: add -> add"},
      {"computations calling each other",
       [](HloModuleProto* p) {
         AddAttr(Instr(p, 0, 2), "branch_computations")->mutable_computations()->add_ids(1);
       },
       "cycle: add -> main -> add"},
      {"instruction cycle", [](HloModuleProto* p) { Instr(p, 1, 3)->set_operand_ids(0, 7); },
       "computation \"main\" has a cycle through operands or control predecessors: a -> r -> a"},
      {"instruction using itself",
       [](HloModuleProto* p) { Instr(p, 1, 3)->add_control_predecessor_ids(6); }, "a -> a"},
      {"literal byte size",
       [](HloModuleProto* p) { Instr(p, 1, 1)->mutable_literal()->mutable_data()->pop_back(); },
       "HloModuleProto.computations[1].instructions[1].literal.data: literal of shape f32[4]{0} "
       "needs 16 data bytes, but has 15"},
      {"literal shape differs from the instruction's",
       [](HloModuleProto* p) {
         LiteralProto* l = Instr(p, 1, 1)->mutable_literal();
         l->mutable_shape()->set_dimensions(0, 2);
         l->mutable_shape()->mutable_layout()->clear_minor_to_major();
         l->mutable_data()->resize(8);
       },
       "literal shape f32[2] does not match the instruction shape f32[4]{0}"},
      {"constant without literal", [](HloModuleProto* p) { Instr(p, 1, 1)->clear_literal(); },
       "computations[1].instructions[1].literal: constant has no literal"},
      {"literal on a non-constant",
       [](HloModuleProto* p) { *Instr(p, 1, 3)->mutable_literal() = Instr(p, 1, 1)->literal(); },
       "literal on a add instruction"},
      {"negative dimension",
       [](HloModuleProto* p) { Instr(p, 1, 0)->mutable_shape()->set_dimensions(0, -4); },
       "HloModuleProto.computations[1].instructions[0].shape.dimensions[0]: dimension size -4 is "
       "negative"},
      {"element count overflow",
       [](HloModuleProto* p) {
         ShapeProto* s = Instr(p, 1, 0)->mutable_shape();
         s->set_dimensions(0, int64_t{1} << 32);
         s->add_dimensions(int64_t{1} << 32);
         s->add_is_dynamic_dimension(false);
         s->clear_layout();
       },
       "element count of f32[4294967296,4294967296] overflows int64"},
      {"unknown element type",
       [](HloModuleProto* p) {
         Instr(p, 1, 0)->mutable_shape()->set_element_type(static_cast<PrimitiveTypeProto>(99));
       },
       "shape.element_type: unknown primitive type value 99"},
      {"repeated parameter number",
       [](HloModuleProto* p) { Instr(p, 0, 1)->set_parameter_number(0); },
       "computations[0].instructions[1].parameter_number: parameter number 0 is negative, "
       "repeated"},
      {"parameter number out of range",
       [](HloModuleProto* p) { Instr(p, 0, 1)->set_parameter_number(1 << 30); },
       "parameter number 1073741824"},
      {"parameter number on a non-parameter",
       [](HloModuleProto* p) { Instr(p, 1, 3)->set_parameter_number(2); },
       "parameter_number 2 on a add instruction"},
      {"dangling entry", [](HloModuleProto* p) { p->set_entry_computation_id(5); },
       "HloModuleProto.entry_computation_id: id 5 names no computation"},
      {"entry name mismatch", [](HloModuleProto* p) { p->set_entry_computation_name("add"); },
       "\"add\" differs from the name of entry computation id 1, \"main\""},
      {"alias kind",
       [](HloModuleProto* p) { p->mutable_config()->add_input_output_alias()->set_kind("maybe"); },
       "HloModuleProto.config.input_output_alias[0].kind: alias kind \"maybe\""},
      {"negative donor",
       [](HloModuleProto* p) { p->mutable_config()->add_buffer_donor()->set_parameter_number(-1); },
       "config.buffer_donor[0]: parameter number -1"},
      {"bad entry layout",
       [](HloModuleProto* p) {
         p->mutable_config()->mutable_entry_computation_layout()->add_parameters();
       },
       "config.entry_computation_layout.parameters[0].element_type: primitive type is unset"},
      {"unknown debug section",
       [](HloModuleProto* p) { p->add_debug_sections()->set_name("Files"); },
       "HloModuleProto.debug_sections[0].name: unknown debug section \"Files\""},
  };
}

TEST(HloProtoConvert, RejectsMalformedProtos) {
  const HloModuleProto base = SmallModuleProto();
  ASSERT_TRUE(ModuleFromProto(base).ok());
  for (const MalformedCase& c : MalformedCases()) {
    SCOPED_TRACE(c.what);
    HloModuleProto proto = base;
    c.mutate(&proto);
    absl::StatusOr<std::unique_ptr<HloModule>> module = ModuleFromProto(proto);
    ASSERT_FALSE(module.ok());
    EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(module.status().message()), ::testing::HasSubstr(c.error));
  }
}

}  // namespace
}  // namespace xla
