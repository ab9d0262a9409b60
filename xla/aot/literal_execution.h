// Runs an Executable on host Literals: copies each argument to the device,
// executes, copies every result leaf back. For tools and tests (`xla_aot
// run`); serving code keeps its data on the device and calls Execute.
//
// Thread-safety: as Executable::Execute.
#ifndef XLA_AOT_LITERAL_EXECUTION_H_
#define XLA_AOT_LITERAL_EXECUTION_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla/aot/executable.h"
#include "xla/types/literal.h"

namespace xla::aot {

// A tuple argument stands for its leaves, depth first (the compiler gives
// the program one parameter per leaf of a tuple entry parameter).
// Arguments must have the parameters' shapes (layouts ignored): otherwise
// InvalidArgument naming the parameter and both shapes. Literals are
// row-major; arguments and results are moved into and out of the layouts
// the program's parameters and outputs declare (physical_layout.h). Returns the result
// leaves in depth-first order (the order of the result's shape indices).
// Fails as Initialize (called first, a no-op when done) and Execute.
// `options` go to Execute (a tracer; a replicated run's collectives).
absl::StatusOr<std::vector<Literal>> ExecuteOnLiterals(Executable& executable,
                                                       stream_executor::StreamExecutor* executor,
                                                       absl::Span<const Literal> arguments,
                                                       const ExecuteOptions& options = {});

}  // namespace xla::aot

#endif  // XLA_AOT_LITERAL_EXECUTION_H_
