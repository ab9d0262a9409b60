#include "xla/backends/gpu/runtime/copy_dynamic_offset.h"

#include <optional>

#include "absl/strings/str_cat.h"

namespace xla::gpu {
namespace {

using Wide = __int128;

// One side of the copy: where its window starts at iteration 0 (slice
// offset plus base), how far it moves per iteration, how much it copies,
// and the allocation it must stay in.
struct Side {
  const char* name;  // "source" / "destination", for messages
  int64_t allocation;
  Wide start;
  Wide stride;
  Wide size;
  Wide allocation_size;

  Wide OffsetAt(int64_t i) const { return start + stride * static_cast<Wide>(i); }
  bool InsideAt(int64_t i) const {
    const Wide offset = OffsetAt(i);
    return offset >= 0 && offset + size <= allocation_size;
  }
  std::string WindowAt(int64_t i) const {
    const Wide offset = OffsetAt(i);
    return absl::StrCat("[", static_cast<int64_t>(offset), ", ", static_cast<int64_t>(offset + size),
                        ") of allocation ", allocation, " (", static_cast<int64_t>(allocation_size),
                        " bytes)");
  }
};

Side SourceSide(const CopyDynamicOffset& d, const BufferSlice& s) {
  return {"source", s.allocation, Wide{s.offset} + d.source_base, d.source_stride, s.size,
          d.source_allocation_size};
}
Side DestinationSide(const CopyDynamicOffset& d, const BufferSlice& s) {
  return {"destination", s.allocation, Wide{s.offset} + d.destination_base, d.destination_stride,
          s.size, d.destination_allocation_size};
}

// The first iteration in [0, trip_count) whose window leaves the
// allocation, or none. The window is affine in i, so the iterations inside
// form one interval: the first bad one is 0 or just past its end.
std::optional<int64_t> FirstIterationOutside(const Side& side, int64_t trip_count) {
  if (trip_count <= 0) return std::nullopt;
  if (!side.InsideAt(0)) return 0;
  Wide first = trip_count;  // none
  if (side.stride > 0) first = (side.allocation_size - side.size - side.start) / side.stride + 1;
  if (side.stride < 0) first = side.start / -side.stride + 1;
  if (first >= trip_count) return std::nullopt;
  return static_cast<int64_t>(first);
}

// Whether the two windows of iteration `i` share bytes without being the
// same bytes (same allocation only).
bool OverlapPartially(const Side& a, const Side& b, int64_t i) {
  if (a.allocation != b.allocation) return false;
  const Wide x = a.OffsetAt(i), y = b.OffsetAt(i);
  return x != y && x < y + b.size && y < x + a.size;
}

// The number of while thunks around `ctx`, and the one at `depth`.
const EnclosingLoop* LoopAt(const ThunkContext& ctx, int64_t depth, int64_t* nesting) {
  *nesting = 0;
  const EnclosingLoop* found = nullptr;
  for (const EnclosingLoop* l = ctx.loop(); l != nullptr; l = l->outer, ++*nesting) {
    if (*nesting == depth) found = l;
  }
  return found;
}

}  // namespace

absl::StatusOr<CopyDynamicOffset> CopyDynamicOffset::FromProto(const CopyDynamicOffsetProto& proto,
                                                               const BufferSlice& source,
                                                               const BufferSlice& destination,
                                                               const ThunkContext& ctx) {
  const ThunkContext field = ctx.Field("dynamic_offset");
  int64_t nesting = 0;
  const EnclosingLoop* loop = LoopAt(ctx, proto.loop_depth(), &nesting);
  if (loop == nullptr) {
    return field.Field("loop_depth").Error(absl::StrCat(
        proto.loop_depth(), " is outside [0, ", nesting, "): the copy runs inside ", nesting,
        " while thunk(s)"));
  }
  CopyDynamicOffset d{proto.loop_depth(),
                      proto.source_base(),
                      proto.source_stride(),
                      proto.destination_base(),
                      proto.destination_stride(),
                      ctx.tables().allocations[source.allocation].size,
                      ctx.tables().allocations[destination.allocation].size};
  const Side sides[] = {SourceSide(d, source), DestinationSide(d, destination)};
  if (loop->trip_count.has_value()) {
    for (const Side& side : sides) {
      std::optional<int64_t> bad = FirstIterationOutside(side, *loop->trip_count);
      if (!bad.has_value()) continue;
      return field.Error(absl::StrCat("at iteration ", *bad, " of ", *loop->trip_count,
                                      " of the while thunk ", loop->path, " the ", side.name,
                                      " window is ", side.WindowAt(*bad),
                                      ", outside its allocation"));
    }
  }
  if (OverlapPartially(sides[0], sides[1], 0)) {
    return field.Error(absl::StrCat("at iteration 0 the source window ", sides[0].WindowAt(0),
                                    " and the destination window ", sides[1].WindowAt(0),
                                    " overlap partially"));
  }
  return d;
}

CopyDynamicOffsetProto CopyDynamicOffset::ToProto() const {
  CopyDynamicOffsetProto proto;
  proto.set_loop_depth(loop_depth);
  proto.set_source_base(source_base);
  proto.set_source_stride(source_stride);
  proto.set_destination_base(destination_base);
  proto.set_destination_stride(destination_stride);
  return proto;
}

absl::StatusOr<CopyDynamicOffset::Windows> CopyDynamicOffset::WindowsAt(
    const BufferSlice& source, const BufferSlice& destination, int64_t iteration) const {
  const Side sides[] = {SourceSide(*this, source), DestinationSide(*this, destination)};
  for (const Side& side : sides) {
    if (side.InsideAt(iteration)) continue;
    return absl::OutOfRangeError(absl::StrCat(
        "at iteration ", iteration, " of the while thunk ", loop_depth, " level(s) out the ",
        side.name, " window would be ", side.WindowAt(iteration),
        ", outside its allocation; nothing was copied (the artifact's dynamic_offset is wrong "
        "for this trip count)"));
  }
  if (OverlapPartially(sides[0], sides[1], iteration)) {
    return absl::OutOfRangeError(absl::StrCat("at iteration ", iteration, " the source window ",
                                              sides[0].WindowAt(iteration),
                                              " and the destination window ",
                                              sides[1].WindowAt(iteration), " overlap partially"));
  }
  Windows w{source, destination};
  w.source.offset = static_cast<int64_t>(sides[0].OffsetAt(iteration));
  w.destination.offset = static_cast<int64_t>(sides[1].OffsetAt(iteration));
  return w;
}

}  // namespace xla::gpu
