// A standalone replacement for libFuzzer's main, so every fuzz harness
// (a LLVMFuzzerTestOneInput in tests/fuzz/*_fuzzer.cc) also runs as a plain
// gcc-built cc_test inside `bazel test`:
//
//   <test> [--mutations=N] [--seed=S] [--max_len=BYTES] [--budget_s=T]
//          [--input_timeout_s=T] FILE_OR_DIR...
//
// It replays every seed file (directories are read one level deep), then N
// deterministic mutations of them: bit flips, byte sets to interesting
// values, truncations, insertions, chunk duplication, splices of two seeds
// or, when the harness defines LLVMFuzzerCustomMutator, only that mutator
// (as libFuzzer does). A
// crash, sanitizer report or abort kills the process (the test fails); the
// input being run is first written to $TEST_UNDECLARED_OUTPUTS_DIR (or
// /tmp) as `crash-input`, so it can be added to the corpus. An input that
// runs longer than --input_timeout_s is treated the same way (a hang).
// Mutation stops early, without failing, when --budget_s is spent.
//
// Not thread-safe: one process, one harness, sequential inputs.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) __attribute__((weak));

namespace {

// The input being run, for the crash handler.
const uint8_t* g_current_data = nullptr;
size_t g_current_size = 0;
char g_crash_path[4096] = "/tmp/crash-input";

void WriteCurrentInput() {
  const int fd = open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  size_t done = 0;
  while (g_current_data != nullptr && done < g_current_size) {
    const ssize_t n = write(fd, g_current_data + done, g_current_size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  close(fd);
  const char msg[] = "\nfuzz_driver: input that crashed or hung written to ";
  (void)!write(2, msg, sizeof(msg) - 1);
  (void)!write(2, g_crash_path, strlen(g_crash_path));
  (void)!write(2, "\n", 1);
}

void OnFatalSignal(int sig) {
  if (sig == SIGALRM) {
    const char msg[] = "\nfuzz_driver: input timed out (hang)\n";
    (void)!write(2, msg, sizeof(msg) - 1);
  }
  WriteCurrentInput();
  signal(sig == SIGALRM ? SIGABRT : sig, SIG_DFL);
  raise(sig == SIGALRM ? SIGABRT : sig);
}

// Sanitizers call this (when linked) before they exit on a report.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
void OnSanitizerDeath() { WriteCurrentInput(); }

struct Options {
  int64_t mutations = 2000;
  uint64_t seed = 1;
  size_t max_len = 1 << 20;
  double budget_s = 20;
  unsigned input_timeout_s = 10;
  std::vector<std::string> paths;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> LoadSeeds(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      for (const auto& entry : std::filesystem::directory_iterator(p)) {
        if (entry.is_regular_file()) files.push_back(entry.path().string());
      }
    } else {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> seeds;
  for (const std::string& f : files) seeds.push_back(ReadFile(f));
  return seeds;
}

using Rng = std::mt19937_64;

size_t Below(Rng& rng, size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); }

// One generic byte-level mutation, in place; keeps the size <= max_len.
void MutateBytes(std::string& s, const std::vector<std::string>& seeds, size_t max_len, Rng& rng) {
  static const uint8_t kInteresting[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x10, 0x40, 0x20, 0x3f};
  switch (Below(rng, 8)) {
    case 0:  // flip one bit
      if (!s.empty()) s[Below(rng, s.size())] ^= static_cast<char>(1u << Below(rng, 8));
      break;
    case 1:  // set a byte to an interesting value
      if (!s.empty()) s[Below(rng, s.size())] = static_cast<char>(kInteresting[Below(rng, sizeof(kInteresting))]);
      break;
    case 2:  // random bytes over a short run
      for (size_t i = 0, n = 1 + Below(rng, 8), at = Below(rng, s.size()); i < n && at + i < s.size(); ++i) {
        s[at + i] = static_cast<char>(rng());
      }
      break;
    case 3:  // truncate
      s.resize(Below(rng, s.size() + 1));
      break;
    case 4: {  // insert random bytes
      std::string ins(1 + Below(rng, 16), '\0');
      for (char& c : ins) c = static_cast<char>(rng());
      s.insert(Below(rng, s.size() + 1), ins);
      break;
    }
    case 5: {  // duplicate a chunk
      if (s.empty()) break;
      const size_t from = Below(rng, s.size());
      const size_t len = 1 + Below(rng, std::min<size_t>(64, s.size() - from));
      s.insert(Below(rng, s.size() + 1), s.substr(from, len));
      break;
    }
    case 6: {  // splice: our prefix + another seed's suffix
      const std::string& other = seeds[Below(rng, seeds.size())];
      s = s.substr(0, Below(rng, s.size() + 1)) + other.substr(Below(rng, other.size() + 1));
      break;
    }
    case 7:  // erase a chunk
      if (!s.empty()) s.erase(Below(rng, s.size()), 1 + Below(rng, 32));
      break;
  }
  if (s.size() > max_len) s.resize(max_len);
}

void RunOne(const std::string& input, unsigned timeout_s) {
  g_current_data = reinterpret_cast<const uint8_t*>(input.data());
  g_current_size = input.size();
  alarm(timeout_s);
  LLVMFuzzerTestOneInput(g_current_data, g_current_size);
  alarm(0);
}

bool ParseFlag(const char* arg, const char* name, std::string* value) {
  const size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

}  // namespace

// Implemented here for harnesses whose custom mutator falls back to the
// generic one (libFuzzer provides it in real fuzzing builds).
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size) {
  static Rng rng(12345);
  std::string s(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> none = {s};
  MutateBytes(s, none, max_size, rng);
  memcpy(data, s.data(), s.size());
  return s.size();
}

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string v;
    if (ParseFlag(argv[i], "--mutations", &v)) {
      opt.mutations = std::stoll(v);
    } else if (ParseFlag(argv[i], "--seed", &v)) {
      opt.seed = std::stoull(v);
    } else if (ParseFlag(argv[i], "--max_len", &v)) {
      opt.max_len = std::stoull(v);
    } else if (ParseFlag(argv[i], "--budget_s", &v)) {
      opt.budget_s = std::stod(v);
    } else if (ParseFlag(argv[i], "--input_timeout_s", &v)) {
      opt.input_timeout_s = static_cast<unsigned>(std::stoul(v));
    } else if (strncmp(argv[i], "--", 2) == 0) {
      fprintf(stderr, "fuzz_driver: unknown flag %s\n", argv[i]);
      return 2;
    } else {
      opt.paths.push_back(argv[i]);
    }
  }
  if (const char* dir = getenv("TEST_UNDECLARED_OUTPUTS_DIR")) {
    snprintf(g_crash_path, sizeof(g_crash_path), "%s/crash-input", dir);
  }
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM}) signal(sig, OnFatalSignal);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(OnSanitizerDeath);

  std::vector<std::string> seeds = LoadSeeds(opt.paths);
  if (seeds.empty()) {
    fprintf(stderr, "fuzz_driver: no seed inputs found in the given paths; pass seed files or directories\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& s : seeds) RunOne(s, opt.input_timeout_s);
  // Mutants derive from a seed or from a recent mutant (a short pool), so
  // mutations stack.
  Rng rng(opt.seed);
  std::vector<std::string> pool = seeds;
  int64_t executed = 0;
  for (; executed < opt.mutations; ++executed) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > opt.budget_s) break;
    std::string input = pool[Below(rng, pool.size())];
    const int stack = 1 + static_cast<int>(Below(rng, 4));
    for (int k = 0; k < stack; ++k) {
      // As in libFuzzer, a custom mutator replaces the generic one.
      if (LLVMFuzzerCustomMutator) {
        const size_t size = input.size();
        const size_t cap = std::max(opt.max_len, size);
        input.resize(cap);
        const size_t n = LLVMFuzzerCustomMutator(reinterpret_cast<uint8_t*>(input.data()), size, cap,
                                                 static_cast<unsigned>(rng()));
        input.resize(std::min(n, cap));
      } else {
        MutateBytes(input, seeds, opt.max_len, rng);
      }
    }
    RunOne(input, opt.input_timeout_s);
    if (pool.size() < seeds.size() + 64) {
      pool.push_back(input);
    } else {
      pool[seeds.size() + Below(rng, 64)] = input;
    }
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  printf("fuzz_driver: %zu seeds + %lld mutations executed in %.1f s (seed %llu)\n", seeds.size(),
         static_cast<long long>(executed), elapsed, static_cast<unsigned long long>(opt.seed));
  return 0;
}
