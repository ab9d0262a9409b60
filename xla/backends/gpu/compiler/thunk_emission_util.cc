#include "xla/backends/gpu/compiler/thunk_emission_util.h"

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

ShapeIndex Concat(const ShapeIndex& a, const ShapeIndex& b) {
  ShapeIndex r = a;
  r.insert(r.end(), b.begin(), b.end());
  return r;
}

absl::Status Unimplemented(const HloInstruction& instr, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat("thunk emission: instruction '", instr.name(),
                                               "' (opcode ", HloOpcodeName(instr.opcode()),
                                               "): ", why));
}

BufferSliceProto SliceToProto(const xla::BufferSlice& slice) {
  BufferSliceProto p;
  p.set_allocation(slice.allocation);
  p.set_offset(slice.offset);
  p.set_size(slice.size);
  return p;
}

ThunkProto* AddThunk(const HloInstruction& instr, Thunks* out) {
  ThunkProto* t = out->Add();
  t->set_profile_annotation(instr.name());
  return t;
}

absl::Status AliasOrCopy(const BufferAssignment& assignment, const HloInstruction& annotate,
                         const HloInstruction* src, const ShapeIndex& src_index,
                         const HloInstruction* dst, const ShapeIndex& dst_index, Thunks* out) {
  const Shape* shape = SubshapeAt(dst->shape(), dst_index);
  if (shape == nullptr) return absl::InternalError("bad shape index");
  for (const ShapeIndex& leaf : ArrayLeaves(*shape)) {
    ASSIGN_OR_RETURN(xla::BufferSlice from, assignment.GetSlice(src, Concat(src_index, leaf)));
    ASSIGN_OR_RETURN(xla::BufferSlice to, assignment.GetSlice(dst, Concat(dst_index, leaf)));
    if (from == to) continue;
    if (from.size != to.size) {
      return absl::InternalError(
          absl::StrCat("slices of ", from.size, " and ", to.size, " bytes for one value"));
    }
    if (to.size == 0) continue;
    CopyThunkProto* copy = AddThunk(annotate, out)->mutable_copy();
    *copy->mutable_source() = SliceToProto(from);
    *copy->mutable_destination() = SliceToProto(to);
  }
  return absl::OkStatus();
}

}  // namespace xla::gpu
