#include "xla/service/hlo_pass_pipeline.h"

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

// Renames the root (a visible, harmless change).
class RenameRoot : public HloPass {
 public:
  absl::string_view name() const override { return "rename-root"; }
  absl::StatusOr<bool> Run(HloModule* m) override {
    m->entry_computation()->root_instruction()->set_name("renamed");
    return true;
  }
};

class NoOp : public HloPass {
 public:
  absl::string_view name() const override { return "no-op"; }
  absl::StatusOr<bool> Run(HloModule*) override { return false; }
};

// Breaks the module: declares a wrong shape on the root.
class Breaker : public HloPass {
 public:
  absl::string_view name() const override { return "breaker"; }
  absl::StatusOr<bool> Run(HloModule* m) override {
    *m->entry_computation()->root_instruction()->mutable_shape() = Shape::Array(PrimitiveType::F32, {9});
    return true;
  }
};

class Failing : public HloPass {
 public:
  absl::string_view name() const override { return "failing"; }
  absl::StatusOr<bool> Run(HloModule*) override { return absl::InternalError("boom"); }
};

std::unique_ptr<HloModule> Module() {
  auto m = ParseHloModule("ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}");
  EXPECT_TRUE(m.ok());
  return std::move(*m);
}

TEST(HloPassPipeline, RunsInOrderRecordsTimingsAndDumps) {
  const std::string dir = std::string(getenv("TEST_TMPDIR")) + "/dump";
  PipelineOptions options;
  options.dump_dir = dir;
  HloPassPipeline pipeline("opt", options);
  pipeline.AddPass<NoOp>();
  pipeline.AddPass<RenameRoot>();
  auto m = Module();
  absl::StatusOr<bool> changed = pipeline.Run(m.get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  ASSERT_EQ(pipeline.timings().size(), 2u);
  EXPECT_EQ(pipeline.timings()[0].pass, "no-op");
  EXPECT_FALSE(pipeline.timings()[0].changed);
  EXPECT_TRUE(pipeline.timings()[1].changed);
  EXPECT_TRUE(absl::StrContains(pipeline.TimingsReport(), "rename-root"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/00.opt.no-op.hlo"));
  auto dumped = ParseHloModuleFile(dir + "/01.opt.rename-root.hlo");
  ASSERT_TRUE(dumped.ok()) << dumped.status();
  EXPECT_EQ((*dumped)->entry_computation()->root_instruction()->name(), "renamed");
}

TEST(HloPassPipeline, VerifierNamesTheBreakingPass) {
  PipelineOptions options;
  options.verify_after_each = true;
  HloPassPipeline pipeline("opt", options);
  pipeline.AddPass<NoOp>();
  pipeline.AddPass<Breaker>();
  auto m = Module();
  absl::StatusOr<bool> r = pipeline.Run(m.get());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "verifier failed after pass 'breaker'"))
      << r.status();
}

// The verifier runs after passes that changed the module only: a module
// broken before the pipeline passes a no-op pass, and the next pass that
// changes something is the one named.
TEST(HloPassPipeline, VerifiesOnlyAfterAChange) {
  PipelineOptions options;
  options.verify_after_each = true;
  HloPassPipeline quiet("opt", options);
  quiet.AddPass<NoOp>();
  auto m = Module();
  *m->entry_computation()->root_instruction()->mutable_shape() =
      Shape::Array(PrimitiveType::F32, {9});
  EXPECT_TRUE(quiet.Run(m.get()).ok());
  HloPassPipeline loud("opt", options);
  loud.AddPass<NoOp>();
  loud.AddPass<RenameRoot>();
  absl::StatusOr<bool> r = loud.Run(m.get());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "verifier failed after pass 'rename-root'"))
      << r.status();
}

TEST(HloPassPipeline, PassErrorsNameThePass) {
  HloPassPipeline pipeline("opt");
  pipeline.AddPass<Failing>();
  auto m = Module();
  absl::StatusOr<bool> r = pipeline.Run(m.get());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "pass 'failing': boom");
}

TEST(HloPassPipeline, ObserversSeeEveryPassInOrderIncludingNested) {
  std::vector<std::string> option_calls;
  std::vector<std::string> scoped_calls;
  PipelineOptions options;
  options.before_pass = [&](absl::string_view pipeline, absl::string_view pass) {
    option_calls.push_back(absl::StrCat(pipeline, "/", pass));
  };
  HloPassPipeline outer("outer", options);
  outer.AddPass<NoOp>();
  HloPassPipeline& inner = outer.AddPass<HloPassPipeline>("inner");
  inner.AddPass<RenameRoot>();
  outer.AddPass<NoOp>();
  auto m = Module();
  {
    ScopedPassObserver watch([&](absl::string_view pipeline, absl::string_view pass) {
      scoped_calls.push_back(absl::StrCat(pipeline, "/", pass));
    });
    ASSERT_TRUE(outer.Run(m.get()).ok());
    {
      // An inner scope replaces the outer one until it ends.
      int inner_calls = 0;
      ScopedPassObserver nested([&](absl::string_view, absl::string_view) { ++inner_calls; });
      ASSERT_TRUE(inner.Run(m.get()).ok());
      EXPECT_EQ(inner_calls, 1);
    }
    ASSERT_TRUE(inner.Run(m.get()).ok());
  }
  EXPECT_EQ(option_calls, (std::vector<std::string>{"outer/no-op", "outer/inner", "outer/no-op"}));
  EXPECT_EQ(scoped_calls,
            (std::vector<std::string>{"outer/no-op", "outer/inner", "inner/rename-root",
                                      "outer/no-op", "inner/rename-root"}));
  EXPECT_EQ(ScopedPassObserver::Current(), nullptr);
  ASSERT_TRUE(inner.Run(m.get()).ok());  // no observer: nothing recorded
  EXPECT_EQ(scoped_calls.size(), 5u);
}

}  // namespace
}  // namespace xla
