#include "xla/backends/gpu/codegen/host/lld_link.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/host/host_object_compiler.h"
#include "xla/util/subprocess.h"

namespace xla::gpu {
namespace {

// An object defining `int64_t NAME(int64_t x) { return x * factor + 7; }`.
std::string CompileObject(const std::string& name, int64_t factor) {
  llvm::LLVMContext ctx;
  llvm::Module module("lld_link_test", ctx);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(i64, {i64}, false),
                                    llvm::Function::ExternalLinkage, name, module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  b.CreateRet(b.CreateAdd(b.CreateMul(fn->getArg(0), b.getInt64(factor)), b.getInt64(7)));
  absl::StatusOr<std::string> object = CompileHostObject(module, HostCompileOptions());
  EXPECT_TRUE(object.ok()) << object.status();
  return object.ok() ? *object : std::string();
}

// A scratch directory holding two objects, and the arguments that link
// them into OUTPUT.
class LldLinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<ScopedTempDir>> dir = ScopedTempDir::Create("lld_link_test_");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_ = std::move(*dir);
    for (int i = 0; i < 2; ++i) {
      const std::string path = absl::StrCat(dir_->path(), "/part_", i, ".o");
      ASSERT_TRUE(WriteFileBytes(path, CompileObject(absl::StrCat("f", i), 3 + 2 * i)).ok());
      inputs_.push_back(path);
    }
  }

  std::vector<std::string> Arguments(const std::string& output) const {
    std::vector<std::string> args = {"-shared", "--build-id=none", "-z", "noexecstack",
                                     "-z", "now", "--hash-style=both", "-o", output};
    args.insert(args.end(), inputs_.begin(), inputs_.end());
    return args;
  }

  std::string Path(const std::string& name) const { return dir_->path() + "/" + name; }

  std::unique_ptr<ScopedTempDir> dir_;
  std::vector<std::string> inputs_;
};

TEST_F(LldLinkTest, LinksToTheBytesOfTheLdLld16Binary) {
  ASSERT_TRUE(LinkElfInProcess(Arguments(Path("in_process.so"))).ok());
  absl::StatusOr<std::string> ours = ReadFileBytes(Path("in_process.so"));
  ASSERT_TRUE(ours.ok()) << ours.status();
  ASSERT_GT(ours->size(), 1000u);
  EXPECT_EQ(ours->substr(0, 4), "\x7f" "ELF");
  absl::StatusOr<std::string> lld = FindTool({"ld.lld-16"}, {});
  if (!lld.ok()) GTEST_SKIP() << "no ld.lld-16 on PATH to compare with: " << lld.status();
  std::vector<std::string> command = {*lld};
  for (const std::string& arg : Arguments(Path("external.so"))) command.push_back(arg);
  absl::StatusOr<ProcessResult> run = RunProcess(command);
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->exit_code, 0) << run->output;
  absl::StatusOr<std::string> theirs = ReadFileBytes(Path("external.so"));
  ASSERT_TRUE(theirs.ok()) << theirs.status();
  EXPECT_TRUE(*ours == *theirs) << "in process " << ours->size() << " bytes, ld.lld-16 "
                                << theirs->size() << " bytes";
}

// An error lld reports (a missing input, a duplicate symbol) comes back
// with lld's message; a fatal one (a truncated ELF object: lld::fatal, which
// ends in llvm::sys::Process::Exit) too, instead of
// exiting the process; links after either still work and give the same
// bytes as before.
TEST_F(LldLinkTest, ErrorsComeBackWithLldsMessageAndLaterLinksStillWork) {
  ASSERT_TRUE(LinkElfInProcess(Arguments(Path("first.so"))).ok());

  std::vector<std::string> missing = Arguments(Path("missing.so"));
  missing.push_back(Path("no_such_file.o"));
  absl::Status s = LinkElfInProcess(missing);
  EXPECT_TRUE(absl::IsInternal(s)) << s;
  EXPECT_NE(s.message().find("no_such_file.o"), std::string::npos) << s;

  std::vector<std::string> duplicate = Arguments(Path("duplicate.so"));
  duplicate.push_back(inputs_[0]);
  s = LinkElfInProcess(duplicate);
  EXPECT_TRUE(absl::IsInternal(s)) << s;
  EXPECT_NE(s.message().find("duplicate symbol"), std::string::npos) << s;
  EXPECT_NE(s.message().find("f0"), std::string::npos) << s;

  absl::StatusOr<std::string> object = ReadFileBytes(inputs_[1]);
  ASSERT_TRUE(object.ok());
  const std::string truncated = Path("truncated.o");
  ASSERT_TRUE(WriteFileBytes(truncated, object->substr(0, 80)).ok());
  std::vector<std::string> fatal = Arguments(Path("fatal.so"));
  fatal.push_back(truncated);
  s = LinkElfInProcess(fatal);
  EXPECT_TRUE(absl::IsInternal(s)) << s;
  EXPECT_NE(s.message().find("truncated.o"), std::string::npos) << s;

  for (const char* failed : {"missing.so", "duplicate.so", "fatal.so"}) {
    EXPECT_FALSE(ReadFileBytes(Path(failed)).ok()) << failed << " was written";
  }
  ASSERT_TRUE(LinkElfInProcess(Arguments(Path("again.so"))).ok());
  EXPECT_EQ(*ReadFileBytes(Path("first.so")), *ReadFileBytes(Path("again.so")));
}

TEST_F(LldLinkTest, LinksFromSeveralThreadsRunOneAtATimeToTheSameBytes) {
  constexpr int kThreads = 5;
  std::vector<absl::Status> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      results[t] = LinkElfInProcess(Arguments(Path(absl::StrCat("thread_", t, ".so"))));
    });
  }
  for (std::thread& t : threads) t.join();
  absl::StatusOr<std::string> first = ReadFileBytes(Path("thread_0.so"));
  ASSERT_TRUE(first.ok()) << first.status();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_TRUE(results[t].ok()) << "thread " << t << ": " << results[t];
    EXPECT_EQ(*ReadFileBytes(Path(absl::StrCat("thread_", t, ".so"))), *first) << t;
  }
}

}  // namespace
}  // namespace xla::gpu
