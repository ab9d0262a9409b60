// make_golden_io MODULE.hlo SEED OUT_DIR [--replicas=N]: writes
// OUT_DIR/input_<i>.npy (MakeRandomInputs with SEED) and
// OUT_DIR/expected_<i>.npy (the reference evaluator's result leaves) for the
// golden suite; used by tools/update_goldens.sh. With --replicas=N (the
// `host_<N>dev` targets) every file is stacked along a leading dimension of
// N: replica r's inputs drawn with ParticipantSeed(SEED, r), the outputs of the
// replicated evaluator. Exit 0 on success, 1 with a message otherwise.
#include <iostream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "tests/aot_compatibility/gpu/golden_io.h"

int main(int argc, char** argv) {
  constexpr char kUsage[] = "usage: make_golden_io MODULE.hlo SEED OUT_DIR [--replicas=N]\n";
  uint64_t seed = 0;
  if ((argc != 4 && argc != 5) || !absl::SimpleAtoi(argv[2], &seed)) {
    std::cerr << kUsage;
    return 1;
  }
  int64_t replicas = 0;  // 0: a single-device golden
  if (argc == 5) {
    const std::string flag = argv[4];
    const std::string prefix = "--replicas=";
    if (!absl::StartsWith(flag, prefix) ||
        !absl::SimpleAtoi(flag.substr(prefix.size()), &replicas) || replicas < 1) {
      std::cerr << "make_golden_io: bad argument '" << flag << "' (want --replicas=N, N >= 1)\n"
                << kUsage;
      return 1;
    }
  }
  const absl::Status s =
      replicas == 0
          ? xla::golden::WriteInputsAndExpected(argv[1], seed, argv[3])
          : xla::golden::WriteReplicatedInputsAndExpected(argv[1], seed, replicas, argv[3]);
  if (!s.ok()) {
    std::cerr << "make_golden_io: " << s.message() << "\n";
    return 1;
  }
  return 0;
}
