// Reads files NumPy wrote (testdata/, generated with:
//   a = np.arange(15, dtype=np.float32).reshape(3,5) * 0.25 - 1.5
//   np.save('f32_3x5.npy', a); np.save('f32_3x5_fortran.npy', np.asfortranarray(a))
//   np.save('i64_big.npy', np.array([2**62+1, -(2**63), 7], dtype=np.int64))
//   np.save('f64_be.npy', np.array([1.5, -2.25, 1e300], dtype='>f8'))
//   np.save('bool_2x2.npy', np.array([[True, False], [False, True]]))
//   np.save('c64_2.npy', np.array([1+2j, -0.5-1j], dtype=np.complex64))
//   np.save('u8_scalar.npy', np.array(200, dtype=np.uint8))
//   np.save('f16_3.npy', np.array([0.1, 65504, -0.0], dtype=np.float16))
//   write_array(f, np.array([[1,2,3],[4,5,6]], dtype=np.int32), version=(2,0))
//   np.save('structured.npy', np.zeros(2, dtype=[('a','<i4'),('b','<f4')]))
// ) and checks that what we write is byte-identical to NumPy's output.
#include "xla/types/npy.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

std::string Path(const std::string& name) { return "xla/types/testdata/" + name; }

std::string ReadBytes(const std::string& name) {
  std::ifstream in(Path(name), std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Npy, ReadsNumpyFiles) {
  absl::StatusOr<Literal> f = ReadNpyFile(Path("f32_3x5.npy"));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->shape().ToString(false), "f32[3,5]");
  for (int i = 0; i < 15; ++i) EXPECT_EQ(f->GetDouble(i), i * 0.25 - 1.5);

  absl::StatusOr<Literal> fortran = ReadNpyFile(Path("f32_3x5_fortran.npy"));
  ASSERT_TRUE(fortran.ok()) << fortran.status();
  EXPECT_EQ(*fortran, *f);

  absl::StatusOr<Literal> big = ReadNpyFile(Path("i64_big.npy"));
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->GetInt(0), (int64_t{1} << 62) + 1);
  EXPECT_EQ(big->GetInt(1), std::numeric_limits<int64_t>::min());

  absl::StatusOr<Literal> be = ReadNpyFile(Path("f64_be.npy"));
  ASSERT_TRUE(be.ok());
  EXPECT_EQ(be->GetDouble(1), -2.25);
  EXPECT_EQ(be->GetDouble(2), 1e300);

  absl::StatusOr<Literal> b = ReadNpyFile(Path("bool_2x2.npy"));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->ToString(), "{ {true, false}, {false, true} }");

  absl::StatusOr<Literal> c = ReadNpyFile(Path("c64_2.npy"));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->GetComplex(1), std::complex<double>(-0.5, -1));

  absl::StatusOr<Literal> u = ReadNpyFile(Path("u8_scalar.npy"));
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->shape().ToString(false), "u8[]");
  EXPECT_EQ(u->GetInt(0), 200);

  absl::StatusOr<Literal> h = ReadNpyFile(Path("f16_3.npy"));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->GetDouble(1), 65504);
  EXPECT_TRUE(std::signbit(h->GetDouble(2)));

  absl::StatusOr<Literal> v2 = ReadNpyFile(Path("v2_i32.npy"));
  ASSERT_TRUE(v2.ok()) << v2.status();
  EXPECT_EQ(v2->GetInt(5), 6);
}

TEST(Npy, WritesWhatNumpyWrites) {
  for (const char* name : {"f32_3x5.npy", "i64_big.npy", "bool_2x2.npy", "c64_2.npy", "u8_scalar.npy",
                           "f16_3.npy"}) {
    absl::StatusOr<Literal> value = ReadNpyFile(Path(name));
    ASSERT_TRUE(value.ok()) << name;
    absl::StatusOr<std::string> bytes = SerializeNpy(*value);
    ASSERT_TRUE(bytes.ok());
    EXPECT_EQ(*bytes, ReadBytes(name)) << name;
  }
}

