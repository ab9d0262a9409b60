#include "xla/backends/gpu/runtime/collective_context.h"

namespace xla::gpu {
namespace {
thread_local const CollectiveContext* current_context = nullptr;
}  // namespace

const CollectiveContext* CurrentCollectiveContext() { return current_context; }

ScopedCollectiveContext::ScopedCollectiveContext(const CollectiveContext* context)
    : previous_(current_context) {
  current_context = context;
}

ScopedCollectiveContext::~ScopedCollectiveContext() { current_context = previous_; }

}  // namespace xla::gpu
