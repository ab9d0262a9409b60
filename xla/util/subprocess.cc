#include "xla/util/subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

extern char** environ;

namespace xla {

absl::StatusOr<std::unique_ptr<ScopedTempDir>> ScopedTempDir::Create(absl::string_view prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/", prefix, "XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create a temporary directory ", pattern, ": ",
                                            std::strerror(errno),
                                            " (set TMPDIR to a writable directory)"));
  }
  return std::unique_ptr<ScopedTempDir>(new ScopedTempDir(pattern));
}

ScopedTempDir::~ScopedTempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

absl::StatusOr<std::string> FindTool(const std::vector<std::string>& names,
                                     const std::vector<std::string>& extra_dirs) {
  std::vector<std::string> dirs = extra_dirs;
  const char* path_env = std::getenv("PATH");
  for (absl::string_view d : absl::StrSplit(path_env != nullptr ? path_env : "/usr/bin:/bin", ':',
                                            absl::SkipEmpty())) {
    dirs.emplace_back(d);
  }
  for (const std::string& name : names) {
    if (name.find('/') != std::string::npos) {
      if (IsExecutableFile(name)) return name;
      continue;
    }
    for (const std::string& dir : dirs) {
      const std::string full = absl::StrCat(dir, "/", name);
      if (IsExecutableFile(full)) return full;
    }
  }
  return absl::NotFoundError(absl::StrCat("looked for ", absl::StrJoin(names, ", "), " in ",
                                          absl::StrJoin(dirs, ":")));
}

absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& args) {
  if (args.empty()) return absl::InvalidArgumentError("RunProcess: no program given");
  absl::StatusOr<std::unique_ptr<ScopedTempDir>> dir = ScopedTempDir::Create("xla_run_");
  if (!dir.ok()) return dir.status();
  const std::string log = (*dir)->path() + "/output";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0].c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    return absl::InternalError(absl::StrCat("cannot start ", args[0], ": ", std::strerror(spawned)));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return absl::InternalError(absl::StrCat("waiting for ", args[0], ": ", std::strerror(errno)));
    }
  }
  ProcessResult result;
  result.exit_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  absl::StatusOr<std::string> output = ReadFileBytes(log);
  if (!output.ok()) return output.status();
  result.output = std::move(*output);
  return result;
}

absl::Status WriteFileBytes(const std::string& path, absl::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InternalError(absl::StrCat("cannot read ", path));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace xla
