#include "xla/backends/gpu/runtime/graph_runner.h"

#include <atomic>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

namespace se = ::stream_executor;

namespace {

std::atomic<bool> skip_updates_for_testing{false};

bool SameBuffer(const se::DeviceMemoryBase& a, const se::DeviceMemoryBase& b) {
  return a.opaque == b.opaque && a.size == b.size;
}

}  // namespace

GraphPlan GraphPlan::Build(const Thunk& root, bool capture_library_calls) {
  GraphPlan plan;
  plan.capture_library_calls_ = capture_library_calls;
  plan.Walk(root);
  return plan;
}

void GraphPlan::Walk(const Thunk& thunk) {
  const absl::Span<const std::unique_ptr<Thunk>> sequence = thunk.sequence();
  size_t begin = 0;
  // Records thunks [begin, end) as a run when long enough.
  auto close = [&](size_t end) {
    if (end >= begin + kMinGraphRun) {
      by_first_[sequence[begin].get()] = static_cast<int>(runs_.size());
      runs_.push_back(GraphRun{sequence.subspan(begin, end - begin), sequence[begin]->execution_stream_id()});
    }
  };
  for (size_t i = 0; i < sequence.size(); ++i) {
    const Thunk& t = *sequence[i];
    const bool joins = IsNode(t) && i > begin && t.execution_stream_id() == sequence[begin]->execution_stream_id();
    if (joins) continue;
    close(i);
    // A command starts a new run; anything else starts none.
    begin = IsNode(t) ? i : i + 1;
  }
  close(sequence.size());
  for (const Thunk* child : thunk.children()) Walk(*child);
}

int64_t GraphPlan::num_nodes() const {
  int64_t nodes = 0;
  for (const GraphRun& run : runs_) nodes += static_cast<int64_t>(run.thunks.size());
  return nodes;
}

GraphRunner::GraphRunner(const GraphPlan* plan, se::StreamExecutor* executor)
    : plan_(plan), executor_(executor), instances_(plan->runs().size()) {}

void GraphRunner::SkipUpdatesForTesting(bool skip) { skip_updates_for_testing.store(skip); }

void GraphRunner::BeginRun(absl::Span<const se::DeviceMemoryBase> buffers) {
  bool same = buffers.size() == last_buffers_.size();
  for (size_t i = 0; same && i < buffers.size(); ++i) same = SameBuffer(buffers[i], last_buffers_[i]);
  if (same) return;
  last_buffers_.assign(buffers.begin(), buffers.end());
  for (Instance& instance : instances_) instance.stale = instance.buffer != nullptr;
}

absl::Status GraphRunner::Build(int index, const ExecuteParams& params) {
  const GraphRun& run = plan_->runs()[index];
  Instance& instance = instances_[index];
  std::vector<se::DeviceCommand> commands(run.thunks.size());
  for (size_t i = 0; i < run.thunks.size(); ++i) {
    RETURN_IF_ERROR(run.thunks[i]->ToCommand(params, &commands[i]));
  }
  absl::StatusOr<std::unique_ptr<se::CommandBuffer>> buffer =
      executor_->CreateCommandBuffer(params.streams[run.stream_id]);
  absl::Status status = buffer.status();
  for (size_t i = 0; status.ok() && i < commands.size(); ++i) {
    status = (*buffer)->Append(commands[i]).status();
    if (!status.ok()) status = AnnotateError(*run.thunks[i], status);
  }
  if (status.ok()) status = (*buffer)->Finalize();
  if (!status.ok()) {
    // Plain launches for this run from now on; the first reason is kept.
    instance.failed = true;
    if (note_.empty()) {
      note_ = absl::StrCat("graph of ", run.thunks.size(), " thunks not built, run plainly: ",
                           status.message());
    }
    return absl::OkStatus();
  }
  instance.buffer = *std::move(buffer);
  instance.commands = std::move(commands);
  instance.stale = false;
  ++counts_.graphs_built;
  counts_.nodes_built += static_cast<int64_t>(run.thunks.size());
  return absl::OkStatus();
}

absl::Status GraphRunner::Refresh(int index, const ExecuteParams& params) {
  const GraphRun& run = plan_->runs()[index];
  Instance& instance = instances_[index];
  instance.stale = false;
  if (skip_updates_for_testing.load(std::memory_order_relaxed)) return absl::OkStatus();
  for (size_t i = 0; i < run.thunks.size(); ++i) {
    RETURN_IF_ERROR(run.thunks[i]->ToCommand(params, &scratch_));
    if (scratch_ == instance.commands[i]) continue;
    RETURN_IF_ERROR(AnnotateError(*run.thunks[i], instance.buffer->Update(static_cast<int>(i), scratch_)));
    instance.commands[i] = scratch_;
    ++counts_.nodes_updated;
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> GraphRunner::TryLaunch(const Thunk& thunk, const ExecuteParams& params) {
  const int index = plan_->RunStartingAt(&thunk);
  if (index < 0) return size_t{0};
  Instance& instance = instances_[index];
  if (instance.failed) return size_t{0};
  if (instance.buffer == nullptr) {
    RETURN_IF_ERROR(Build(index, params));
    if (instance.failed) return size_t{0};
  } else if (instance.stale) {
    RETURN_IF_ERROR(Refresh(index, params));
  }
  const GraphRun& run = plan_->runs()[index];
  RETURN_IF_ERROR(instance.buffer->Submit(params.streams[run.stream_id]));
  return run.thunks.size();
}

}  // namespace xla::gpu
