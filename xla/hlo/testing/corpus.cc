#include "xla/hlo/testing/corpus.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla {
namespace fs = std::filesystem;

namespace {

bool IsCorpus(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p / "xla", ec) && fs::is_directory(p / "models", ec);
}

}  // namespace

absl::StatusOr<std::string> FindHloCorpusDir() {
  std::vector<std::string> tried;
  if (const char* env = std::getenv("XLA_HLO_CORPUS"); env != nullptr && *env != '\0') {
    if (IsCorpus(env)) return std::string(env);
    tried.push_back(env);
  }
  std::vector<fs::path> starts;
  std::error_code ec;
  starts.push_back(fs::current_path(ec));
  for (const char* var : {"BUILD_WORKSPACE_DIRECTORY", "TEST_SRCDIR", "PWD"}) {
    if (const char* v = std::getenv(var); v != nullptr && *v != '\0') starts.emplace_back(v);
  }
  for (const fs::path& start : starts) {
    fs::path p = fs::weakly_canonical(start, ec);
    if (ec) continue;
    // Bazel runs tests inside its output tree; the sandbox symlinks lead back
    // to the source tree, so also follow the real path of the workspace file.
    for (fs::path candidate : {p, fs::weakly_canonical(p / "WORKSPACE", ec).parent_path()}) {
      for (fs::path dir = candidate; !dir.empty(); dir = dir.parent_path()) {
        fs::path corpus = dir / "shared" / "hlo_corpus";
        if (IsCorpus(corpus)) return corpus.string();
        tried.push_back(corpus.string());
        if (dir == dir.parent_path()) break;
      }
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "HLO corpus not found (looked for shared/hlo_corpus beside the repository; tried ",
      tried.size(), " places, e.g. ", tried.empty() ? "none" : tried.front(),
      "); set XLA_HLO_CORPUS to its directory"));
}

absl::StatusOr<std::vector<std::string>> ListCorpusFiles(const std::vector<std::string>& subdirs) {
  absl::StatusOr<std::string> dir = FindHloCorpusDir();
  if (!dir.ok()) return dir.status();
  std::vector<std::string> files;
  for (const std::string& sub : subdirs) {
    size_t before = files.size();
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(fs::path(*dir) / sub, ec)) {
      if (entry.path().extension() == ".hlo") files.push_back(entry.path().string());
    }
    if (ec || files.size() == before) {
      return absl::NotFoundError(absl::StrCat("no .hlo files in ", *dir, "/", sub));
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace xla
