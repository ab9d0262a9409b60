"""Small JAX attention programs for xla/aot/attention_fusion_test (f32) and
attention_fusion_16bit_test (bf16/f16; also run by tools/gpu_check.sh).

Run with a Python that has jax (e.g. /work/venv-jax/bin/python); writes
the .hlo files next to this script (or into argv[1]).
"""
import os, sys
import jax, jax.numpy as jnp, numpy as np
f32 = lambda *s: jax.ShapeDtypeStruct(s, jnp.float32)
s32 = lambda *s: jax.ShapeDtypeStruct(s, jnp.int32)
pred = lambda *s: jax.ShapeDtypeStruct(s, jnp.bool_)
bf16 = lambda *s: jax.ShapeDtypeStruct(s, jnp.bfloat16)
f16 = lambda *s: jax.ShapeDtypeStruct(s, jnp.float16)

def mha_bshd_causal(q, k, v):  # [B,S,H,D] einsums, -1e9 fill (flax style)
  s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(q.shape[-1]).astype(np.float32)
  n = q.shape[1]
  s = jnp.where(jnp.tril(jnp.ones((n, n), bool)), s, -1e9)
  return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v)

def gqa_repeat(q, k, v):  # grouped heads through jnp.repeat
  r = q.shape[2] // k.shape[2]
  k = jnp.repeat(k, r, axis=2); v = jnp.repeat(v, r, axis=2)
  s = jnp.einsum("bqhd,bkhd->bhqk", q, k) * 0.125
  s = jnp.where(jnp.tril(jnp.ones((q.shape[1],) * 2, bool)), s, -jnp.inf)
  return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v)

def key_padding(q, k, v, lengths):  # [B,S,H,D], keys past lengths[b] hidden
  s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(q.shape[-1]).astype(np.float32)
  keep = jnp.arange(k.shape[1])[None, :] < lengths[:, None]
  s = jnp.where(keep[:, None, None, :], s, -1e9)
  return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v)

def padding_causal_gqa(q, k, v, lengths):  # flax-style masks, -inf fill, jnp.repeat heads
  r = q.shape[2] // k.shape[2]
  k = jnp.repeat(k, r, axis=2); v = jnp.repeat(v, r, axis=2)
  n = q.shape[1]
  token = jnp.arange(n)[None, :] < lengths[:, None]            # [B, S]
  mask = token[:, None, :, None] & token[:, None, None, :]       # make_attention_mask
  mask = mask & jnp.tril(jnp.ones((n, n), bool))[None, None]     # combine_masks
  s = jnp.einsum("bqhd,bkhd->bhqk", q, k) * 0.25
  s = jnp.where(mask, s, -jnp.inf)
  return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v)

def cross_padding(q, k, v, q_len, kv_len):  # [B,H,S,D], separate lengths, finfo.min fill
  qm = jnp.arange(q.shape[2]) < q_len[:, None]
  km = jnp.arange(k.shape[2]) < kv_len[:, None]
  s = jnp.einsum("bhqd,bhkd->bhqk", q, k)
  s = jnp.where(qm[:, None, :, None] & km[:, None, None, :], s, jnp.finfo(jnp.float32).min)
  return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, -1), v)

def bool_key_mask(q, k, v, keep):  # mask[b, None, None, :] from a parameter: stays unfused
  s = jnp.einsum("bqhd,bkhd->bhqk", q, k) * 0.25
  s = jnp.where(keep[:, None, None, :], s, -1e9)
  return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v)

def query_padding(q, k, v, lengths):  # the query axis only: stays unfused
  s = jnp.einsum("bqhd,bkhd->bhqk", q, k) * 0.25
  keep = jnp.arange(q.shape[1])[None, :] < lengths[:, None]
  s = jnp.where(keep[:, None, :, None], s, -1e9)
  return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v)

def dpa(q, k, v):  # jax.nn.dot_product_attention's XLA path (5-D GQA dots)
  return jax.nn.dot_product_attention(q, k, v, is_causal=True)

