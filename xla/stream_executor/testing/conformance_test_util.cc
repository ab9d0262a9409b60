#include "xla/stream_executor/testing/conformance_test_util.h"

#include <iostream>

namespace stream_executor::testing {

std::mt19937 SeededRng() {
  const unsigned seed = std::random_device()();
  ::testing::Test::RecordProperty("seed", static_cast<int>(seed));
  std::cout << "random seed: " << seed << "\n";
  return std::mt19937(seed);
}

std::vector<uint8_t> RandomBytes(size_t size, std::mt19937& rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> bytes(size);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(byte(rng));
  return bytes;
}

std::vector<float> RandomFloats(size_t size, std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-100.0f, 100.0f);
  std::vector<float> values(size);
  for (float& v : values) v = value(rng);
  return values;
}

}  // namespace stream_executor::testing
