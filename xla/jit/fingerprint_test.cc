#include "xla/jit/fingerprint.h"

#include "gtest/gtest.h"

namespace xla::jit {
namespace {

// Published FNV-1a 128 vectors (and an independent Python computation).
TEST(Fingerprint, MatchesFnv1a128Vectors) {
  EXPECT_EQ(Fnv1a128("").ToHex(), "6c62272e07bb014262b821756295c58d");
  EXPECT_EQ(Fnv1a128("a").ToHex(), "d228cb696f1a8caf78912b704e4a8964");
  EXPECT_EQ(Fnv1a128("foobar").ToHex(), "343e1662793c64bf6f0d3597ba446f18");
}

TEST(Fingerprint, FieldsAreFramed) {
  Fingerprint128 ab_c = Fingerprinter().Add("ab").Add("c").Finish();
  Fingerprint128 a_bc = Fingerprinter().Add("a").Add("bc").Finish();
  EXPECT_NE(ab_c, a_bc);
  EXPECT_EQ(ab_c, Fingerprinter().Add("ab").Add("c").Finish());
  EXPECT_NE(FingerprintOf("x"), Fnv1a128("x"));
}

TEST(Fingerprint, IntsAndNestedFingerprintsChangeTheResult) {
  Fingerprint128 base = Fingerprinter().AddInt(1).Finish();
  EXPECT_NE(base, Fingerprinter().AddInt(2).Finish());
  EXPECT_NE(Fingerprinter().Add(Fnv1a128("a")).Finish(), Fingerprinter().Add(Fnv1a128("b")).Finish());
  EXPECT_EQ(base.ToHex().size(), 32u);
}

}  // namespace
}  // namespace xla::jit
