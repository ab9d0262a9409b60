#include "xla/hlo/transforms/elided_constant_filler.h"

#include <set>
#include <string>

#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/types/random_literal.h"

namespace xla {
namespace {

// Two elided constants (one in a called computation), one printed, a
// tuple-shaped elided constant, odd sizes.
constexpr char kElided[] = R"(HloModule elided

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[7,13] parameter(0)
  %weights = f32[7,13]{1,0} constant({...})
  bias = f32[13] constant({...})
  t = (s32[5], pred[3]) constant({...})
  one = f32[] constant(1)
  b = f32[7,13] broadcast(bias), dimensions={1}
  m = f32[7,13] multiply(p, weights)
  ROOT r = f32[7,13] add(m, b)
}
)";

std::unique_ptr<HloModule> Parse(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "test.hlo");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

const HloInstruction* Find(const HloModule& module, absl::string_view name) {
  for (const auto& c : module.computations()) {
    for (const auto& i : c->instructions()) {
      if (i->name() == name) return i.get();
    }
  }
  return nullptr;
}

ElidedConstantsOptions Mode(ElidedConstantsMode mode, uint64_t seed = 0) {
  ElidedConstantsOptions o;
  o.mode = mode;
  o.seed = seed;
  o.source_name = "test.hlo";
  return o;
}

TEST(ElidedConstantFiller, ModeNamesRoundTrip) {
  for (ElidedConstantsMode m : {ElidedConstantsMode::kError, ElidedConstantsMode::kZeros,
                                ElidedConstantsMode::kRandom}) {
    EXPECT_EQ(ParseElidedConstantsMode(ElidedConstantsModeName(m)), m);
  }
  EXPECT_EQ(ParseElidedConstantsMode("ones"), std::nullopt);
  EXPECT_EQ(ParseElidedConstantsMode(""), std::nullopt);
}

TEST(ElidedConstantFiller, ErrorModeNamesConstantLineAndFlag) {
  std::unique_ptr<HloModule> module = Parse(kElided);
  ElidedConstantsOptions o = Mode(ElidedConstantsMode::kError);
  absl::StatusOr<std::vector<std::string>> r = FillElidedConstants(module.get(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(r.status().message());
  EXPECT_NE(msg.find("test.hlo:11: constant %weights (f32[7,13]) has an elided value ({...})"),
            std::string::npos) << msg;
  EXPECT_NE(msg.find("and so do 2 more (%bias, %t)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--elided_constants=random"), std::string::npos) << msg;
  EXPECT_TRUE(Find(*module, "weights")->literal().elided());
  // Without a recorded location there is no line number.
  const_cast<HloInstruction*>(Find(*module, "weights"))->set_source_location({});
  r = FillElidedConstants(module.get(), Mode(ElidedConstantsMode::kError));
  EXPECT_NE(r.status().message().find("test.hlo: constant %weights"), std::string::npos) << r.status();
}

TEST(ElidedConstantFiller, NothingElidedIsNoChange) {
  std::unique_ptr<HloModule> module = Parse("HloModule m\nENTRY e {\n  ROOT c = s32[3] constant({4, 5, 6})\n}\n");
  absl::StatusOr<std::vector<std::string>> r =
      FillElidedConstants(module.get(), Mode(ElidedConstantsMode::kError));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->empty());
  EXPECT_EQ(Find(*module, "c")->literal().GetInt(2), 6);
}

TEST(ElidedConstantFiller, ZerosFillsEveryElidedConstantWithZeros) {
  std::unique_ptr<HloModule> module = Parse(kElided);
  absl::StatusOr<std::vector<std::string>> r =
      FillElidedConstants(module.get(), Mode(ElidedConstantsMode::kZeros));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, (std::vector<std::string>{"weights", "bias", "t"}));
  const Literal& w = Find(*module, "weights")->literal();
  ASSERT_FALSE(w.elided());
  ASSERT_EQ(w.element_count(), 7 * 13);
  for (int64_t i = 0; i < w.element_count(); ++i) EXPECT_EQ(w.GetBits(i), 0u);
  const Literal& t = Find(*module, "t")->literal();
  ASSERT_EQ(t.tuple_elements().size(), 2u);
  for (const Literal& e : t.tuple_elements()) {
    EXPECT_FALSE(e.elided());
    for (int64_t i = 0; i < e.element_count(); ++i) EXPECT_EQ(e.GetBits(i), 0u);
  }
  EXPECT_EQ(Find(*module, "one")->literal().GetDouble(0), 1.0);  // printed: kept
}

