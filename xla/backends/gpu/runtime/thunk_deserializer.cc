#include "xla/backends/gpu/runtime/thunk_deserializer.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/unknown_field_set.h"
#include "xla/backends/gpu/runtime/async_done_thunk.h"
#include "xla/backends/gpu/runtime/async_start_thunk.h"
#include "xla/backends/gpu/runtime/collectives/collective_thunk.h"
#include "xla/backends/gpu/runtime/conditional_thunk.h"
#include "xla/backends/gpu/runtime/convolution_thunk.h"
#include "xla/backends/gpu/runtime/copy_thunk.h"
#include "xla/backends/gpu/runtime/custom_call_thunk.h"
#include "xla/backends/gpu/runtime/fft_thunk.h"
#include "xla/backends/gpu/runtime/gemm_thunk.h"
#include "xla/backends/gpu/runtime/host_transfer_thunk.h"
#include "xla/backends/gpu/runtime/kernel_thunk.h"
#include "xla/backends/gpu/runtime/memset_thunk.h"
#include "xla/backends/gpu/runtime/sequential_thunk.h"
#include "xla/backends/gpu/runtime/while_thunk.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

template <typename T>
absl::StatusOr<std::unique_ptr<Thunk>> Upcast(absl::StatusOr<std::unique_ptr<T>> thunk) {
  if (!thunk.ok()) return thunk.status();
  return std::unique_ptr<Thunk>(std::move(*thunk));
}

// Field numbers of the fields this build does not know (an artifact from a
// newer compiler), for the error message.
std::string UnknownFieldNumbers(const ThunkProto& proto) {
  const google::protobuf::UnknownFieldSet& unknown =
      proto.GetReflection()->GetUnknownFields(proto);
  std::vector<int> numbers;
  for (int i = 0; i < unknown.field_count(); ++i) numbers.push_back(unknown.field(i).number());
  if (numbers.empty()) return "none set";
  return absl::StrJoin(numbers, ", ");
}

}  // namespace

absl::StatusOr<std::unique_ptr<Thunk>> DeserializeThunk(const ThunkProto& proto,
                                                        const ThunkContext& ctx) {
  RETURN_IF_ERROR(ctx.CheckStreamId(proto.execution_stream_id(), "execution_stream_id"));
  if (proto.execution_stream_id() != ctx.stream_id()) {
    return ctx.Field("execution_stream_id")
        .Error(absl::StrCat("stream ", proto.execution_stream_id(), " differs from the enclosing ",
                            "stream ", ctx.stream_id(), "; only async_start moves work to another stream"));
  }
  ThunkInfo info{proto.execution_stream_id(), proto.profile_annotation()};
  switch (proto.kind_case()) {
    case ThunkProto::kSequential:
      return Upcast(SequentialThunk::FromProto(std::move(info), proto.sequential(), ctx.Field("sequential")));
    case ThunkProto::kKernel:
      return Upcast(KernelThunk::FromProto(std::move(info), proto.kernel(), ctx.Field("kernel")));
    case ThunkProto::kCopy:
      return Upcast(CopyThunk::FromProto(std::move(info), proto.copy(), ctx.Field("copy")));
    case ThunkProto::kMemset:
      return Upcast(MemsetThunk::FromProto(std::move(info), proto.memset(), ctx.Field("memset")));
    case ThunkProto::kGemm:
      return Upcast(GemmThunk::FromProto(std::move(info), proto.gemm(), ctx.Field("gemm")));
    case ThunkProto::kWhile:
      return Upcast(WhileThunk::FromProto(std::move(info), proto.while_(), ctx.Field("while")));
    case ThunkProto::kConditional:
      return Upcast(ConditionalThunk::FromProto(std::move(info), proto.conditional(),
                                                ctx.Field("conditional")));
    case ThunkProto::kCustomCall:
      return Upcast(CustomCallThunk::FromProto(std::move(info), proto.custom_call(),
                                               ctx.Field("custom_call")));
    case ThunkProto::kAsyncStart:
      return Upcast(AsyncStartThunk::FromProto(std::move(info), proto.async_start(),
                                               ctx.Field("async_start")));
    case ThunkProto::kAsyncDone:
      return Upcast(AsyncDoneThunk::FromProto(std::move(info), proto.async_done(),
                                              ctx.Field("async_done")));
    case ThunkProto::kAllReduce:
      return ctx.Error(
          "thunk kind all_reduce is known to format 1 but not supported by this runtime; "
          "use a runtime with collectives support or compile without collectives");
    case ThunkProto::kCollective:
      return Upcast(CollectiveThunk::FromProto(std::move(info), proto.collective(),
                                               ctx.Field("collective")));
    case ThunkProto::kConvolution:
      return Upcast(ConvolutionThunk::FromProto(std::move(info), proto.convolution(),
                                                ctx.Field("convolution")));
    case ThunkProto::kFft:
      return Upcast(FftThunk::FromProto(std::move(info), proto.fft(), ctx.Field("fft")));
    case ThunkProto::kHostSend:
      return Upcast(HostSendThunk::FromProto(std::move(info), proto.host_send(),
                                             ctx.Field("host_send")));
    case ThunkProto::kHostRecv:
      return Upcast(HostRecvThunk::FromProto(std::move(info), proto.host_recv(),
                                             ctx.Field("host_recv")));
    case ThunkProto::KIND_NOT_SET:
      return ctx.Error(absl::StrCat("unknown thunk kind (field number ", UnknownFieldNumbers(proto),
                                    "): the artifact is newer than this runtime; upgrade the "
                                    "runtime or compile for format 1"));
  }
  return ctx.Error("unreachable thunk kind");
}

}  // namespace xla::gpu
