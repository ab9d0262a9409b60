// Evaluator ops of the rng family (see op_table.h).
//
// rng-bit-generator(state), algorithm=A returns (new_state, bits), bit-exact
// with XLA's RngBitGeneratorExpander (prng.h describes the bit layout):
//   * rng_three_fry: state u64[2] = (key, counter); new state (key, counter +
//     blocks used). A longer state u64[N] (N > 2) reads the key and the
//     counter from its first two words, as XLA's expander does, and keeps
//     the other words unchanged in the new state (XLA's expander returns
//     only the two words there, which does not fit the declared shape).
//   * rng_philox: state u64[3] = (key, counter low, counter high) or u64[2] =
//     (key, counter low) where, as in XLA, the counter's high word is then
//     state[0] and the new state keeps only the new low word.
//   * rng_default (or no algorithm): Philox, which is XLA's default on CPU
//     and GPU (both run RngBitGeneratorExpander(RNG_PHILOX)).
// Bits may have any integer or float element type of 1 to 64 bits (floats
// get the raw bits); types narrower than 32 bits keep the low bits of a
// 32-bit draw. The state may be u64 or s64 (same bits).
//
// rng(a, b), distribution=D is not deterministic in XLA (its key comes from a
// process-wide random seed), so no bit-compatible oracle exists. The
// evaluator uses a fixed documented generator instead: Philox with key =
// FNV-1a-64 of the instruction name and counter 0, so the same instruction
// always yields the same values. The conversions follow XLA's prng.cc:
//   * rng_uniform, floats (f16, bf16 via f32; f32; f64): the top mantissa-
//     width bits of each 32-bit (64-bit for f64) draw give u in [0, 1);
//     result = u * (b - a) + a in the (f32 or f64) arithmetic;
//   * rng_uniform, s32/u32/s64/u64: a + (d >> 1) + (d - (d >> 1)) with
//     d = bits mod (b - a), wrapping; [a, b) when a < b;
//   * rng_normal (f16, bf16 via f32; f32; f64): Box-Muller on consecutive
//     pairs of uniform draws (u1 clamped to >= 1e-7), result = a + b * z.
//
// rng-get-and-update-state(), delta=D returns XLA's 128-bit RNG state as
// u64[2] (low word first) and adds D to it (EvalContext::TakeRngState: each
// evaluation starts from XLA's initial value 0x7012395, later calls in the
// same evaluation see the earlier deltas added, in evaluation order).
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "xla/hlo/evaluator/op_helpers.h"
#include "xla/hlo/evaluator/op_table.h"
#include "xla/hlo/evaluator/prng.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator {
namespace {

using op_helpers::OpError;

constexpr double kPi = 3.14159265358979323846;

enum class Algorithm { kThreeFry, kPhilox };

absl::StatusOr<Algorithm> GetAlgorithm(const HloInstruction& instr) {
  const std::string& a = instr.GetString(AttrId::kAlgorithm);
  if (a == "rng_three_fry") return Algorithm::kThreeFry;
  if (a.empty() || a == "rng_philox" || a == "rng_default") return Algorithm::kPhilox;
  return OpError(instr, "algorithm=", a, " is not rng_default, rng_three_fry or rng_philox");
}

bool IsBitsType(PrimitiveType t) {
  return (IsInteger(t) || IsFloat(t)) && BitWidth(t) >= 1 && BitWidth(t) <= 64;
}

absl::Status CheckRngBitGenerator(const HloInstruction& instr, const Literal& state,
                                  Algorithm algorithm) {
  const Shape& s = state.shape();
  const bool state_ok =
      s.IsArray() && s.rank() == 1 &&
      (s.element_type() == PrimitiveType::U64 || s.element_type() == PrimitiveType::S64) &&
      (s.dimensions(0) == 2 || (algorithm == Algorithm::kPhilox && s.dimensions(0) == 3) ||
       (algorithm == Algorithm::kThreeFry && s.dimensions(0) > 2));
  if (!state_ok) {
    return OpError(instr, "state ", s.ToString(false), " must be u64[2]",
                   algorithm == Algorithm::kPhilox ? " or u64[3]" : " or longer",
                   " for this algorithm");
  }
  const Shape& out = instr.shape();
  if (!out.IsTuple() || out.tuple_shapes_size() != 2 ||
      !ShapesCompatible(out.tuple_shapes(0), s, /*ignore_dynamic=*/true) ||
      !out.tuple_shapes(1).IsArray() || !IsBitsType(out.tuple_shapes(1).element_type())) {
    return OpError(instr, "result ", out.ToString(false), " must be (",
                   s.ToString(false), ", bits) with integer or float bits of at most 64 bits");
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> EvalRngBitGenerator(const HloInstruction& instr,
                                            absl::Span<const Literal* const> operands,
                                            EvalContext& ctx) {
  const Literal& state = *operands[0];
  ASSIGN_OR_RETURN(Algorithm algorithm, GetAlgorithm(instr));
  RETURN_IF_ERROR(CheckRngBitGenerator(instr, state, algorithm));
  Literal out(instr.shape());
  Literal& new_state = (*out.mutable_tuple_elements())[0];
  Literal& bits = (*out.mutable_tuple_elements())[1];
  const int width = BitWidth(bits.shape().element_type());
  const uint64_t key = state.GetBits(0);
  std::vector<uint64_t> values;
  new_state = state;
  if (algorithm == Algorithm::kThreeFry) {
    uint64_t counter = state.GetBits(1);
    values = prng::ThreeFryBits(key, counter, bits.shape().dimensions(), width);
    new_state.SetBits(1, counter);
  } else {
    const bool wide = state.element_count() == 3;
    std::array<uint64_t, 2> counter = {state.GetBits(1), wide ? state.GetBits(2) : key};
    values = prng::PhiloxBits(key, counter, bits.element_count(), width);
    new_state.SetBits(1, counter[0]);
    if (wide) new_state.SetBits(2, counter[1]);
  }
  for (size_t i = 0; i < values.size(); ++i) bits.SetBits(static_cast<int64_t>(i), values[i]);
  return out;
}

// ------------------------------------------------------------------- rng

uint64_t Fnv1a64(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// Uniform [0, 1) values of float type T from `n` draws.
template <typename T>
std::vector<T> UnitUniform(uint64_t key, std::array<uint64_t, 2>& counter, int64_t n) {
  constexpr int kBits = sizeof(T) * 8;
  constexpr int kMantissa = kBits == 32 ? 23 : 52;
  const std::vector<uint64_t> bits = prng::PhiloxBits(key, counter, n, kBits);
  std::vector<T> out(n);
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<T>(bits[i] >> (kBits - kMantissa)) * std::ldexp(T(1), -kMantissa);
  }
  return out;
}

template <typename T>
std::vector<T> FloatDistribution(bool normal, uint64_t key, int64_t n, T a, T b) {
  std::array<uint64_t, 2> counter = {0, 0};
  if (!normal) {
    std::vector<T> u = UnitUniform<T>(key, counter, n);
    for (T& v : u) v = v * (b - a) + a;
    return u;
  }
  const std::vector<T> u = UnitUniform<T>(key, counter, n + n % 2);
  std::vector<T> out(n);
  for (int64_t p = 0; 2 * p < n; ++p) {
    const T u1 = std::max(u[2 * p], static_cast<T>(1e-7f));
    const T v1 = static_cast<T>(2.0 * kPi) * u[2 * p + 1];
    const T r = std::sqrt(T(-2) * std::log(u1));
    out[2 * p] = a + b * (std::sin(v1) * r);
    if (2 * p + 1 < n) out[2 * p + 1] = a + b * (std::cos(v1) * r);
  }
  return out;
}

void IntUniform(uint64_t key, const Literal& a, const Literal& b, Literal& out) {
  const int width = BitWidth(out.shape().element_type());
  const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  const uint64_t lo = a.GetBits(0), range = (b.GetBits(0) - lo) & mask;
  std::array<uint64_t, 2> counter = {0, 0};
  const std::vector<uint64_t> bits = prng::PhiloxBits(key, counter, out.element_count(), width);
  for (int64_t i = 0; i < out.element_count(); ++i) {
    const uint64_t d = range == 0 ? bits[i] : bits[i] % range;
    out.SetBits(i, lo + (d >> 1) + (d - (d >> 1)));
  }
}

absl::StatusOr<Literal> EvalRng(const HloInstruction& instr,
                                absl::Span<const Literal* const> operands, EvalContext& ctx) {
  const std::string& dist = instr.GetString(AttrId::kDistribution);
  const bool normal = dist == "rng_normal";
  const PrimitiveType t = instr.shape().element_type();
  const bool float_ok = t == PrimitiveType::F16 || t == PrimitiveType::BF16 ||
                        t == PrimitiveType::F32 || t == PrimitiveType::F64;
  const bool int_ok = t == PrimitiveType::S32 || t == PrimitiveType::U32 ||
                      t == PrimitiveType::S64 || t == PrimitiveType::U64;
  if ((!normal && dist != "rng_uniform") || !instr.shape().IsArray() ||
      !(float_ok || (int_ok && !normal)) || operands.size() != 2 ||
      !operands[0]->shape().IsScalar() || !operands[1]->shape().IsScalar() ||
      operands[0]->shape().element_type() != t || operands[1]->shape().element_type() != t) {
    return op_helpers::OpUnimplemented(
        instr, "rng supports distribution=rng_uniform (f16, bf16, f32, f64, s32, u32, s64, "
               "u64) and rng_normal (f16, bf16, f32, f64) with two scalar parameters of the "
               "result type");
  }
  Literal out(instr.shape());
  const uint64_t key = Fnv1a64(instr.name());
  const int64_t n = out.element_count();
  if (int_ok) {
    IntUniform(key, *operands[0], *operands[1], out);
  } else if (t == PrimitiveType::F64) {
    const std::vector<double> v = FloatDistribution<double>(
        normal, key, n, operands[0]->GetDouble(0), operands[1]->GetDouble(0));
    for (int64_t i = 0; i < n; ++i) out.SetDouble(i, v[i]);
  } else {
    const std::vector<float> v = FloatDistribution<float>(
        normal, key, n, static_cast<float>(operands[0]->GetDouble(0)),
        static_cast<float>(operands[1]->GetDouble(0)));
    for (int64_t i = 0; i < n; ++i) out.SetDouble(i, v[i]);
  }
  return out;
}

absl::StatusOr<Literal> EvalRngGetAndUpdateState(const HloInstruction& instr,
                                                  absl::Span<const Literal* const>,
                                                  EvalContext& ctx) {
  const Shape& shape = instr.shape();
  if (!shape.IsArray() || shape.rank() != 1 || shape.dimensions(0) != 2 ||
      (shape.element_type() != PrimitiveType::U64 && shape.element_type() != PrimitiveType::S64)) {
    return op_helpers::OpError(instr, "the state must be u64[2] or s64[2], got ",
                               shape.ToString(false));
  }
  const absl::uint128 state = ctx.TakeRngState(instr.GetInt(AttrId::kDelta));
  Literal out(shape);
  out.SetBits(0, absl::Uint128Low64(state));
  out.SetBits(1, absl::Uint128High64(state));
  return out;
}

}  // namespace

void RegisterRngOps(OpTable& table) {
  table[static_cast<int>(HloOpcode::kRngGetAndUpdateState)] = EvalRngGetAndUpdateState;
  table[static_cast<int>(HloOpcode::kRngBitGenerator)] = EvalRngBitGenerator;
  table[static_cast<int>(HloOpcode::kRng)] = EvalRng;
}

}  // namespace xla::evaluator
