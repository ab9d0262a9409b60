#include "xla/backends/gpu/ffi/ffi_registry.h"

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace xla::gpu::ffi {
namespace {

absl::Status Nop(const CallFrame&) { return absl::OkStatus(); }

TEST(FfiRegistry, BuiltinsResolveByNameAndPlatform) {
  auto fill = FfiRegistry::Global().Lookup("xla.host.fill_f32", "host");
  ASSERT_TRUE(fill.ok()) << fill.status();
  EXPECT_EQ((*fill)->name, "xla.host.fill_f32");
  EXPECT_FALSE(FfiRegistry::Global().Lookup("xla.host.fill_f32", "cuda").ok());
}

TEST(FfiRegistry, AliasResolvesToNewName) {
  auto fill = FfiRegistry::Global().Lookup("xla_host_fill_f32", "host");
  ASSERT_TRUE(fill.ok()) << fill.status();
  EXPECT_EQ((*fill)->name, "xla.host.fill_f32");
}

TEST(FfiRegistry, UnknownNameNamesTheRegisteredOnes) {
  auto missing = FfiRegistry::Global().Lookup("no.such.call", "host");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(missing.status().message(), "xla.host.add_f32@host"))
      << missing.status();
}

TEST(FfiRegistry, DuplicatesAreRejected) {
  FfiRegistry registry;
  ASSERT_TRUE(registry.Register({"a", "host", &Nop, {}}).ok());
  EXPECT_EQ(registry.Register({"a", "host", &Nop, {}}).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(registry.RegisterAlias({"a", "b", "2030-01-01"}).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(registry.Register({"", "host", &Nop, {}}).code(), absl::StatusCode::kInvalidArgument);
}

TEST(FfiRegistry, SignatureIsCheckedWithThePath) {
  auto add = FfiRegistry::Global().Lookup("xla.host.add_f32", "host");
  ASSERT_TRUE(add.ok());
  absl::Status s = CheckSignature(**add, 1, 1, {}, "thunks[0].custom_call");
  EXPECT_TRUE(absl::StrContains(s.message(), "thunks[0].custom_call.operands: handler 'xla.host.add_f32' takes 2 operands, got 1")) << s;
  auto fill = FfiRegistry::Global().Lookup("xla.host.fill_f32", "host");
  s = CheckSignature(**fill, 0, 1, {}, "p");
  EXPECT_TRUE(absl::StrContains(s.message(), "needs attribute 'value'")) << s;
}

TEST(FfiRegistry, TypedAttributesMustHaveTheirKind) {
  HandlerEntry entry{"t", "host", &Nop,
                     {1, 1, {}, {{"a", AttributeKind::kF64}, {"dims", AttributeKind::kI64Array}}}};
  Attributes good = {{"a", 2.5}, {"dims", std::vector<int64_t>{1, 2, 3}}};
  EXPECT_TRUE(CheckSignature(entry, 1, 1, good, "p").ok());
  Attributes wrong = {{"a", int64_t{2}}, {"dims", std::vector<int64_t>{1}}};
  absl::Status s = CheckSignature(entry, 1, 1, wrong, "p");
  EXPECT_EQ(s.message(), "p.attributes: handler 't' needs attribute 'a' as f64, the call has i64");
  Attributes missing = {{"a", 2.5}};
  s = CheckSignature(entry, 1, 1, missing, "p");
  EXPECT_EQ(s.message(), "p.attributes: handler 't' needs attribute 'dims' (array<i64>)");
}

TEST(FfiRegistry, KindOfFollowsTheVariantOrder) {
  EXPECT_EQ(KindOf(AttributeValue(int64_t{1})), AttributeKind::kI64);
  EXPECT_EQ(KindOf(AttributeValue(1.0)), AttributeKind::kF64);
  EXPECT_EQ(KindOf(AttributeValue(std::string("x"))), AttributeKind::kStr);
  EXPECT_EQ(KindOf(AttributeValue(true)), AttributeKind::kBool);
  EXPECT_EQ(KindOf(AttributeValue(std::vector<int64_t>{})), AttributeKind::kI64Array);
  EXPECT_EQ(KindOf(AttributeValue(std::vector<double>{})), AttributeKind::kF64Array);
  EXPECT_EQ(AttributeKindName(AttributeKind::kF64Array), "array<f64>");
}

// DESIGN.md section 6: renamed handlers keep their old name for 6 months,
// and an alias past its expiry date must be removed.
TEST(FfiRegistry, NoAliasIsPastItsExpiryDate) {
  const std::string today = absl::FormatTime("%Y-%m-%d", absl::Now(), absl::UTCTimeZone());
  for (const AliasEntry& alias : FfiRegistry::Global().Aliases()) {
    ASSERT_EQ(alias.expiry_date.size(), 10u) << alias.old_name;
    EXPECT_GE(alias.expiry_date, today) << "alias " << alias.old_name << " -> " << alias.new_name
                                        << " expired on " << alias.expiry_date << ": remove it";
  }
}

}  // namespace
}  // namespace xla::gpu::ffi