def mixed_causal(q, k, v):  # bf16 dots, the softmax in f32 (softmax(s.astype(f32)).astype(bf16))
  s = jnp.einsum("bqhd,bkhd->bhqk", q, k) * jnp.asarray(1 / np.sqrt(q.shape[-1]), q.dtype)
  n = q.shape[1]
  s = jnp.where(jnp.tril(jnp.ones((n, n), bool)), s, jnp.finfo(q.dtype).min)
  p = jax.nn.softmax(s.astype(jnp.float32), -1).astype(q.dtype)
  return jnp.einsum("bhqk,bkhd->bqhd", p, v)

def mixed_gqa_repeat(q, k, v):  # bf16 with grouped heads through jnp.repeat, -inf fill
  r = q.shape[2] // k.shape[2]
  k = jnp.repeat(k, r, axis=2); v = jnp.repeat(v, r, axis=2)
  s = jnp.einsum("bqhd,bkhd->bhqk", q, k) * jnp.asarray(0.25, q.dtype)
  s = jnp.where(jnp.tril(jnp.ones((q.shape[1],) * 2, bool)), s, -jnp.inf)
  p = jax.nn.softmax(s.astype(jnp.float32), -1).astype(q.dtype)
  return jnp.einsum("bhqk,bkhd->bqhd", p, v)

def softmax16_keypad(q, k, v, lengths):  # jax.nn.softmax of bf16 scores (its sum in f32)
  s = jnp.einsum("bhqd,bhkd->bhqk", q, k) * jnp.asarray(0.25, q.dtype)
  keep = jnp.arange(k.shape[2])[None, :] < lengths[:, None]
  s = jnp.where(keep[:, None, None, :], s, -jnp.inf)
  return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, -1), v)

def dpa_plain(q, k, v):  # jax.nn.dot_product_attention, no mask (5-D dots, G = 1)
  return jax.nn.dot_product_attention(q, k, v, implementation="xla")

def dpa_causal(q, k, v):
  return jax.nn.dot_product_attention(q, k, v, is_causal=True, implementation="xla")

def dpa_mask(q, k, v, mask):  # a boolean mask parameter: stays unfused
  return jax.nn.dot_product_attention(q, k, v, mask=mask, implementation="xla")

def dpa_bias(q, k, v, bias):  # a bias that is not a mask: stays unfused
  return jax.nn.dot_product_attention(q, k, v, bias=bias, implementation="xla")

def dpa_lengths(q, k, v, q_len, kv_len):  # query and key padding from lengths (5-D GQA dots)
  return jax.nn.dot_product_attention(q, k, v, query_seq_lengths=q_len, key_value_seq_lengths=kv_len,
                                      implementation="xla")

def dpa_causal_kv_lengths(q, k, v, kv_len):  # key padding from lengths, causal
  return jax.nn.dot_product_attention(q, k, v, key_value_seq_lengths=kv_len, is_causal=True,
                                      implementation="xla")

def kv_decode(x, pos0, k_cache, v_cache, wq, wk, wv, heads=2, steps=3):
  # KV-cache decode loop without the query axis (as benchmarks/models/gen/
  # gen_broad.py's kv_decode): each step writes its key and value at
  # pos0 + i and attends over the cache up to that position.
  b, t, d = k_cache.shape
  hd = d // heads
  def body(i, state):
    x, kc, vc = state
    pos = pos0 + i
    q = (x @ wq).reshape(b, heads, hd)
    kc = jax.lax.dynamic_update_slice(kc, (x @ wk)[:, None, :], (0, pos, 0))
    vc = jax.lax.dynamic_update_slice(vc, (x @ wv)[:, None, :], (0, pos, 0))
    s = jnp.einsum("bhd,bthd->bht", q, kc.reshape(b, t, heads, hd)) * 0.25
    s = jnp.where(jnp.arange(t)[None, None, :] <= pos, s, -1e9)
    o = jnp.einsum("bht,bthd->bhd", jax.nn.softmax(s, -1), vc.reshape(b, t, heads, hd))
    return jnp.tanh(o.reshape(b, d)) + x, kc, vc
  return jax.lax.fori_loop(0, steps, body, (x, k_cache, v_cache))[0]

def f32_score_dot(q, k, v):  # bf16 q/k, f32 scores (preferred_element_type), -inf causal fill
  s = jnp.einsum("bqhd,bkhd->bhqk", q, k, preferred_element_type=jnp.float32) * 0.25
  s = jnp.where(jnp.tril(jnp.ones((q.shape[1],) * 2, bool)), s, -jnp.inf)
  return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1).astype(q.dtype), v)