TEST(Npy, NarrowTypesTravelWide) {
  // bf16 parameter from an f32 file: round to nearest even.
  Literal f32(Shape::Array(PrimitiveType::F32, {3}));
  f32.SetDouble(0, 1.0 + std::ldexp(1.0, -8));      // tie: rounds down to 1
  f32.SetDouble(1, 1.0 + 3 * std::ldexp(1.0, -8));  // tie: rounds up to 1.015625
  f32.SetDouble(2, -3.3);
  absl::StatusOr<Literal> bf16 =
      ConvertNpyLiteral(f32, Shape::Array(PrimitiveType::BF16, {3}), "parameter 0 ('x')");
  ASSERT_TRUE(bf16.ok()) << bf16.status();
  EXPECT_EQ(bf16->GetDouble(0), 1.0);
  EXPECT_EQ(bf16->GetDouble(1), 1.015625);
  EXPECT_EQ(bf16->GetDouble(2), -3.296875);
  // And back out as f32.
  absl::StatusOr<std::string> bytes = SerializeNpy(*bf16);
  ASSERT_TRUE(bytes.ok());
  EXPECT_TRUE(absl::StrContains(*bytes, "'descr': '<f4'"));
  absl::StatusOr<Literal> back = ParseNpy(*bytes, "mem");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->GetDouble(2), -3.296875);

  // s4 from int8, range-checked.
  Literal s8(Shape::Array(PrimitiveType::S8, {2}));
  s8.SetInt(0, -8);
  s8.SetInt(1, 9);
  absl::StatusOr<Literal> s4 = ConvertNpyLiteral(s8, Shape::Array(PrimitiveType::S4, {2}), "p");
  ASSERT_FALSE(s4.ok());
  EXPECT_TRUE(absl::StrContains(s4.status().message(), "element 1 is 9, outside the range of s4"));
}

TEST(Npy, WrongDtypeOrShapeNamesTheParameter) {
  absl::StatusOr<Literal> f = ReadNpyFile(Path("f32_3x5.npy"));
  ASSERT_TRUE(f.ok());
  absl::StatusOr<Literal> r =
      ConvertNpyLiteral(*f, Shape::Array(PrimitiveType::F32, {5, 3}), "parameter 1 ('w')");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "parameter 1 ('w') expects f32[5,3] (a .npy of dtype <f4 and shape (5, 3)) but the file "
            "has dtype <f4 and shape (3, 5)");
  r = ConvertNpyLiteral(*f, Shape::Array(PrimitiveType::S32, {3, 5}), "parameter 0 ('i')");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "dtype <i4")) << r.status();
}

TEST(Npy, MalformedFiles) {
  const std::string good = ReadBytes("f32_3x5.npy");
  EXPECT_TRUE(absl::StrContains(ParseNpy("hello", "x.npy").status().message(), "bad magic"));
  EXPECT_TRUE(absl::StrContains(ParseNpy(good.substr(0, 40), "x.npy").status().message(),
                                "truncated .npy header"));
  EXPECT_TRUE(absl::StrContains(ParseNpy(good.substr(0, good.size() - 1), "x.npy").status().message(),
                                "truncated data"));
  absl::StatusOr<Literal> s = ReadNpyFile(Path("structured.npy"));
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.status().message(), "structured dtypes")) << s.status();
  EXPECT_FALSE(ReadNpyFile("/nonexistent.npy").ok());
  // Every truncation and byte flip fails cleanly or parses; never crashes.
  for (size_t n = 0; n < good.size(); ++n) (void)ParseNpy(good.substr(0, n), "cut");
  for (size_t i = 0; i < 128; ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    (void)ParseNpy(bad, "flip");
  }
}

}  // namespace
}  // namespace xla