TEST(ElidedConstantFiller, RandomIsDeterministicPerNameShapeAndSeed) {
  const Shape shape = Shape::Array(PrimitiveType::F32, {7, 13});
  absl::StatusOr<Literal> a = InventConstant("weights", shape, ElidedConstantsMode::kRandom, 0);
  absl::StatusOr<Literal> again = InventConstant("weights", shape, ElidedConstantsMode::kRandom, 0);
  absl::StatusOr<Literal> other_name = InventConstant("weights.1", shape, ElidedConstantsMode::kRandom, 0);
  absl::StatusOr<Literal> other_seed = InventConstant("weights", shape, ElidedConstantsMode::kRandom, 1);
  absl::StatusOr<Literal> other_shape =
      InventConstant("weights", Shape::Array(PrimitiveType::F32, {13, 7}), ElidedConstantsMode::kRandom, 0);
  ASSERT_TRUE(a.ok() && again.ok() && other_name.ok() && other_seed.ok() && other_shape.ok());
  EXPECT_EQ(*a, *again);
  EXPECT_NE(*a, *other_name);
  EXPECT_NE(*a, *other_seed);
  EXPECT_NE(a->data(), other_shape->data());
  EXPECT_NE(InventedConstantSeed("w", shape, 0), InventedConstantSeed("w", shape, 1));
  // Stable across builds: the hash is fixed, not std::hash.
  EXPECT_EQ(InventedConstantSeed("w", shape, 0), InventedConstantSeed("w", shape, 0));
  // The module path gives each constant the same values as InventConstant,
  // whatever other constants there are.
  std::unique_ptr<HloModule> module = Parse(kElided);
  ASSERT_TRUE(FillElidedConstants(module.get(), Mode(ElidedConstantsMode::kRandom)).ok());
  EXPECT_EQ(Find(*module, "weights")->literal(), *a);
  std::unique_ptr<HloModule> second = Parse(kElided);
  ASSERT_TRUE(FillElidedConstants(second.get(), Mode(ElidedConstantsMode::kRandom)).ok());
  for (const char* name : {"weights", "bias", "t"}) {
    EXPECT_EQ(Find(*module, name)->literal(), Find(*second, name)->literal()) << name;
  }
  std::unique_ptr<HloModule> seeded = Parse(kElided);
  ASSERT_TRUE(FillElidedConstants(seeded.get(), Mode(ElidedConstantsMode::kRandom, 5)).ok());
  EXPECT_NE(Find(*module, "bias")->literal(), Find(*seeded, "bias")->literal());
}

TEST(ElidedConstantFiller, RandomTupleElementsAreFilled) {
  std::unique_ptr<HloModule> module = Parse(kElided);
  ASSERT_TRUE(FillElidedConstants(module.get(), Mode(ElidedConstantsMode::kRandom)).ok());
  const Literal& t = Find(*module, "t")->literal();
  ASSERT_EQ(t.tuple_elements().size(), 2u);
  const Literal& ints = t.tuple_elements()[0];
  std::set<int64_t> seen;
  for (int64_t i = 0; i < ints.element_count(); ++i) {
    EXPECT_GE(ints.GetInt(i), 0);
    EXPECT_LT(ints.GetInt(i), 8);
    seen.insert(ints.GetInt(i));
  }
  EXPECT_GT(seen.size(), 1u);
  EXPECT_FALSE(t.tuple_elements()[1].elided());
}

