// The host forward of fused attention for short query blocks: KV-cache
// decode steps (one query row per head) and small speculative-decoding
// blocks (up to kTeDecodeMaxQueries rows per head).
//
// The tiled forward (te_fused_attention_host.cc) is built for long query
// blocks: it packs K and V into zero-padded f32 tiles (a pass over the
// whole cache), computes 16-row tiles of which a decode step fills one
// row, and splits the work by (batch, head). Here, instead, one work unit
// is one (batch, key/value head) and up to kTeDecodeRows query rows of
// it: every query head of a GQA group and every query position, so the
// group shares one pass over its keys and values (split into key chunks
// on the pool when there are fewer units than threads: one sequence with
// few kv heads), which are read where
// they lie (f32 rows of a multiple of 16 lanes in place, others converted
// a row at a time into a buffer on the stack). Per key block of 64, the
// scores of every row (the head dim in vector lanes), the online-softmax
// step, then P.V. No heap allocation (partial states of split units are on
// the calling thread's stack); the units run on the calling thread when
// the whole call is small (kTeDecodeInlineMacs), else on the pool.
//
// Numerics are the tiled forward's: f32 accumulation, scores scaled
// through Q, the same exp, hidden keys weigh exactly 0 and are never read
// for rows that do not see them; a row that sees no key gets output 0 and
// stats 0 (te_fused_attention.h).
//
// Thread-safety: RunTeDecodeForward may run concurrently for different
// calls; each call only writes its own output and stats.
#ifndef XLA_BACKENDS_GPU_FFI_TE_FUSED_ATTENTION_HOST_DECODE_H_
#define XLA_BACKENDS_GPU_FFI_TE_FUSED_ATTENTION_HOST_DECODE_H_

#include <cstdint>

#include "xla/backends/gpu/ffi/te_fused_attention.h"
#include "xla/stream_executor/host/host_thread_pool.h"
#include "xla/types/primitive_type.h"

namespace xla::gpu::ffi {

// The longest query block (q_max_seqlen) the decode path takes.
inline constexpr int64_t kTeDecodeMaxQueries = 8;
// The largest head dim (qk and v) the decode path takes: its per-unit
// buffers live on the stack.
inline constexpr int64_t kTeDecodeMaxHeadDim = 256;
// Query rows (heads of a group x query positions) one pass over a key/
// value head serves; a group with more rows takes several passes.
inline constexpr int64_t kTeDecodeRows = 16;
// A call of fewer multiply-adds than this runs on the calling thread
// (waking pool threads costs more than the work).
inline constexpr int64_t kTeDecodeInlineMacs = int64_t{1} << 18;
// A pool-sized call of fewer (batch, kv head, row pass) units than the
// launch shares out (one sequence with few kv heads) splits each unit's
// keys into chunks of at least this many keys, run in parallel; the
// chunks' online-softmax states (max, sum, unnormalized output) are then
// combined exactly (flash-decoding).
inline constexpr int64_t kTeDecodeMinChunkKeys = 256;
// The floats the chunks' partial states may take: they live on the
// calling thread's stack (64 KiB), which bounds the split.
inline constexpr int64_t kTeDecodePartialFloats = 16384;

// What one forward call reads and writes, in the operands' own layouts
// (the config's views) and element type. Not owned.
struct TeForwardBuffers {
  const TeAttentionConfig* config = nullptr;
  PrimitiveType type = PrimitiveType::F32;  // of Q, K, V and the output
  const void* q = nullptr;                  // the operand holding Q (view config->q)
  const void* k = nullptr;                  // ... K (view config->k)
  const void* v = nullptr;                  // ... V (view config->v)
  void* out = nullptr;                      // forward result 0 (view config->o)
  float* stats = nullptr;                   // softmax_aux, [B, H, Sq]
  const int64_t* q_len = nullptr;           // [B] queries per sequence
  const int64_t* kv_len = nullptr;          // [B] keys per sequence
};

// Whether RunTeDecodeForward computes `config`'s forward: q_max_seqlen at
// most kTeDecodeMaxQueries and both head dims at most
// kTeDecodeMaxHeadDim. Pure.
bool TeDecodeTakes(const TeAttentionConfig& config);

// Writes the output and stats of `x` (a config TeDecodeTakes accepts;
// lengths within [0, q_max_seqlen] and [0, kv_max_seqlen], as
// TeSequenceLengths checks). Runs on the calling thread, and on `pool`
// (may be null) when the call is large enough, then splitting the keys
// when it has fewer units than the launch shares out (kTeDecodeMinChunkKeys).
// Allocates nothing itself (RunHostKernel's launch state aside). Never
// fails.
void RunTeDecodeForward(const TeForwardBuffers& x, stream_executor::host::HostThreadPool* pool);

}  // namespace xla::gpu::ffi

#endif  // XLA_BACKENDS_GPU_FFI_TE_FUSED_ATTENTION_HOST_DECODE_H_
