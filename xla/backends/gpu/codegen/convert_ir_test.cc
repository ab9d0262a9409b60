// Narrow float decode/encode IR against the C++ codec of float_format.h:
// every encoding of the 8-bit (and 4-bit) formats and of f16/bf16 decodes
// to the same value; encoding matches EncodeFloat on every representable
// value, every midpoint (ties), values one f32 ulp around them, specials and
// random f32 bit patterns.
#include "xla/backends/gpu/codegen/convert_ir.h"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/IR/IRBuilder.h"
#include "xla/backends/gpu/codegen/jit_test_util.h"
#include "xla/types/float_format.h"

namespace xla::gpu {
namespace {

using Fn = uint32_t (*)(uint32_t);

struct Codec {
  std::unique_ptr<JitRunner> jit;
  Fn decode = nullptr;  // encoding -> f32 bits
  Fn encode = nullptr;  // f32 bits -> encoding
};

Codec Build(FloatFormatId id) {
  Codec c;
  auto jit = JitRunner::Create();
  EXPECT_TRUE(jit.ok()) << jit.status();
  c.jit = std::move(*jit);
  for (int which = 0; which < 2; ++which) {
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto m = std::make_unique<llvm::Module>("codec", *ctx);
    m->setDataLayout(c.jit->data_layout());
    llvm::IRBuilder<> b(*ctx);
    llvm::Function* fn = llvm::Function::Create(
        llvm::FunctionType::get(b.getInt32Ty(), {b.getInt32Ty()}, false),
        llvm::Function::ExternalLinkage, "f", m.get());
    b.SetInsertPoint(llvm::BasicBlock::Create(*ctx, "entry", fn));
    const int storage = GetFloatFormat(id).total_bits() <= 8 ? 8 : 16;
    llvm::Value* r;
    if (which == 0) {
      llvm::Value* bits = b.CreateTrunc(fn->getArg(0), b.getIntNTy(storage));
      r = b.CreateBitCast(EmitNarrowToF32(id, bits, &b), b.getInt32Ty());
    } else {
      r = b.CreateZExt(EmitF32ToNarrow(id, b.CreateBitCast(fn->getArg(0), b.getFloatTy()), &b),
                       b.getInt32Ty());
    }
    b.CreateRet(r);
    // Each function gets its own JIT name space by module; lookups are by
    // name, so compile them under distinct names.
    fn->setName(which == 0 ? "decode" : "encode");
    auto address = c.jit->Compile(std::move(m), std::move(ctx), which == 0 ? "decode" : "encode");
    EXPECT_TRUE(address.ok()) << address.status();
    (which == 0 ? c.decode : c.encode) = reinterpret_cast<Fn>(*address);
  }
  return c;
}

uint32_t F32Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float F32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

struct FormatCase {
  FloatFormatId id;
  const char* name;
};

class ConvertIrTest : public ::testing::TestWithParam<FormatCase> {};

TEST_P(ConvertIrTest, DecodeEveryEncoding) {
  const FloatFormatId id = GetParam().id;
  Codec c = Build(id);
  ASSERT_NE(c.decode, nullptr);
  const uint32_t count = 1u << GetFloatFormat(id).total_bits();
  int checked = 0;
  for (uint32_t bits = 0; bits < count; ++bits) {
    const double want = DecodeFloat(id, bits);
    const float got = F32(c.decode(bits));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << GetParam().name << " bits " << bits;
    } else {
      ASSERT_EQ(F32Bits(got), F32Bits(static_cast<float>(want))) << GetParam().name << " bits " << bits;
    }
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(count));
}

TEST_P(ConvertIrTest, EncodeMatchesCodec) {
  const FloatFormatId id = GetParam().id;
  Codec c = Build(id);
  ASSERT_NE(c.encode, nullptr);
  std::vector<float> inputs = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1e-45f, -1e-45f,
                               3.4e38f, -3.4e38f, 1e-38f, 1.17549435e-38f};
  // Every finite representable value, the midpoints between neighbours, and
  // one f32 ulp either side of each.
  const uint32_t count = 1u << GetFloatFormat(id).total_bits();
  std::vector<double> values;
  for (uint32_t bits = 0; bits < count; ++bits) {
    const double v = DecodeFloat(id, bits);
    if (std::isfinite(v)) values.push_back(v);
  }
  std::sort(values.begin(), values.end());
  for (size_t i = 0; i < values.size(); ++i) {
    inputs.push_back(static_cast<float>(values[i]));
    if (i + 1 < values.size()) {
      const float mid = static_cast<float>((values[i] + values[i + 1]) / 2);
      inputs.push_back(mid);
      inputs.push_back(std::nextafter(mid, INFINITY));
      inputs.push_back(std::nextafter(mid, -INFINITY));
    }
  }
  if (!values.empty()) {  // beyond the largest finite value
    inputs.push_back(static_cast<float>(values.back() * 1.0625));
    inputs.push_back(static_cast<float>(values.back() * 1.5));
    inputs.push_back(static_cast<float>(values.front() * 1.5));
  }
  std::mt19937 rng(42);
  for (int i = 0; i < 20000; ++i) inputs.push_back(F32(rng()));
  int mismatches = 0;
  for (float f : inputs) {
    const uint32_t want = static_cast<uint32_t>(EncodeFloat(id, static_cast<double>(f)));
    const uint32_t got = c.encode(F32Bits(f));
    if (got != want && mismatches++ < 10) {
      ADD_FAILURE() << GetParam().name << " encode(" << f << " = 0x" << std::hex << F32Bits(f)
                    << ") = 0x" << got << ", want 0x" << want;
    }
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(inputs.size(), 20000u);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, ConvertIrTest,
    ::testing::Values(FormatCase{FloatFormatId::kF16, "f16"}, FormatCase{FloatFormatId::kBF16, "bf16"},
                      FormatCase{FloatFormatId::kF8E5M2, "f8e5m2"},
                      FormatCase{FloatFormatId::kF8E4M3, "f8e4m3"},
                      FormatCase{FloatFormatId::kF8E4M3FN, "f8e4m3fn"},
                      FormatCase{FloatFormatId::kF8E4M3FNUZ, "f8e4m3fnuz"},
                      FormatCase{FloatFormatId::kF8E5M2FNUZ, "f8e5m2fnuz"},
                      FormatCase{FloatFormatId::kF8E4M3B11FNUZ, "f8e4m3b11fnuz"},
                      FormatCase{FloatFormatId::kF8E3M4, "f8e3m4"},
                      FormatCase{FloatFormatId::kF8E8M0FNU, "f8e8m0fnu"},
                      FormatCase{FloatFormatId::kF4E2M1FN, "f4e2m1fn"}),
    [](const ::testing::TestParamInfo<FormatCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace xla::gpu