// Every array element type a literal holds gets values of its kind, in range,
// and not all equal.
TEST(ElidedConstantFiller, RandomCoversEveryElementType) {
  int types = 0;
  for (int k = 0; k < kPrimitiveTypeCount; ++k) {
    const PrimitiveType type = static_cast<PrimitiveType>(k);
    const TypeKind kind = KindOf(type);
    if (kind == TypeKind::kToken || kind == TypeKind::kTuple || kind == TypeKind::kOpaque ||
        kind == TypeKind::kBuffer) {
      continue;
    }
    ++types;
    const Shape shape = Shape::Array(type, {33});
    absl::StatusOr<Literal> lit = InventConstant("c", shape, ElidedConstantsMode::kRandom, 3);
    ASSERT_TRUE(lit.ok()) << PrimitiveTypeName(type) << ": " << lit.status();
    std::set<uint64_t> distinct;
    for (int64_t i = 0; i < lit->element_count(); ++i) {
      if (kind == TypeKind::kComplex) {
        EXPECT_LE(std::abs(lit->GetComplex(i).real()), 1.0) << PrimitiveTypeName(type);
        EXPECT_LE(std::abs(lit->GetComplex(i).imag()), 1.0) << PrimitiveTypeName(type);
        distinct.insert(static_cast<uint64_t>(lit->GetComplex(i).imag() * 1e6 + 2e6));
        continue;
      }
      distinct.insert(lit->GetBits(i));
      const double v = lit->GetDouble(i);
      if (kind == TypeKind::kFloat) {
        if (type != PrimitiveType::F8E8M0FNU) {
          EXPECT_LE(std::abs(v), 1.0) << PrimitiveTypeName(type);
        }
      } else {
        EXPECT_GE(v, 0) << PrimitiveTypeName(type);
        EXPECT_LE(v, 7) << PrimitiveTypeName(type);
      }
    }
    if (type != PrimitiveType::S1) {
      EXPECT_GT(distinct.size(), 1u) << PrimitiveTypeName(type);
    }
    absl::StatusOr<Literal> zeros = InventConstant("c", shape, ElidedConstantsMode::kZeros, 3);
    ASSERT_TRUE(zeros.ok()) << zeros.status();
    EXPECT_EQ(*zeros, Literal(shape)) << PrimitiveTypeName(type);
  }
  EXPECT_GE(types, 29);
}

TEST(ElidedConstantFiller, TokenConstantCannotBeRandom) {
  EXPECT_FALSE(InventConstant("c", Shape::Array(PrimitiveType::TOKEN, {}), ElidedConstantsMode::kRandom, 0).ok());
  EXPECT_FALSE(InventConstant("c", Shape::Array(PrimitiveType::F32, {3}), ElidedConstantsMode::kError, 0).ok());
}

// The filled module evaluates to p * weights + bias, computed by hand from
// the invented literals.
TEST(ElidedConstantFiller, FilledModuleEvaluatesWithTheInventedValues) {
  std::unique_ptr<HloModule> module = Parse(kElided);
  ASSERT_TRUE(FillElidedConstants(module.get(), Mode(ElidedConstantsMode::kRandom, 11)).ok());
  absl::StatusOr<Literal> p = MakeRandomLiteral(Shape::Array(PrimitiveType::F32, {7, 13}), 42);
  ASSERT_TRUE(p.ok());
  std::vector<Literal> args;
  args.push_back(*p);
  absl::StatusOr<Literal> result = HloEvaluator().Evaluate(*module, args);
  ASSERT_TRUE(result.ok()) << result.status();
  const Literal& w = Find(*module, "weights")->literal();
  const Literal& bias = Find(*module, "bias")->literal();
  double largest = 0;
  for (int64_t i = 0; i < 7 * 13; ++i) {
    const float want = static_cast<float>(p->GetDouble(i)) * static_cast<float>(w.GetDouble(i)) +
                       static_cast<float>(bias.GetDouble(i % 13));
    EXPECT_EQ(static_cast<float>(result->GetDouble(i)), want) << i;
    largest = std::max(largest, std::abs(result->GetDouble(i)));
  }
  EXPECT_GT(largest, 0.1);
}

}  // namespace
}  // namespace xla
