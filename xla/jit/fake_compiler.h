// A controllable JitCompiler for tests (testonly): it returns artifact
// bytes chosen by the test, and lets the test hold compilations at a gate,
// slow them down, inject failures, and observe how many ran, for which
// modules, and how many at once.
//
// Thread-safety: every method is thread-safe.
#ifndef XLA_JIT_FAKE_COMPILER_H_
#define XLA_JIT_FAKE_COMPILER_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "xla/jit/jit_compiler.h"

namespace xla::jit {

class FakeCompiler : public JitCompiler {
 public:
  // Produces the bytes for a module (may fail). Must be thread-safe.
  using ArtifactFn = std::function<absl::StatusOr<std::string>(const JitModule& module)>;

  explicit FakeCompiler(ArtifactFn artifact, std::string version = "fake-1");

  CompilerIdentity identity() const override;
  // Waits at the gate, sleeps the delay, then fails (injected) or returns
  // artifact(module).
  absl::StatusOr<std::string> Compile(const JitModule& module) override;

  // Compilations started after CloseGate block until OpenGate.
  void CloseGate();
  void OpenGate();
  void set_delay(std::chrono::milliseconds delay);
  // Modules for which `fail` is true fail with Internal("injected ...").
  void set_fail_if(std::function<bool(const JitModule&)> fail);

  // Blocks until at least `n` compilations are waiting at the gate or
  // running, or `timeout` passes; returns whether it happened.
  bool WaitForActive(int n, std::chrono::milliseconds timeout);

  int compiles() const;
  int compiles_of(const std::string& module_name) const;
  int active() const;
  int peak_active() const;

 private:
  ArtifactFn artifact_;
  std::string version_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool gate_open_ = true;
  std::chrono::milliseconds delay_{0};
  std::function<bool(const JitModule&)> fail_if_;
  std::map<std::string, int> compiles_by_module_;
  int compiles_ = 0;
  int active_ = 0;
  int peak_active_ = 0;
};

}  // namespace xla::jit

#endif  // XLA_JIT_FAKE_COMPILER_H_
