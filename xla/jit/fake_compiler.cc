#include "xla/jit/fake_compiler.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"

namespace xla::jit {

FakeCompiler::FakeCompiler(ArtifactFn artifact, std::string version)
    : artifact_(std::move(artifact)), version_(std::move(version)) {}

CompilerIdentity FakeCompiler::identity() const { return CompilerIdentity{"host", version_, "fake"}; }

absl::StatusOr<std::string> FakeCompiler::Compile(const JitModule& module) {
  std::function<bool(const JitModule&)> fail_if;
  std::chrono::milliseconds delay;
  {
    std::unique_lock<std::mutex> lock(mu_);
    ++compiles_;
    ++compiles_by_module_[module.name()];
    ++active_;
    peak_active_ = std::max(peak_active_, active_);
    cv_.notify_all();
    cv_.wait(lock, [this] { return gate_open_; });
    fail_if = fail_if_;
    delay = delay_;
  }
  if (delay.count() > 0) std::this_thread::sleep_for(delay);
  absl::StatusOr<std::string> result =
      (fail_if && fail_if(module))
          ? absl::StatusOr<std::string>(absl::InternalError(absl::StrCat("injected failure for module ", module.name())))
          : artifact_(module);
  {
    std::lock_guard<std::mutex> lock(mu_);
    --active_;
  }
  cv_.notify_all();
  return result;
}

void FakeCompiler::CloseGate() {
  std::lock_guard<std::mutex> lock(mu_);
  gate_open_ = false;
}

void FakeCompiler::OpenGate() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    gate_open_ = true;
  }
  cv_.notify_all();
}

void FakeCompiler::set_delay(std::chrono::milliseconds delay) {
  std::lock_guard<std::mutex> lock(mu_);
  delay_ = delay;
}

void FakeCompiler::set_fail_if(std::function<bool(const JitModule&)> fail) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_if_ = std::move(fail);
}

bool FakeCompiler::WaitForActive(int n, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [this, n] { return active_ >= n; });
}

int FakeCompiler::compiles() const {
  std::lock_guard<std::mutex> lock(mu_);
  return compiles_;
}

int FakeCompiler::compiles_of(const std::string& module_name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = compiles_by_module_.find(module_name);
  return it == compiles_by_module_.end() ? 0 : it->second;
}

int FakeCompiler::active() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_;
}

int FakeCompiler::peak_active() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_active_;
}

}  // namespace xla::jit
