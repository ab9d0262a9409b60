// Every corpus module that parses and verifies is optimized (OptimizeModule),
// gets copies inserted (AddCopiesForWhileAndConditional), is scheduled by
// the memory-aware list scheduler, assigned buffers and checked by the
// independent checker. Any failure fails the test. Prints, per module, the
// temp allocation size against the no-reuse size, and the schedule's peak
// against the post-order peak; the memory-aware peaks must not exceed the
// post-order peaks in total.
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/testing/corpus.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/service/buffer_assignment/buffer_assignment.h"
#include "xla/service/buffer_assignment/buffer_assignment_checker.h"
#include "xla/service/buffer_assignment/copy_insertion.h"
#include "xla/service/optimization_pipeline.h"
#include "xla/service/schedule/list_scheduler.h"
#include "xla/service/schedule/peak_memory.h"

namespace xla {
namespace {

// Modules checked today: 182 of the 192 corpus files (10 do not verify).
constexpr int kMinChecked = 180;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Totals {
  int checked = 0;
  double temp = 0, naive = 0, peak = 0, post_peak = 0;
  int better = 0, worse = 0;
  std::map<std::string, std::vector<std::string>> skipped;
};

void CheckModule(const std::string& path, Totals* totals) {
  const std::string name = path.substr(path.rfind('/') + 1);
  const double t0 = Now();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModuleFile(path);
  if (!module.ok()) {
    totals->skipped["does not parse"].push_back(name);
    return;
  }
  if (!VerifyModule(**module).ok()) {
    totals->skipped["does not verify"].push_back(name);
    return;
  }
  OptimizeOptions options;
  options.verify_after_each = false;
  absl::StatusOr<OptimizeResult> optimized = OptimizeModule(module->get(), options);
  if (!optimized.ok()) {
    totals->skipped["optimization fails"].push_back(name);
    return;
  }
  const double t1 = Now();
  absl::StatusOr<bool> copies = AddCopiesForWhileAndConditional(module->get());
  ASSERT_TRUE(copies.ok()) << name << ": " << copies.status();
  absl::Status verified = VerifyModule(**module);
  ASSERT_TRUE(verified.ok()) << name << ": copy insertion broke the module: " << verified;
  absl::StatusOr<HloSchedule> schedule = ScheduleModule(**module, SchedulerOptions());
  ASSERT_TRUE(schedule.ok()) << name << ": " << schedule.status();
  const double t2 = Now();
  absl::StatusOr<BufferAssignment> assignment =
      AssignBuffers(**module, *schedule, BufferAssignmentOptions());
  ASSERT_TRUE(assignment.ok()) << name << ": " << assignment.status();
  const double t3 = Now();
  absl::Status checked = CheckBufferAssignment(**module, *schedule, *assignment);
  ASSERT_TRUE(checked.ok()) << name << ": " << checked;
  const double t4 = Now();
  SchedulerOptions post;
  post.algorithm = SchedulerOptions::Algorithm::kPostOrder;
  absl::StatusOr<HloSchedule> post_schedule = ScheduleModule(**module, post);
  ASSERT_TRUE(post_schedule.ok());
  const int64_t peak = ComputePeakMemory(**module, *schedule).value();
  const int64_t post_peak = ComputePeakMemory(**module, *post_schedule).value();
  ++totals->checked;
  totals->temp += static_cast<double>(assignment->total_temp_bytes());
  totals->naive += static_cast<double>(assignment->naive_temp_bytes());
  totals->peak += static_cast<double>(peak);
  totals->post_peak += static_cast<double>(post_peak);
  totals->better += peak < post_peak;
  totals->worse += peak > post_peak;
  std::printf(
      "  %-80s temp %12lld naive %12lld in_place %5lld | peak %12lld post-order %12lld | "
      "optimize %.2fs schedule %.2fs assign %.2fs check %.2fs\n",
      name.c_str(), static_cast<long long>(assignment->total_temp_bytes()),
      static_cast<long long>(assignment->naive_temp_bytes()),
      static_cast<long long>(assignment->in_place_count()), static_cast<long long>(peak),
      static_cast<long long>(post_peak), t1 - t0, t2 - t1, t3 - t2, t4 - t3);
  std::fflush(stdout);
}

TEST(BufferAssignmentCorpus, EveryModuleAssignsAndChecks) {
  absl::StatusOr<std::vector<std::string>> files = ListCorpusFiles();
  ASSERT_TRUE(files.ok()) << files.status();
  Totals totals;
  for (const std::string& path : *files) {
    CheckModule(path, &totals);
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::printf(
      "buffer assignment corpus: %d of %zu modules checked; temp %.0f bytes vs naive %.0f "
      "(%.1f%%); schedule peak %.0f vs post-order %.0f; better on %d, worse on %d\n",
      totals.checked, files->size(), totals.temp, totals.naive,
      totals.naive > 0 ? 100.0 * totals.temp / totals.naive : 0.0, totals.peak, totals.post_peak,
      totals.better, totals.worse);
  for (const auto& [reason, names] : totals.skipped) {
    std::printf("  skipped %zu x %s\n", names.size(), reason.c_str());
  }
  EXPECT_GE(totals.checked, kMinChecked);
  EXPECT_LE(totals.peak, totals.post_peak);
}

}  // namespace
}  // namespace xla