def f16_fill_after_convert(q, k, v):  # f16 scores, finfo(f16).min applied in f32
  s = (jnp.einsum("bqhd,bkhd->bhqk", q, k) * jnp.asarray(0.25, q.dtype)).astype(jnp.float32)
  s = jnp.where(jnp.tril(jnp.ones((q.shape[1],) * 2, bool)), s, jnp.finfo(jnp.float16).min)
  return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1).astype(q.dtype), v)

def gqa_group_einsum(q, k, v):  # q reshaped to [B, S, K, G, D], one einsum over the group axis
  b, n, h, d = q.shape
  g = h // k.shape[2]
  qg = q.reshape(b, n, k.shape[2], g, d)
  s = jnp.einsum("bqkgd,bskd->bkgqs", qg, k) / np.sqrt(d).astype(np.float32)
  s = jnp.where(jnp.tril(jnp.ones((n, n), bool)), s, -1e9)
  o = jnp.einsum("bkgqs,bskd->bqkgd", jax.nn.softmax(s, -1), v)
  return o.reshape(b, n, h, d)

def flax_mha(x, wq, wk, wv, wo):  # flax MultiHeadDotProductAttention's math, causal, finfo.min
  q, k, v = (jnp.einsum("bsf,fhd->bshd", x, w) for w in (wq, wk, wv))
  q = q / jnp.sqrt(q.shape[-1]).astype(q.dtype)
  w = jnp.einsum("...qhd,...khd->...hqk", q, k)
  n = x.shape[1]
  w = jnp.where(jnp.tril(jnp.ones((n, n), bool))[None, None], w, jnp.finfo(w.dtype).min)
  o = jnp.einsum("...hqk,...khd->...qhd", jax.nn.softmax(w).astype(q.dtype), v)
  return jnp.einsum("bshd,hdf->bsf", o, wo)

def dropout(q, k, v):  # dropout on the probabilities: stays unfused
  s = jnp.einsum("bqhd,bkhd->bhqk", q, k) * 0.25
  p = jax.nn.softmax(s, -1)
  keep = jax.random.bernoulli(jax.random.key(0), 0.9, p.shape)
  p = jnp.where(keep, p / 0.9, 0.0)
  return jnp.einsum("bhqk,bkhd->bqhd", p, v)

# Lowered for CUDA: XLA:CPU has no F16_F16_F32 dot algorithm, so JAX
# refuses to lower jax.nn.dot_product_attention's f16 dots for the CPU.
CUDA_ONLY = {"dpa_f16_b1_s33_h2_d16"}

