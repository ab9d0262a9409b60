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

#include "absl/status/statusor.h"

namespace xla {

// The corpus directory, or NotFoundError saying where it looked and how to
// point at it ($XLA_HLO_CORPUS).
absl::StatusOr<std::string> FindHloCorpusDir();

// Sorted paths of the `.hlo` files in the corpus subdirectories `subdirs`
// (default: xla, headerless, models). Errors when the corpus is missing or a
// subdirectory holds no files.
absl::StatusOr<std::vector<std::string>> ListCorpusFiles(
    const std::vector<std::string>& subdirs = {"xla", "headerless", "models"});

}  // namespace xla

#endif  // XLA_HLO_TESTING_CORPUS_H_
