#include "xla/stream_executor/host/host_gemm_bf16_test_util.h"

#include <cmath>

namespace stream_executor::host::bf16_test {

std::vector<Bf16> RandomBf16(int64_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-2, 2);
  std::vector<Bf16> v(count);
  for (Bf16& x : v) x = Bf16(dist(rng));
  return v;
}

const uint16_t* Bits(const std::vector<Bf16>& v) {
  return reinterpret_cast<const uint16_t*>(v.data());
}

BlasGemmConfig Bf16Config(int64_t m, int64_t n, int64_t k, bool tl, bool tr) {
  BlasGemmConfig c;
  c.element_type = BlasElementType::kBF16;
  c.m = m;
  c.n = n;
  c.k = k;
  c.transpose_lhs = tl;
  c.transpose_rhs = tr;
  c.lhs_batch_stride = m * k;
  c.rhs_batch_stride = k * n;
  c.output_batch_stride = m * n;
  return c;
}

void* Aligned(std::vector<char>& storage, int64_t bytes) {
  storage.assign(bytes + 64, 0);
  return reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(storage.data()) + 63) &
                                 ~uintptr_t{63});
}

Dot ExactDot(const BlasGemmConfig& c, const Bf16* lhs, const Bf16* rhs, int64_t i, int64_t j) {
  Dot d;
  for (int64_t k = 0; k < c.k; ++k) {
    const double l = static_cast<float>(lhs[c.transpose_lhs ? k * c.m + i : i * c.k + k]);
    const double r = static_cast<float>(rhs[c.transpose_rhs ? j * c.k + k : k * c.n + j]);
    d.value += l * r;
    d.magnitude += std::abs(l * r);
  }
  return d;
}

double F32Bound(const BlasGemmConfig& c, const Dot& d) {
  return static_cast<double>(c.k + 1) * 0x1p-24 * d.magnitude + 1e-30;
}

}  // namespace stream_executor::host::bf16_test
