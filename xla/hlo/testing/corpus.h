// Locating the shared HLO corpus (`../shared/hlo_corpus` beside the repo) from
// tests and tools.
//
// The corpus lives outside the repository: /work/shared beside /work/main on a
// developer machine, and `<clone>/../shared` in CI. FindHloCorpusDir() tries,
// in order: $XLA_HLO_CORPUS; then, walking up from the real path of the
// current directory and of $TEST_SRCDIR/$BUILD_WORKSPACE_DIRECTORY, a
// `shared/hlo_corpus` sibling of each ancestor. Thread-safe.
#ifndef XLA_HLO_TESTING_CORPUS_H_
#define XLA_HLO_TESTING_CORPUS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/types/literal.h"

namespace xla {

// The corpus directory, or NotFoundError saying where it looked and how to
// point at it ($XLA_HLO_CORPUS).
absl::StatusOr<std::string> FindHloCorpusDir();

// Sorted paths of the `.hlo` files in the corpus subdirectories `subdirs`
// (default: xla, headerless, models). Errors when the corpus is missing or a
// subdirectory holds no files.
absl::StatusOr<std::vector<std::string>> ListCorpusFiles(
    const std::vector<std::string>& subdirs = {"xla", "headerless", "models"});

// The check of a rewritten corpus module's result against the original's
// (both evaluated): CompareLiterals, element by element; except for the
// few modules whose rewrites are inexact by design (a custom call expanded
// into f32 arithmetic where the evaluator's own op computes in f64, on
// ill-conditioned data), listed with the reason in corpus.cc, which are
// compared per output leaf at the output's scale (CompareOutputLeaf), less
// the outputs listed there as schedule-dependent (two unordered reads of
// the RNG state).
// `module_name` is the file name ("backends__cpu__...__cpu.hlo"). Errors as
// those functions'. Thread-safe.
absl::Status CompareCorpusResults(absl::string_view module_name, const Literal& expected,
                                  const Literal& actual);

}  // namespace xla

#endif  // XLA_HLO_TESTING_CORPUS_H_
