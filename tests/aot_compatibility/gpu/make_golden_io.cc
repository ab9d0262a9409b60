// make_golden_io MODULE.hlo SEED OUT_DIR: writes OUT_DIR/input_<i>.npy
// (MakeRandomInputs with SEED) and OUT_DIR/expected_<i>.npy (the reference
// evaluator's result leaves) for the golden suite; used by
// tools/update_goldens.sh. Exit 0 on success, 1 with a message otherwise.
#include <iostream>

#include "absl/strings/numbers.h"
#include "tests/aot_compatibility/gpu/golden_io.h"

int main(int argc, char** argv) {
  uint64_t seed = 0;
  if (argc != 4 || !absl::SimpleAtoi(argv[2], &seed)) {
    std::cerr << "usage: make_golden_io MODULE.hlo SEED OUT_DIR\n";
    return 1;
  }
  if (absl::Status s = xla::golden::WriteInputsAndExpected(argv[1], seed, argv[3]); !s.ok()) {
    std::cerr << "make_golden_io: " << s.message() << "\n";
    return 1;
  }
  return 0;
}
