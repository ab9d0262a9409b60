/* The host kernel ABI: the stable C interface between host kernels emitted by
 * the code generator and the host platform's launcher.
 *
 * This header is part of the artifact contract (a host artifact stores a
 * shared object whose kernels follow it), so it only ever grows: never change
 * the signature or the meaning of an argument below. It is plain C so that
 * generated code and hand-written test kernels can include it.
 *
 * MODULE. A host kernel module is an ELF shared object for the machine the
 * runtime runs on (x86-64 Linux today). The runtime loads it from memory
 * (memfd_create + dlopen of /proc/self/fd/N, RTLD_NOW | RTLD_LOCAL); it must
 * not depend on libraries other than the C runtime, and may be loaded several
 * times into one process, each copy with its own globals.
 *
 * KERNEL. Every kernel is an exported function with C linkage and default
 * visibility, named by the symbol stored in the artifact:
 *
 *   extern "C" void <symbol>(void* const* buffers, int64_t num_buffers,
 *                            int64_t block_begin, int64_t block_end);
 *
 *   buffers      the device pointers (host addresses) of the launch
 *                arguments, in order; every one is aligned to 256 bytes plus
 *                the slice offset the launch asked for. Read-only array.
 *   num_buffers  how many entries `buffers` has.
 *   block_begin, block_end
 *                a half-open range [block_begin, block_end) of linear block
 *                indices, 0 <= block_begin < block_end <= total, where
 *                total = grid.x * grid.y * grid.z. The linear index of block
 *                (bx, by, bz) is bx + grid.x * (by + grid.y * bz).
 *
 * LAUNCH. One launch splits [0, total) into contiguous ranges and calls the
 * symbol once per range, concurrently on a thread pool; every block index is
 * in exactly one range. The grid's shape and the block (thread) dimensions are
 * not passed: the code generator knows them at compile time and emits the loop
 * over threads of a block inside the kernel. Shared memory is not supported on
 * the host (its limit is 0 bytes).
 *
 * RULES FOR KERNELS. Treat each block independently: no order between blocks
 * and no synchronization across blocks or ranges, and no writes that two
 * blocks share. Do not keep pointers after returning. Do not throw, call
 * exit or longjmp out. There is no way to report an error: everything a kernel
 * can get wrong must be checked by the compiler or at artifact load (argument
 * counts and buffer sizes included).
 */
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_KERNEL_ABI_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_KERNEL_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The type of every host kernel entry point. */
typedef void (*XlaHostKernelFn)(void* const* buffers, int64_t num_buffers,
                                int64_t block_begin, int64_t block_end);

/* Version of this ABI; bumped only by additions that old kernels ignore. */
#define XLA_HOST_KERNEL_ABI_VERSION 1

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* XLA_STREAM_EXECUTOR_HOST_HOST_KERNEL_ABI_H_ */
