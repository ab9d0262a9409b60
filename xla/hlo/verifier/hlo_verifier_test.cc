#include "xla/hlo/verifier/hlo_verifier.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/verifier/element_type_rules.h"
#include "xla/hlo/verifier/test_builder.h"

namespace xla {
namespace {

using hlo_test::CompBuilder;
using hlo_test::S;
using ::testing::HasSubstr;
using V = std::vector<int64_t>;

std::string Message(const absl::Status& s) { return s.ok() ? "OK" : std::string(s.message()); }

class VerifierTest : public ::testing::Test {
 protected:
  // main(p0: f32[33], p1: f32[33]) = add(p0, p1)
  void BuildValid() {
    x_ = b_.Param("f32[33]", "x");
    y_ = b_.Param("f32[33]", "y");
    add_ = b_.Op(HloOpcode::kAdd, "f32[33]", {x_, y_}, "add.3");
    b_.Finish(add_, /*entry=*/true);
  }

  HloModule module_{"m"};
  CompBuilder b_{&module_, "main"};
  HloInstruction* x_ = nullptr;
  HloInstruction* y_ = nullptr;
  HloInstruction* add_ = nullptr;
};

TEST_F(VerifierTest, ValidModulePasses) {
  BuildValid();
  EXPECT_EQ(Message(VerifyModule(module_)), "OK");
  EXPECT_EQ(Message(VerifyComputation(*b_.comp())), "OK");
}

TEST_F(VerifierTest, ShapeMismatchNamesBothShapes) {
  BuildValid();
  *add_->mutable_shape() = S("f32[5]");
  EXPECT_EQ(Message(VerifyModule(module_)),
            "instruction 'add.3' (add): inferred shape f32[33] but declared f32[5]");
}

// Parses `text` as file "model.hlo" and verifies it; "OK" or the message.
std::string VerifyText(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, "model.hlo");
  if (!module.ok()) return absl::StrCat("parse error: ", module.status().message());
  return Message(VerifyModule(**module));
}

// The three errors a user meets most, each at the file:line:col where the
// instruction's name is written (lines count from the text's first).
TEST(VerifierLocationTest, ParsedInstructionsAreNamedWithFileLineAndColumn) {
  EXPECT_EQ(VerifyText("HloModule m\n"
                       "ENTRY main {\n"
                       "  a = f32[7] parameter(0)\n"
                       "  ROOT sum = f32[5] add(a, a)\n"
                       "}\n"),
            "model.hlo:4:8: instruction 'sum' (add): inferred shape f32[7] but declared f32[5]");
  EXPECT_THAT(VerifyText("HloModule m\n"
                         "ENTRY main {\n"
                         "  a = f32[3,5] parameter(0)\n"
                         "  b = f32[7,2] parameter(1)\n"
                         "  ROOT d = f32[3,2] dot(a, b), lhs_contracting_dims={1}, "
                         "rhs_contracting_dims={0}\n"
                         "}\n"),
              ::testing::StartsWith("model.hlo:5:8: instruction 'd' (dot): "));
  EXPECT_THAT(VerifyText("HloModule m\n"
                         "ENTRY main {\n"
                         "  a = f32[3] parameter(0)\n"
                         "  t = (f32[3], f32[3]) tuple(a, a)\n"
                         "\n"
                         "     ROOT g = f32[3] get-tuple-element(t), index=2\n"
                         "}\n"),
              ::testing::StartsWith("model.hlo:6:11: instruction 'g' (get-tuple-element): "));
}

// Module-level errors, which no instruction carries, still name the file;
// instructions a pass made (no location) are named without one.
TEST(VerifierLocationTest, OtherErrorsNameTheFile) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(
      "HloModule m\nENTRY main {\n  a = f32[3] parameter(0)\n  ROOT n = f32[3] negate(a)\n}\n",
      "model.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  HloComputation* entry = (*module)->entry_computation();
  HloInstruction* made = entry->AddInstruction(std::make_unique<HloInstruction>(
      HloOpcode::kNegate, "made", entry->root_instruction()->shape()));
  made->AppendOperand(entry->root_instruction());
  *made->mutable_shape() = S("f32[4]");
  EXPECT_EQ(Message(VerifyModule(**module)),
            "model.hlo: instruction 'made' (negate): inferred shape f32[3] but declared f32[4]");
  // A clone keeps its original's place in the text.
  std::unique_ptr<HloInstruction> clone =
      entry->root_instruction()->CloneWithNewOperands(S("f32[3]"), {}, "n.clone");
  EXPECT_EQ(clone->source_location().line, 4);
  EXPECT_EQ(clone->source_location().column, 8);
}

TEST_F(VerifierTest, LayoutAndDynamicFlagsAreIgnored) {
  BuildValid();
  Shape s = S("f32[33]");
  s.mutable_layout()->suffix = "T(128)";
  *add_->mutable_shape() = s;
  EXPECT_EQ(Message(VerifyModule(module_)), "OK");
  *add_->mutable_shape() = S("f32[<=33]");
  EXPECT_EQ(Message(VerifyModule(module_)), "OK");
}

TEST_F(VerifierTest, InferenceErrorsNameTheOpcode) {
  BuildValid();
  HloInstruction* z = b_.Param("f32[5]", "z");
  add_->ReplaceOperandWith(1, z);
  EXPECT_EQ(Message(VerifyModule(module_)),
            "instruction 'add.3' (add): operand shapes f32[33] and f32[5] differ");
}

TEST_F(VerifierTest, MissingEntryAndRoot) {
  b_.Param("f32[]", "x");
  EXPECT_EQ(Message(VerifyModule(module_)),
            "module 'm' has no entry computation\ncomputation 'main' has no root instruction");
}

TEST_F(VerifierTest, ParameterNumbersMustBeDense) {
  HloInstruction* a = b_.comp()->AddInstruction(
      HloInstruction::CreateParameter(0, S("f32[]"), "a"));
  b_.comp()->AddInstruction(HloInstruction::CreateParameter(2, S("f32[]"), "c"));
  b_.comp()->AddInstruction(HloInstruction::CreateParameter(2, S("f32[]"), "d"));
  b_.Finish(a, true);
  EXPECT_EQ(Message(VerifyComputation(*b_.comp())),
            "computation 'main': parameter number 2 is used by both 'c' and 'd'\n"
            "computation 'main': parameter numbers must be 0..1 without gaps, but 1 is missing");
}

TEST_F(VerifierTest, OperandsMustComeFromTheSameComputation) {
  BuildValid();
  CompBuilder other(&module_, "other");
  HloInstruction* foreign = other.Param("f32[33]", "foreign");
  other.Finish(other.Op(HloOpcode::kNegate, "f32[33]", {foreign}, "neg"));
  add_->ReplaceOperandWith(0, foreign);
  EXPECT_EQ(Message(VerifyModule(module_)),
            "instruction 'add.3' (add): operand 0 'foreign' is not in computation 'main'");
}

TEST_F(VerifierTest, OperandCountMustMatchTheTable) {
  BuildValid();
  add_->AppendOperand(x_);
  EXPECT_EQ(Message(VerifyModule(module_)),
            "instruction 'add.3' (add): takes 2 operands, got 3");
}

TEST_F(VerifierTest, ElementTypeRules) {
  HloInstruction* f = b_.Param("f32[4]", "f");
  HloInstruction* i = b_.Param("s32[4]", "i");
  HloInstruction* p = b_.Param("pred[4]", "p");
  std::vector<HloInstruction*> all = {
      b_.Op(HloOpcode::kAnd, "f32[4]", {f, f}, "and"),
      b_.Op(HloOpcode::kShiftLeft, "f32[4]", {f, f}, "shl"),
      b_.Op(HloOpcode::kExp, "s32[4]", {i}, "exp"),
      b_.Op(HloOpcode::kPopulationCount, "pred[4]", {p}, "popcnt"),
      b_.Op(HloOpcode::kFloor, "s32[4]", {i}, "floor"),
      b_.Op(HloOpcode::kNegate, "pred[4]", {p}, "neg"),
  };
  HloInstruction* ok_and = b_.Op(HloOpcode::kAnd, "pred[4]", {p, p}, "ok_and");
  HloInstruction* ok_xor = b_.Op(HloOpcode::kXor, "s32[4]", {i, i}, "ok_xor");
  all.push_back(ok_and);
  all.push_back(ok_xor);
  b_.Finish(b_.Op(HloOpcode::kTuple, "", {}, "t"), true);
  EXPECT_EQ(Message(CheckElementTypes(*all[0])),
            "instruction 'and' (and): operand 0 has type f32; and needs pred or integer types");
  EXPECT_EQ(Message(CheckElementTypes(*all[1])),
            "instruction 'shl' (shift-left): operand 0 has type f32; shift-left needs integer "
            "types");
  EXPECT_EQ(Message(CheckElementTypes(*all[2])),
            "instruction 'exp' (exponential): operand 0 has type s32; exponential needs "
            "floating-point or complex types");
  EXPECT_THAT(Message(CheckElementTypes(*all[3])), HasSubstr("popcnt needs integer types"));
  EXPECT_THAT(Message(CheckElementTypes(*all[4])), HasSubstr("floor needs floating-point types"));
  EXPECT_THAT(Message(CheckElementTypes(*all[5])), HasSubstr("negate needs numeric"));
  EXPECT_EQ(Message(CheckElementTypes(*ok_and)), "OK");
  EXPECT_EQ(Message(CheckElementTypes(*ok_xor)), "OK");
  // The module reports all six, one per line.
  std::string report = Message(VerifyModule(module_));
  EXPECT_EQ(std::count(report.begin(), report.end(), '\n'), 5) << report;
}

TEST_F(VerifierTest, DeclaredElementTypeOpsCompareDimensions) {
  HloInstruction* a = b_.Param("bf16[7,33,5]");
  HloInstruction* b = b_.Param("bf16[7,5,257]");
  HloInstruction* dot = b_.Op(HloOpcode::kDot, "f32[7,33,257]", {a, b}, "dot");
  dot->SetAttr(AttrId::kLhsBatchDims, V{0});
  dot->SetAttr(AttrId::kRhsBatchDims, V{0});
  dot->SetAttr(AttrId::kLhsContractingDims, V{2});
  dot->SetAttr(AttrId::kRhsContractingDims, V{1});
  HloInstruction* cv = b_.Op(HloOpcode::kConvert, "s8[7,33,257]", {dot}, "cv");
  b_.Finish(cv, true);
  EXPECT_EQ(Message(VerifyModule(module_)), "OK");
  *dot->mutable_shape() = S("f32[7,33,256]");
  EXPECT_EQ(Message(VerifyModule(module_)),
            "instruction 'dot' (dot): inferred shape f32[7,33,257] but declared f32[7,33,256]\n"
            "instruction 'cv' (convert): inferred shape s8[7,33,256] but declared s8[7,33,257]");
}

TEST_F(VerifierTest, CalledComputationsAreChecked) {
  HloComputation* add = hlo_test::ScalarBinary(&module_, "f32", HloOpcode::kAdd, "add");
  HloInstruction* x = b_.Param("f32[33,257]", "x");
  HloInstruction* zero = b_.Constant("f32[]", "zero");
  HloInstruction* r = b_.Op(HloOpcode::kReduce, "f32[33]", {x, zero}, "r");
  r->SetAttr(AttrId::kDimensions, V{1});
  r->SetAttr(AttrId::kToApply, add);
  b_.Finish(r, true);
  EXPECT_EQ(Message(VerifyModule(module_)), "OK");

  // A reducer taking one parameter.
  CompBuilder neg(&module_, "neg");
  HloInstruction* np = neg.Param("f32[]", "np");
  neg.Finish(neg.Op(HloOpcode::kNegate, "f32[]", {np}, "nn"));
  r->SetAttr(AttrId::kToApply, neg.comp());
  EXPECT_EQ(Message(VerifyModule(module_)),
            "instruction 'r' (reduce): expected 2 parameters of reducer computation 'neg' "
            "((np: f32[]) -> f32[])");

  // A computation outside the module.
  HloComputation stray("stray");
  r->SetAttr(AttrId::kToApply, &stray);
  EXPECT_THAT(Message(VerifyModule(module_)),
              HasSubstr("instruction 'r' (reduce) calls a computation that is not in module 'm'"));

  // Calling the entry.
  r->SetAttr(AttrId::kToApply, b_.comp());
  EXPECT_THAT(Message(VerifyModule(module_)),
              HasSubstr("instruction 'r' (reduce) calls the entry computation 'main'"));
}

TEST_F(VerifierTest, WhileConditionMustReturnPred) {
  CompBuilder cond(&module_, "cond");
  HloInstruction* cp = cond.Param("s32[]", "cp");
  HloInstruction* lim = cond.Constant("s32[]", "lim");
  HloInstruction* lt = cond.Op(HloOpcode::kCompare, "pred[]", {cp, lim}, "lt");
  cond.Finish(lt);
  CompBuilder body(&module_, "body");
  HloInstruction* bp = body.Param("s32[]", "bp");
  body.Finish(body.Op(HloOpcode::kAdd, "s32[]", {bp, bp}, "inc"));
  HloInstruction* init = b_.Param("s32[]", "init");
  HloInstruction* loop = b_.Op(HloOpcode::kWhile, "s32[]", {init}, "loop");
  loop->SetAttr(AttrId::kCondition, cond.comp());
  loop->SetAttr(AttrId::kBody, body.comp());
  b_.Finish(loop, true);
  EXPECT_EQ(Message(VerifyModule(module_)), "OK");
  cond.Finish(cp);
  EXPECT_EQ(Message(VerifyModule(module_)),
            "instruction 'loop' (while): condition computation 'cond' must return pred[], got "
            "s32[]");
}

TEST_F(VerifierTest, CallCycleIsReported) {
  CompBuilder a(&module_, "a");
  HloInstruction* ap = a.Param("f32[]", "ap");
  HloInstruction* call_b = a.Op(HloOpcode::kCall, "f32[]", {ap}, "call_b");
  a.Finish(call_b);
  CompBuilder b(&module_, "b");
  HloInstruction* bp = b.Param("f32[]", "bp");
  HloInstruction* call_a = b.Op(HloOpcode::kCall, "f32[]", {bp}, "call_a");
  call_a->SetAttr(AttrId::kToApply, a.comp());
  b.Finish(call_a);
  call_b->SetAttr(AttrId::kToApply, b.comp());
  HloInstruction* x = b_.Param("f32[]", "x");
  HloInstruction* call = b_.Op(HloOpcode::kCall, "f32[]", {x}, "call");
  call->SetAttr(AttrId::kToApply, a.comp());
  b_.Finish(call, true);
  EXPECT_THAT(Message(VerifyModule(module_)), HasSubstr("(call graph cycle)"));
}

TEST_F(VerifierTest, InstructionCycleIsReported) {
  HloInstruction* x = b_.Param("f32[3]", "x");
  HloInstruction* n1 = b_.Op(HloOpcode::kNegate, "f32[3]", {x}, "n1");
  HloInstruction* n2 = b_.Op(HloOpcode::kNegate, "f32[3]", {n1}, "n2");
  n1->ReplaceOperandWith(0, n2);
  b_.Finish(n2, true);
  EXPECT_THAT(Message(VerifyModule(module_)), HasSubstr("which depends on it in turn (cycle"));
}

TEST_F(VerifierTest, NamesMustBeUnique) {
  BuildValid();
  CompBuilder other(&module_, "main");
  HloInstruction* p = other.Param("f32[]", "x");  // same name, other computation: fine
  other.Finish(p);
  EXPECT_EQ(Message(VerifyModule(module_)), "module 'm' has two computations named 'main'");
  other.comp()->set_name("other");
  b_.Op(HloOpcode::kNegate, "f32[33]", {x_}, "add.3");
  EXPECT_EQ(Message(VerifyModule(module_)),
            "computation 'main': instruction name 'add.3' is used twice");
}

TEST_F(VerifierTest, EntryLayoutMustMatchSignature) {
  BuildValid();
  ProgramShape layout;
  layout.parameters = {S("f32[33]"), S("f32[34]")};
  layout.result = S("f32[33]");
  module_.mutable_config()->entry_computation_layout = layout;
  EXPECT_EQ(Message(VerifyModule(module_)),
            "entry_computation_layout parameter 1 is f32[34] but parameter 'y' is f32[33]");
  layout.parameters.pop_back();
  module_.mutable_config()->entry_computation_layout = layout;
  EXPECT_EQ(Message(VerifyModule(module_)),
            "entry_computation_layout has 1 parameters but entry computation 'main' has 2");
}

TEST_F(VerifierTest, ManyErrorsAreCapped) {
  HloInstruction* x = b_.Param("f32[3]", "x");
  HloInstruction* last = x;
  for (int i = 0; i < 150; ++i) last = b_.Op(HloOpcode::kNegate, "f32[4]", {x});
  b_.Finish(last, true);
  std::string report = Message(VerifyModule(module_));
  EXPECT_EQ(std::count(report.begin(), report.end(), '\n'), 100);
  EXPECT_THAT(report, HasSubstr("... and 50 more errors"));
}

TEST_F(VerifierTest, CollectivesWithUnknownGroupsAcceptDeclaredShapes) {
  HloComputation* add = hlo_test::ScalarBinary(&module_, "f32", HloOpcode::kAdd, "add");
  HloInstruction* x = b_.Param("f32[8,6]", "x");
  HloInstruction* ag = b_.Op(HloOpcode::kAllGather, "f32[8,24]", {x}, "ag");
  ag->SetAttr(AttrId::kDimensions, V{1});
  ag->SetAttr(AttrId::kReplicaGroups, ReplicaGroups{});
  HloInstruction* rs = b_.Op(HloOpcode::kReduceScatter, "f32[8,6]", {ag}, "rs");
  rs->SetAttr(AttrId::kDimensions, V{1});
  rs->SetAttr(AttrId::kToApply, add);
  HloInstruction* id = b_.Op(HloOpcode::kReplicaId, "u32[]", {}, "id");
  b_.Finish(b_.Op(HloOpcode::kTuple, "(f32[8,6], u32[])", {rs, id}, "t"), true);
  EXPECT_EQ(Message(VerifyModule(module_)), "OK");
  *rs->mutable_shape() = S("f32[8,5]");
  EXPECT_EQ(Message(VerifyModule(module_)),
            "instruction 'rs' (reduce-scatter): declared f32[8,5] does not divide f32[8,24] "
            "along dimension 1\n"
            "instruction 't' (tuple): inferred shape (f32[8,5], u32[]) but declared "
            "(f32[8,6], u32[])");
}

}  // namespace
}  // namespace xla
