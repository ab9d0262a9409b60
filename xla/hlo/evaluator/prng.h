// Internal to the evaluator: the counter-based generators behind
// rng-bit-generator, bit-exact with XLA's RngBitGeneratorExpander (which XLA's
// CPU and GPU backends run; prng.cc in xla/hlo/builder/lib defines the bit
// layout). Pure functions; thread-safe.
#ifndef XLA_HLO_EVALUATOR_PRNG_H_
#define XLA_HLO_EVALUATOR_PRNG_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace xla::evaluator::prng {

// Threefry-2x32 with 20 rounds (Salmon et al., SC'11; Random123's
// threefry2x32_20): encrypts `counter` under `key`.
std::array<uint32_t, 2> ThreeFry2x32(std::array<uint32_t, 2> counter,
                                     std::array<uint32_t, 2> key);

// Philox-4x32 with 10 rounds (Random123's philox4x32_10).
std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> counter,
                                   std::array<uint32_t, 2> key);

// Random bits for an output of dimensions `dims` whose elements are `width`
// bits wide (1 to 64), in row-major order, one uint64 per element (the low
// `width` bits are the element; narrower types keep the low bits of a 32-bit
// draw, as XLA does). `counter` is advanced past the blocks used.
//
// ThreeFry (key, counter = u64 state[0], state[1]): 64-bit elements take
// block counter+i (i = row-major index) as x0 | x1 << 32. Narrower elements
// split one dimension in halves (the first even dimension, else the first
// largest): element (.., 2h+c, ..) is word c of the block for the half index
// (.., h, ..) in row-major order. The counter advances by the blocks used.
std::vector<uint64_t> ThreeFryBits(uint64_t key, uint64_t& counter,
                                   absl::Span<const int64_t> dims, int width);

// Philox with a 128-bit counter (low, high words): block b encrypts
// counter + b. 32-bit (and narrower) element e is word e % 4 of block e / 4;
// 64-bit element e is (w0 | w1 << 32) or (w2 | w3 << 32) of block e / 2. The
// counter advances (with carry) by the blocks used.
std::vector<uint64_t> PhiloxBits(uint64_t key, std::array<uint64_t, 2>& counter,
                                 int64_t count, int width);

}  // namespace xla::evaluator::prng

#endif  // XLA_HLO_EVALUATOR_PRNG_H_
