#include "xla/aot/literal_execution.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/types/physical_layout.h"
#include "xla/util/status_macros.h"

namespace xla::aot {

namespace se = ::stream_executor;

namespace {

void AppendLeaves(const Literal& literal, std::vector<const Literal*>* out) {
  if (!literal.shape().IsTuple()) {
    out->push_back(&literal);
    return;
  }
  for (const Literal& e : literal.tuple_elements()) AppendLeaves(e, out);
}

}  // namespace

absl::StatusOr<std::vector<Literal>> ExecuteOnLiterals(Executable& executable,
                                                       se::StreamExecutor* executor,
                                                       absl::Span<const Literal> tupled_arguments,
                                                       const ExecuteOptions& options) {
  RETURN_IF_ERROR(executable.Initialize(executor));
  const ProgramShape& shape = executable.program_shape();
  // A tuple argument is passed as its leaves (the compiler flattens tuple
  // entry parameters, entry_parameter_flattener.h).
  std::vector<const Literal*> leaves;
  for (const Literal& a : tupled_arguments) AppendLeaves(a, &leaves);
  std::vector<Literal> flattened;
  absl::Span<const Literal> arguments = tupled_arguments;
  if (leaves.size() != tupled_arguments.size()) {
    for (const Literal* leaf : leaves) flattened.push_back(*leaf);
    arguments = flattened;
  }
  if (arguments.size() != shape.parameters.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the program takes ", shape.parameters.size(),
                                                   " arguments, got ", arguments.size()));
  }
  // Relaid-out argument copies must outlive the stream (whose destructor
  // waits for the copies reading them), so they are declared first.
  std::vector<std::vector<uint8_t>> physical_copies;
  ASSIGN_OR_RETURN(std::unique_ptr<se::Stream> stream, executor->CreateStream());
  std::vector<ExecutionArgument> args;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (!ShapesCompatible(arguments[i].shape(), shape.parameters[i])) {
      return absl::InvalidArgumentError(absl::StrCat("argument ", i, " has shape ",
                                                     arguments[i].shape().ToString(false),
                                                     " but parameter ", i, " is ",
                                                     shape.parameters[i].ToString(false)));
    }
    absl::Span<const uint8_t> data = arguments[i].data();
    if (!PhysicalOrderIsLogical(shape.parameters[i])) {
      std::vector<uint8_t>& physical = physical_copies.emplace_back(data.size());
      RETURN_IF_ERROR(LogicalToPhysical(shape.parameters[i], data, absl::MakeSpan(physical)));
      data = physical;
    }
    ASSIGN_OR_RETURN(se::OwningDeviceMemory memory, se::OwningDeviceMemory::Allocate(executor, data.size()));
    if (!data.empty()) RETURN_IF_ERROR(stream->Memcpy(memory.ptr(), data.data(), data.size()));
    args.push_back(ExecutionArgument::Donate(std::move(memory)));
  }
  RETURN_IF_ERROR(stream->BlockHostUntilDone());
  ASSIGN_OR_RETURN(std::vector<se::OwningDeviceMemory> outputs,
                   executable.Execute(executor, std::move(args), options));
  const std::vector<OutputInfo>& infos = executable.outputs();
  std::vector<size_t> order(infos.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return infos[a].shape_index < infos[b].shape_index; });
  std::vector<Literal> results;
  for (size_t i : order) {
    RETURN_IF_ERROR(CheckLiteralFitsInMemory(infos[i].shape, absl::StrCat("output ", i)));
    Literal leaf(infos[i].shape);
    absl::Span<uint8_t> data = leaf.mutable_data();
    if (!data.empty()) RETURN_IF_ERROR(stream->Memcpy(data.data(), outputs[i].get(), data.size()));
    results.push_back(std::move(leaf));
  }
  RETURN_IF_ERROR(stream->BlockHostUntilDone());
  // Device bytes follow each output's layout; Literals are row-major.
  for (size_t k = 0; k < order.size(); ++k) {
    const Shape& out_shape = infos[order[k]].shape;
    if (PhysicalOrderIsLogical(out_shape)) continue;
    std::vector<uint8_t> physical(results[k].data().begin(), results[k].data().end());
    RETURN_IF_ERROR(PhysicalToLogical(out_shape, physical, results[k].mutable_data()));
  }
  return results;
}

}  // namespace xla::aot
