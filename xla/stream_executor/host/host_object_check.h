// CheckHostSharedObject: refusing a host kernel module before it is loaded.
//
// A host artifact carries its kernels as an x86-64 ELF shared object, which
// the runtime loads with dlopen (host_kernel_module.h). dlopen runs code of
// the object before the runtime sees a single kernel: initializers
// (DT_INIT, DT_INIT_ARRAY, DT_PREINIT_ARRAY), IFUNC resolvers and text
// relocations, and it loads whatever libraries the object names. Anyone who
// can write an artifact can recompute its checksum, so the checksum does
// not stop that. This check reads the object from its bytes only (it never
// maps or runs them) and accepts what xla_aot's host compiler links
// (`ld.lld-16 -shared -z now -z noexecstack --hash-style=both`, or binutils
// ld: no crt files, no libraries) and nothing that would run code, load a
// library, or make ld.so read or write outside the object while loading it:
//
//   * the file: ELF64, little-endian, x86-64, ET_DYN, standard header sizes;
//     every table inside the file, every count bounded by the file size;
//   * program headers: types from a short list (no PT_INTERP, no PT_TLS);
//     PT_LOADs inside the file, sorted, each on pages of its own, offset and
//     address congruent modulo the page and the alignment, all below 4 GiB,
//     none writable and executable; a PT_GNU_STACK without PF_X; one
//     PT_DYNAMIC; every other segment's bytes the same at its address as at
//     its offset (ld.so reads them at the address, this check at the
//     offset), PT_GNU_RELRO on the PT_LOADs' pages;
//   * dynamic tags from a table (a tag this runtime does not know is
//     refused): no initializers or finalizers, no DT_NEEDED but libc.so.6
//     and libm.so.6, no search paths, audit libraries or filters, no text
//     relocations, no symbol version tables; no tag twice (ld.so keeps the
//     last one);
//   * the dynamic symbols (counted from DT_HASH and DT_GNU_HASH, whose
//     chains must be sound: no empty table, no loop): names inside the
//     string table, read in bounded time however many share one, no IFUNC or
//     thread-local symbol, exports limited to `allowed_exports` (and the
//     untyped end markers _end, _edata, __bss_start that gold exports);
//   * relocations: DT_RELA and DT_JMPREL only, of types NONE, 64, GLOB_DAT,
//     JUMP_SLOT and RELATIVE (DT_RELACOUNT's first entries RELATIVE), each
//     against a symbol of the table and writing inside a writable PT_LOAD;
//   * section headers, when present: inside the file, and no .init, .fini,
//     .init_array, .fini_array, .preinit_array, .ctors or .dtors.
//
// It does not judge the kernels' code: a hostile kernel still runs when the
// artifact executes it (docs/reliability.md).
//
// Thread-safety: a pure function of its arguments.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_OBJECT_CHECK_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_OBJECT_CHECK_H_

#include <functional>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace stream_executor::host {

struct HostObjectRules {
  // When set, every exported dynamic symbol (defined, global or weak
  // binding, default or protected visibility) must be one of these names:
  // the host symbols of the artifact's kernel table; or an untyped, empty
  // _end, _edata or __bss_start (GNU linkers' end markers). Null: any
  // export.
  // Not owned; must outlive the call.
  const std::set<std::string, std::less<>>* allowed_exports = nullptr;
};

// OkStatus when `bytes` is a shared object the rules above accept, else
// InvalidArgument "<what>: <finding> (<where>); <what to do>" naming the
// first refused feature, e.g. "payload.host_shared_object: has an
// initializer (DT_INIT_ARRAY, 1 entry) (dynamic entry 12); a host kernel
// module may not run code when it is loaded; recompile the artifact with
// xla_aot compile". `what` names the field the bytes came from. Reads
// `bytes` only, within bounds, in time and memory linear in its size.
absl::Status CheckHostSharedObject(absl::string_view bytes, absl::string_view what,
                                   const HostObjectRules& rules = {});

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_OBJECT_CHECK_H_