MODELS = {
  "mha_bshd_causal_b2_s40_h3_d16": (mha_bshd_causal, [f32(2, 40, 3, 16)] * 3),
  "gqa2_repeat_b2_s33_h4_d8": (gqa_repeat, [f32(2, 33, 4, 8), f32(2, 33, 2, 8), f32(2, 33, 2, 8)]),
  "gqa4_repeat_b1_s257_h8_d16": (gqa_repeat, [f32(1, 257, 8, 16), f32(1, 257, 2, 16), f32(1, 257, 2, 16)]),
  "dpa_gqa2_b2_s33_h4_d16": (dpa, [f32(2, 33, 4, 16), f32(2, 33, 2, 16), f32(2, 33, 2, 16)]),
  "keypad_b3_s40_h2_d16": (key_padding, [f32(3, 40, 2, 16)] * 3 + [s32(3)]),
  "padcausal_gqa2_b3_s33_h4_d8": (padding_causal_gqa,
                                  [f32(3, 33, 4, 8), f32(3, 33, 2, 8), f32(3, 33, 2, 8), s32(3)]),
  "crosspad_b3_h2_q33_kv40_d16": (cross_padding, [f32(3, 2, 33, 16), f32(3, 2, 40, 16),
                                                  f32(3, 2, 40, 16), s32(3), s32(3)]),
  "boolmask_b2_s33_h2_d16": (bool_key_mask, [f32(2, 33, 2, 16)] * 3 + [pred(2, 33)]),
  "querypad_b2_s33_h2_d16": (query_padding, [f32(2, 33, 2, 16)] * 3 + [s32(2)]),
  "mixed_bf16_causal_b2_s129_h4_d64": (mixed_causal, [bf16(2, 129, 4, 64)] * 3),
  "mixed_f16_causal_b1_s40_h2_d32": (mixed_causal, [f16(1, 40, 2, 32)] * 3),
  "softmax_bf16_keypad_b3_h2_s33_d16": (softmax16_keypad, [bf16(3, 2, 33, 16)] * 3 + [s32(3)]),
  "mixed_bf16_gqa2_repeat_b2_s40_h4_d16": (mixed_gqa_repeat, [bf16(2, 40, 4, 16), bf16(2, 40, 2, 16),
                                                              bf16(2, 40, 2, 16)]),
  "dpa_b3_s40_h2_d8": (dpa_plain, [f32(3, 40, 2, 8)] * 3),
  "dpa_decode_gqa4_b2_q1_kv40_h8_d64": (dpa_plain, [f32(2, 1, 8, 64), f32(2, 40, 2, 64), f32(2, 40, 2, 64)]),
  "dpa_causal_gqa4_b1_s33_h4_d64": (dpa_causal, [f32(1, 33, 4, 64), f32(1, 33, 1, 64), f32(1, 33, 1, 64)]),
  "dpa_mask_b2_s33_h2_d16": (dpa_mask, [f32(2, 33, 2, 16)] * 3 + [pred(2, 2, 33, 33)]),
  "dpa_bias_b2_s33_h2_d16": (dpa_bias, [f32(2, 33, 2, 16)] * 3 + [f32(2, 2, 33, 33)]),
  "gqa_einsum_b2_s40_h4_d16": (gqa_group_einsum, [f32(2, 40, 4, 16), f32(2, 40, 2, 16), f32(2, 40, 2, 16)]),
  "flax_mha_causal_b2_s33_h3_d16": (flax_mha, [f32(2, 33, 24), f32(24, 3, 16), f32(24, 3, 16),
                                               f32(24, 3, 16), f32(3, 16, 24)]),
  "dropout_b2_s33_h2_d16": (dropout, [f32(2, 33, 2, 16)] * 3),
  "dpa_bf16_causal_gqa2_b2_s40_h4_d64": (dpa_causal, [bf16(2, 40, 4, 64), bf16(2, 40, 2, 64),
                                                      bf16(2, 40, 2, 64)]),
  "dpa_f16_b1_s33_h2_d16": (dpa_plain, [f16(1, 33, 2, 16)] * 3),
  "f32_score_dot_bf16_causal_b2_s33_h2_d16": (f32_score_dot, [bf16(2, 33, 2, 16)] * 3),
  "f16_fill_after_convert_b2_s40_h2_d16": (f16_fill_after_convert, [f16(2, 40, 2, 16)] * 3),
  "kv_decode_b2_t33_h2_d16": (kv_decode, [f32(2, 32), s32(), f32(2, 33, 32), f32(2, 33, 32)]
                              + [f32(32, 32)] * 3),
  "dpa_lengths_gqa2_b3_s33_h4_d16": (dpa_lengths, [f32(3, 33, 4, 16), f32(3, 33, 2, 16),
                                                  f32(3, 33, 2, 16), s32(3), s32(3)]),
  "dpa_causal_kvlen_gqa4_b2_s40_h4_d64": (dpa_causal_kv_lengths, [f32(2, 40, 4, 64), f32(2, 40, 1, 64),
                                                                  f32(2, 40, 1, 64), s32(2)]),
  "dpa_bf16_kvlen_causal_b2_s40_h2_d64": (dpa_causal_kv_lengths, [bf16(2, 40, 2, 64)] * 3 + [s32(2)]),
}

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
only = set(sys.argv[2:])  # optional: just these models
for name, (fn, specs) in MODELS.items():
  if only and name not in only:
    continue
  traced = jax.jit(fn).trace(*specs)
  lowered = traced.lower(lowering_platforms=("cuda",)) if name in CUDA_ONLY else traced.lower()
  with open(os.path.join(out, name + ".hlo"), "w") as f:
    f.write(lowered.as_text(dialect="hlo"))
