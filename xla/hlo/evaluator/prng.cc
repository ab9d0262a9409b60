#include "xla/hlo/evaluator/prng.h"

#include "xla/hlo/evaluator/index_util.h"

namespace xla::evaluator::prng {
namespace {

uint32_t RotateLeft(uint32_t v, int distance) {
  return (v << distance) | (v >> (32 - distance));
}

std::array<uint32_t, 2> Split(uint64_t v) {
  return {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)};
}

uint64_t Join(uint32_t lo, uint32_t hi) { return uint64_t{lo} | (uint64_t{hi} << 32); }

// counter + delta on a 128-bit (low, high) counter.
std::array<uint64_t, 2> Add128(std::array<uint64_t, 2> counter, uint64_t delta) {
  const uint64_t low = counter[0] + delta;
  return {low, low < counter[0] ? counter[1] + 1 : counter[1]};
}

std::array<uint32_t, 4> PhiloxBlock(std::array<uint64_t, 2> counter, uint64_t key) {
  const std::array<uint32_t, 2> lo = Split(counter[0]), hi = Split(counter[1]);
  return Philox4x32({lo[0], lo[1], hi[0], hi[1]}, Split(key));
}

// The dimension XLA's SplitShapeIntoHalves splits (dims non-empty).
size_t SplitDim(absl::Span<const int64_t> dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] % 2 == 0) return i;
  }
  size_t best = 0;
  for (size_t i = 1; i < dims.size(); ++i) {
    if (dims[i] > dims[best]) best = i;
  }
  return best;
}

std::vector<uint64_t> ThreeFryBits32(uint64_t key, uint64_t& counter,
                                     absl::Span<const int64_t> dims) {
  std::vector<uint64_t> out(ElementCount(dims));
  if (dims.empty()) {
    out[0] = ThreeFry2x32(Split(counter), Split(key))[0];
    counter += 1;
    return out;
  }
  const size_t split = SplitDim(dims);
  std::vector<int64_t> half(dims.begin(), dims.end());
  half[split] = (dims[split] + 1) / 2;
  std::vector<int64_t> index(dims.size(), 0);
  for (size_t e = 0; e < out.size(); ++e) {
    std::vector<int64_t> h = index;
    h[split] = index[split] / 2;
    const uint64_t block = counter + static_cast<uint64_t>(LinearIndex(h, half));
    out[e] = ThreeFry2x32(Split(block), Split(key))[index[split] % 2];
    NextIndex(index, dims);
  }
  counter += static_cast<uint64_t>(ElementCount(half));
  return out;
}

}  // namespace

std::array<uint32_t, 2> ThreeFry2x32(std::array<uint32_t, 2> counter,
                                     std::array<uint32_t, 2> key) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  uint32_t x0 = counter[0] + ks[0];
  uint32_t x1 = counter[1] + ks[1];
  for (int round = 0; round < 20; ++round) {
    x0 += x1;
    x1 = RotateLeft(x1, kRotations[round % 8]) ^ x0;
    if (round % 4 == 3) {  // key injection after every 4 rounds
      const uint32_t s = static_cast<uint32_t>(round / 4 + 1);
      x0 += ks[s % 3];
      x1 += ks[(s + 1) % 3] + s;
    }
  }
  return {x0, x1};
}

std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> counter,
                                   std::array<uint32_t, 2> key) {
  constexpr uint64_t kMultA = 0xD2511F53u, kMultB = 0xCD9E8D57u;
  constexpr uint32_t kBumpA = 0x9E3779B9u, kBumpB = 0xBB67AE85u;
  std::array<uint32_t, 4> x = counter;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = kMultA * x[0];
    const uint64_t p1 = kMultB * x[2];
    x = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ key[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ key[1], static_cast<uint32_t>(p0)};
    key = {key[0] + kBumpA, key[1] + kBumpB};
  }
  return x;
}

std::vector<uint64_t> ThreeFryBits(uint64_t key, uint64_t& counter,
                                   absl::Span<const int64_t> dims, int width) {
  if (width <= 32) return ThreeFryBits32(key, counter, dims);
  std::vector<uint64_t> out(ElementCount(dims));
  for (size_t e = 0; e < out.size(); ++e) {
    const std::array<uint32_t, 2> x = ThreeFry2x32(Split(counter + e), Split(key));
    out[e] = Join(x[0], x[1]);
  }
  counter += out.size();
  return out;
}

std::vector<uint64_t> PhiloxBits(uint64_t key, std::array<uint64_t, 2>& counter,
                                 int64_t count, int width) {
  std::vector<uint64_t> out(count);
  const int64_t per_block = width <= 32 ? 4 : 2;
  const int64_t blocks = (count + per_block - 1) / per_block;
  for (int64_t b = 0; b < blocks; ++b) {
    const std::array<uint32_t, 4> w = PhiloxBlock(Add128(counter, b), key);
    for (int64_t k = 0; k < per_block && b * per_block + k < count; ++k) {
      out[b * per_block + k] = per_block == 4 ? w[k] : Join(w[2 * k], w[2 * k + 1]);
    }
  }
  counter = Add128(counter, blocks);
  return out;
}

}  // namespace xla::evaluator::prng
