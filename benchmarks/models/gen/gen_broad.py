#!/usr/bin/env python3
"""Writes the broad benchmark set (issue 27): small JAX programs as HLO text.

Run by hand with a Python that has jax and jaxlib (the build and the tests
never run it); the outputs are committed under benchmarks/models/broad/ so
that benchmarks/host_vs_xla_cpu.sh measures the same modules everywhere:

  python3 benchmarks/models/gen/gen_broad.py [OUT_DIR]
      (default: benchmarks/models/broad)

Each program is `jax.jit(f, keep_unused=True).lower(*specs).as_text(
dialect='hlo')`, its weights and data are parameters (no baked-in
constants), and every parameter of `f` stays a parameter of the entry
computation: the script parses what it wrote and fails when the entry's
parameters (count, shapes, element types) differ from the specs it lowered.

Inputs are not stored. benchmarks/xla_cpu_baseline.py draws them with
numpy's default_rng(seed) (seed 1 in the benchmark): floats uniform in
[-1, 1), integers in [0, 8), pred a coin, unless the program needs another
range (token ids below a vocabulary size, segment ids, lengths, or weights
in +-1/sqrt(fan_in) for the recurrences, which [-1, 1) makes chaotic); then this
script writes NAME.inputs.json beside NAME.hlo with one entry per parameter,
null for the default or {"low": L, "high": H} (integers in [L, H), floats
uniform in [L, H)). Programs that need positive floats (Newton's square
root) take |x| inside, so any draw is valid.

Sizes are chosen so that each program runs in about 0.01 to 100 ms on
XLA:CPU on two cores; the name carries the size. "Overhead-bound" programs
are tiny (launches and loop iterations dominate), others are sized to be
bandwidth-bound (element-wise, reductions, gathers) or FLOP-bound (GEMMs,
convolutions).
"""
import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

F32, BF16, F16, I32 = jnp.float32, jnp.bfloat16, jnp.float16, jnp.int32


def S(dtype, *shape):
  return jax.ShapeDtypeStruct(shape, dtype)


def f32(*shape):
  return S(F32, *shape)


def i32(*shape):
  return S(I32, *shape)


def rng_range(low, high):
  return {"low": low, "high": high}


def fan_in(n):
  # Weights drawn as initializers draw them, uniform in +-1/sqrt(fan_in):
  # recurrences (LSTM, decode loops) with weights in [-1, 1) are chaotic, and
  # two correct compilers' roundings then diverge to different outputs.
  return rng_range(-1.0 / np.sqrt(n), 1.0 / np.sqrt(n))


# ---------------------------------------------------------------- MLP, CNN

def mlp_forward(x, params):
  h = x
  for i, (w, b) in enumerate(params):
    h = h @ w + b
    if i + 1 < len(params):
      h = jax.nn.gelu(h)
  return h


def mlp_infer(x, w1, b1, w2, b2, w3, b3):
  return mlp_forward(x, [(w1, b1), (w2, b2), (w3, b3)])


def cross_entropy(logits, labels):
  logp = jax.nn.log_softmax(logits, axis=-1)
  return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=-1))


def mlp_train(x, labels, w1, b1, w2, b2, w3, b3):
  params = [(w1, b1), (w2, b2), (w3, b3)]

  def loss(p):
    return cross_entropy(mlp_forward(x, p), labels)

  value, grads = jax.value_and_grad(loss)(params)
  new = [(w - 0.01 * gw, b - 0.01 * gb) for (w, b), (gw, gb) in zip(params, grads)]
  return (value,) + tuple(t for pair in new for t in pair)


def conv(x, w):
  return lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                  dimension_numbers=("NHWC", "HWIO", "NHWC"))


def max_pool2(x):
  return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1),
                           "VALID")


def cnn_forward(x, k1, c1, k2, c2, w, b):
  h = max_pool2(jax.nn.relu(conv(x, k1) + c1))
  h = max_pool2(jax.nn.relu(conv(h, k2) + c2))
  h = jnp.mean(h, axis=(1, 2))
  return h @ w + b


def cnn_infer(x, k1, c1, k2, c2, w, b):
  return jax.nn.softmax(cnn_forward(x, k1, c1, k2, c2, w, b), axis=-1)


def cnn_train(x, labels, k1, c1, k2, c2, w, b):
  params = (k1, c1, k2, c2, w, b)

  def loss(p):
    return cross_entropy(cnn_forward(x, *p), labels)

  value, grads = jax.value_and_grad(loss)(params)
  return (value,) + tuple(p - 0.01 * g for p, g in zip(params, grads))


# ---------------------------------------------------------------- transformers

def layer_norm(x, g, b, eps=1e-5):
  mean = jnp.mean(x, axis=-1, keepdims=True)
  var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
  return (x - mean) * lax.rsqrt(var + eps) * g + b


def rms_norm(x, g, eps=1e-6):
  return x * lax.rsqrt(jnp.mean(jnp.square(x), axis=-1, keepdims=True) + eps) * g


def mha(x, wq, wk, wv, wo, heads, mask):
  b, s, d = x.shape
  hd = d // heads

  def split(t):
    return t.reshape(b, s, heads, hd).transpose(0, 2, 1, 3)

  q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
  scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(hd).astype(np.float32)
  if mask is not None:
    scores = jnp.where(mask, scores, -1e9)
  probs = jax.nn.softmax(scores, axis=-1)
  out = jnp.einsum("bhqk,bhkd->bhqd", probs, v).transpose(0, 2, 1, 3)
  return out.reshape(b, s, d) @ wo


def block(x, p, heads, mask):
  (g1, b1, wq, wk, wv, wo, g2, b2, w1, c1, w2, c2) = p
  x = x + mha(layer_norm(x, g1, b1), wq, wk, wv, wo, heads, mask)
  h = jax.nn.gelu(layer_norm(x, g2, b2) @ w1 + c1)
  return x + h @ w2 + c2


def block_specs(d, ff):
  return [f32(d), f32(d), f32(d, d), f32(d, d), f32(d, d), f32(d, d),
          f32(d), f32(d), f32(d, ff), f32(ff), f32(ff, d), f32(d)]


def padding_mask(lengths, s):
  # [b] lengths -> [b, 1, 1, s]: keys at or past the length are masked.
  return (jnp.arange(s)[None, :] < lengths[:, None])[:, None, None, :]


def causal_mask(s):
  return jnp.tril(jnp.ones((s, s), jnp.bool_))[None, None]


def encoder(x, *p):
  return block(x, p, heads=4, mask=None)


def encoder_padded(x, lengths, *p):
  return block(x, p, heads=4, mask=padding_mask(lengths, x.shape[1]))


def decoder_causal(x, *p):
  return block(x, p, heads=4, mask=causal_mask(x.shape[1]))


def decoder_train(tokens, lengths, embed, *p):
  # Next-token loss of one causal block with padding, tied embeddings; SGD.
  params = (embed,) + p
  s = tokens.shape[1]

  def loss(params):
    embed, *bp = params
    x = embed[tokens[:, :-1]]
    mask = causal_mask(s - 1) & padding_mask(lengths, s - 1)
    h = block(x, bp, heads=4, mask=mask)
    logits = h @ embed.T
    logp = jax.nn.log_softmax(logits, axis=-1)
    nll = -jnp.take_along_axis(logp, tokens[:, 1:, None], axis=-1)[..., 0]
    valid = jnp.arange(s - 1)[None, :] < (lengths[:, None] - 1)
    return jnp.sum(nll * valid) / jnp.maximum(jnp.sum(valid), 1)

  value, grads = jax.value_and_grad(loss)(params)
  return (value,) + tuple(q - 0.01 * g for q, g in zip(params, grads))


# ---------------------------------------------------------------- scans, loops

def lstm_cell(carry, x, wx, wh, b):
  h, c = carry
  z = x @ wx + h @ wh + b
  i, f, g, o = jnp.split(z, 4, axis=-1)
  c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
  h = jax.nn.sigmoid(o) * jnp.tanh(c)
  return (h, c), h


def lstm(xs, h0, c0, wx, wh, b):
  # xs: [time, batch, in]
  (h, c), hs = lax.scan(lambda carry, x: lstm_cell(carry, x, wx, wh, b), (h0, c0), xs)
  return hs, h, c


def lstm_train(xs, targets, h0, c0, wx, wh, b):
  params = (wx, wh, b)

  def loss(p):
    hs, _, _ = lstm(xs, h0, c0, *p)
    return jnp.mean(jnp.square(hs - targets))

  value, grads = jax.value_and_grad(loss)(params)
  return (value,) + tuple(p - 0.01 * g for p, g in zip(params, grads))


def kv_decode(x0, pos0, k_cache, v_cache, wq, wk, wv, wo, steps, heads):
  # Greedy-style decode of `steps` tokens through one attention layer: each
  # step writes its key and value into the cache at pos0 + i and attends
  # over the cache up to that position.
  b, t, d = k_cache.shape
  hd = d // heads

  def body(i, state):
    x, kc, vc = state
    pos = pos0 + i
    q = (x @ wq).reshape(b, heads, hd)
    kc = lax.dynamic_update_slice(kc, (x @ wk)[:, None, :], (0, pos, 0))
    vc = lax.dynamic_update_slice(vc, (x @ wv)[:, None, :], (0, pos, 0))
    k = kc.reshape(b, t, heads, hd)
    v = vc.reshape(b, t, heads, hd)
    scores = jnp.einsum("bhd,bthd->bht", q, k) / np.float32(np.sqrt(hd))
    scores = jnp.where(jnp.arange(t)[None, None, :] <= pos, scores, -1e9)
    probs = jax.nn.softmax(scores, axis=-1)
    out = jnp.einsum("bht,bthd->bhd", probs, v).reshape(b, d)
    return jnp.tanh(out @ wo + x), kc, vc

  return lax.fori_loop(0, steps, body, (x0, k_cache, v_cache))


def newton_sqrt(a):
  # y <- (y + x / y) / 2 until every element has converged: the trip count
  # depends on the data (about 6-8 for x in [0.5, 1.5)).
  x = jnp.abs(a) + 0.5

  def cond(state):
    y, it = state
    return (jnp.max(jnp.abs(y * y - x)) > 1e-6) & (it < 100)

  def body(state):
    y, it = state
    return 0.5 * (y + x / y), it + 1

  return lax.while_loop(cond, body, (x, jnp.int32(0)))


def collatz_steps(n):
  # Steps until every element reaches 1 (n in [1, 1000): up to 178 steps).
  def cond(state):
    v, _ = state
    return jnp.any(v != 1)

  def body(state):
    v, steps = state
    done = v == 1
    nv = jnp.where(v % 2 == 0, v // 2, 3 * v + 1)
    return jnp.where(done, v, nv), steps + jnp.where(done, 0, 1)

  return lax.while_loop(cond, body, (n, jnp.zeros_like(n)))


def bisect_cubic(c):
  # Per element, the real root of y^3 + y - c by bisection until the widest
  # bracket is under 1e-5 (the trip count depends on the data's range).
  lo = jnp.full_like(c, -2.0)
  hi = jnp.full_like(c, 2.0)

  def cond(state):
    lo, hi = state
    return jnp.max(hi - lo) > 1e-5

  def body(state):
    lo, hi = state
    mid = 0.5 * (lo + hi)
    f = mid * mid * mid + mid - c
    return jnp.where(f > 0, lo, mid), jnp.where(f > 0, mid, hi)

  lo, hi = lax.while_loop(cond, body, (lo, hi))
  return 0.5 * (lo + hi)


# ---------------------------------------------------------------- the set

def mixed_mlp(x, w1, b1, w2, b2, dtype):
  # f32 master weights, bf16/f16 compute, f32 accumulation and output.
  h = jnp.dot(x.astype(dtype), w1.astype(dtype), preferred_element_type=F32) + b1
  h = jax.nn.gelu(h).astype(dtype)
  return jnp.dot(h, w2.astype(dtype), preferred_element_type=F32) + b2


def reductions_small(a, b, c):
  # Many tiny reductions in one program (launch-bound).
  return (jnp.sum(a), jnp.max(a, axis=0), jnp.min(b, axis=1), jnp.mean(c, axis=(0, 2)),
          jnp.argmax(b, axis=-1), jnp.prod(jnp.tanh(a), axis=1))


def build_programs():
  P = {}

  def add(name, fn, specs, inputs=None):
    assert name not in P, name
    P[name] = (fn, specs, inputs)

  # MLPs and CNNs.
  add("mlp_infer_b8_d64", mlp_infer,
      [f32(8, 64), f32(64, 64), f32(64), f32(64, 64), f32(64), f32(64, 10), f32(10)])
  add("mlp_infer_b512_d1024", mlp_infer,
      [f32(512, 1024), f32(1024, 1024), f32(1024), f32(1024, 1024), f32(1024),
       f32(1024, 128), f32(128)])
  add("mlp_train_b128_784_256", mlp_train,
      [f32(128, 784), i32(128), f32(784, 256), f32(256), f32(256, 256), f32(256),
       f32(256, 10), f32(10)],
      [None, rng_range(0, 10)] + [None] * 6)
  add("cnn_infer_b16_32x32", cnn_infer,
      [f32(16, 32, 32, 3), f32(3, 3, 3, 32), f32(32), f32(3, 3, 32, 64), f32(64),
       f32(64, 10), f32(10)])
  add("cnn_train_b8_28x28", cnn_train,
      [f32(8, 28, 28, 1), i32(8), f32(3, 3, 1, 16), f32(16), f32(3, 3, 16, 32), f32(32),
       f32(32, 10), f32(10)],
      [None, rng_range(0, 10)] + [None] * 6)

  # Transformer blocks.
  add("encoder_b4_s128_d256", encoder, [f32(4, 128, 256)] + block_specs(256, 1024))
  add("encoder_padmask_b4_s128_d256", encoder_padded,
      [f32(4, 128, 256), i32(4)] + block_specs(256, 1024),
      [None, rng_range(1, 129)] + [None] * 12)
  add("decoder_causal_b2_s256_d256", decoder_causal, [f32(2, 256, 256)] + block_specs(256, 1024))
  add("decoder_causal_b1_s16_d64", decoder_causal, [f32(1, 16, 64)] + block_specs(64, 256))
  add("decoder_train_b4_s64_d128_v512", decoder_train,
      [i32(4, 64), i32(4), f32(512, 128)] + block_specs(128, 512),
      [rng_range(0, 512), rng_range(2, 65)] + [None] * 13)

  # RNNs / scans.
  add("lstm_scan_t64_b16_h128", lstm,
      [f32(64, 16, 64), f32(16, 128), f32(16, 128), f32(64, 512), f32(128, 512), f32(512)],
      [None, None, None, fan_in(64), fan_in(128), fan_in(128)])
  add("lstm_scan_t256_b1_h32", lstm,
      [f32(256, 1, 16), f32(1, 32), f32(1, 32), f32(16, 128), f32(32, 128), f32(128)],
      [None, None, None, fan_in(16), fan_in(32), fan_in(32)])
  add("lstm_train_t32_b8_h64", lstm_train,
      [f32(32, 8, 32), f32(32, 8, 64), f32(8, 64), f32(8, 64), f32(32, 256), f32(64, 256),
       f32(256)],
      [None, None, None, None, fan_in(32), fan_in(64), fan_in(64)])

  # KV-cache decode loops.
  add("kv_decode_steps32_b1_t128_d128",
      lambda x, p, k, v, wq, wk, wv, wo: kv_decode(x, p, k, v, wq, wk, wv, wo, 32, 4),
      [f32(1, 128), S(I32), f32(1, 128, 128), f32(1, 128, 128)] + [f32(128, 128)] * 4,
      [None] * 4 + [fan_in(128)] * 4)
  add("kv_decode_steps16_b8_t512_d512",
      lambda x, p, k, v, wq, wk, wv, wo: kv_decode(x, p, k, v, wq, wk, wv, wo, 16, 8),
      [f32(8, 512), S(I32), f32(8, 512, 512), f32(8, 512, 512)] + [f32(512, 512)] * 4,
      [None] * 4 + [fan_in(512)] * 4)

  # Cumulative ops.
  add("cumsum_rows_256x4096", lambda x: jnp.cumsum(x, axis=-1), [f32(256, 4096)])
  add("cumsum_cols_4096x256", lambda x: jnp.cumsum(x, axis=0), [f32(4096, 256)])
  add("cumsum_1d_1000", lambda x: jnp.cumsum(x), [f32(1000)])
  add("cummax_512x1024", lambda x: lax.cummax(x, axis=1), [f32(512, 1024)])
  add("logcumsumexp_128x2048", lambda x: lax.cumlogsumexp(x, axis=1), [f32(128, 2048)])

  # Sort, top-k, argsort.
  add("sort_1d_262144", jnp.sort, [f32(262144)])
  add("sort_rows_512x1024", lambda x: jnp.sort(x, axis=-1), [f32(512, 1024)])
  add("argsort_rows_256x1024", lambda x: jnp.argsort(x, axis=-1), [f32(256, 1024)])
  add("top_k_128x8192_k16", lambda x: lax.top_k(x, 16), [f32(128, 8192)])
  add("top_k_4x1000_k5", lambda x: lax.top_k(x, 5), [f32(4, 1000)])

  # Gathers and scatters.
  add("embedding_bag_b64_l32_v50000_d64",
      lambda ids, table: jnp.mean(table[ids], axis=1),
      [i32(64, 32), f32(50000, 64)], [rng_range(0, 50000), None])
  add("segment_sum_n65536_d32_s1024",
      lambda data, ids: jax.ops.segment_sum(data, ids, num_segments=1024),
      [f32(65536, 32), i32(65536)], [None, rng_range(0, 1024)])
  add("scatter_set_rows_65536x16_n4096",
      lambda x, idx, upd: x.at[idx].set(upd),
      [f32(65536, 16), i32(4096), f32(4096, 16)], [None, rng_range(0, 65536), None])

  # Mixed precision.
  add("bf16_gemm_512", lambda a, b: jnp.dot(a, b, preferred_element_type=F32),
      [S(BF16, 512, 512), S(BF16, 512, 512)])
  add("bf16_mlp_b256_d1024", lambda x, w1, b1, w2, b2: mixed_mlp(x, w1, b1, w2, b2, BF16),
      [f32(256, 1024), f32(1024, 1024), f32(1024), f32(1024, 1024), f32(1024)])
  add("f16_mlp_b256_d512", lambda x, w1, b1, w2, b2: mixed_mlp(x, w1, b1, w2, b2, F16),
      [f32(256, 512), f32(512, 512), f32(512), f32(512, 512), f32(512)])

  # Normalization layers.
  add("rms_norm_2048x1024", rms_norm, [f32(2048, 1024), f32(1024)])
  add("layer_norm_16x64", layer_norm, [f32(16, 64), f32(64), f32(64)])
  add("layer_norm_bf16_1024x768",
      lambda x, g, b: layer_norm(x.astype(F32), g, b).astype(BF16),
      [S(BF16, 1024, 768), f32(768), f32(768)])

  # Small-bodied while loops with data-dependent trip counts.
  add("newton_sqrt_while_16", newton_sqrt, [f32(16)])
  add("newton_sqrt_while_262144", newton_sqrt, [f32(262144)])
  add("collatz_while_256", collatz_steps, [i32(256)], [rng_range(1, 1000)])
  add("bisect_while_4096", bisect_cubic, [f32(4096)])

  # Reductions of every shape.
  add("reduce_sum_all_1024x1024", jnp.sum, [f32(1024, 1024)])
  add("reduce_rows_4096x512", lambda x: jnp.sum(x, axis=1), [f32(4096, 512)])
  add("reduce_cols_512x4096", lambda x: jnp.sum(x, axis=0), [f32(512, 4096)])
  add("reduce_middle_64x256x64", lambda x: jnp.max(x, axis=1), [f32(64, 256, 64)])
  add("reduce_outer_inner_32x64x128", lambda x: jnp.mean(x, axis=(0, 2)), [f32(32, 64, 128)])
  add("argmax_rows_1024x1000", lambda x: jnp.argmax(x, axis=-1), [f32(1024, 1000)])
  add("reductions_small_mixed", reductions_small, [f32(8, 16), f32(4, 32), f32(2, 8, 4)])

  # Cross-entropy.
  add("cross_entropy_b256_v32000", cross_entropy, [f32(256, 32000), i32(256)],
      [None, rng_range(0, 32000)])
  add("cross_entropy_grad_b64_v1000",
      lambda logits, labels: jax.value_and_grad(cross_entropy)(logits, labels),
      [f32(64, 1000), i32(64)], [None, rng_range(0, 1000)])
  return P


# ---------------------------------------------------------------- checks, output

def check_entry(name, text, specs):
  """Fails unless the entry computation's parameters are exactly `specs`."""
  from jax._src.lib import xla_client as xc
  module = xc.hlo.hlo_module_from_text(text)
  shapes = xc.XlaComputation(module.as_serialized_hlo_module_proto()).program_shape()
  params = shapes.parameter_shapes()
  if len(params) != len(specs):
    raise SystemExit(f"{name}: the entry takes {len(params)} parameters, "
                     f"the function {len(specs)} (did jax drop an unused one?)")
  for i, (p, s) in enumerate(zip(params, specs)):
    got = (tuple(p.dimensions()), np.dtype(p.numpy_dtype()))
    want = (tuple(s.shape), np.dtype(s.dtype))
    if got != want:
      raise SystemExit(f"{name}: parameter {i} is {got}, the spec says {want}")


def main():
  out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
      os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "broad")
  os.makedirs(out_dir, exist_ok=True)
  programs = build_programs()
  total = 0
  for name, (fn, specs, inputs) in programs.items():
    text = jax.jit(fn, keep_unused=True).lower(*specs).as_text(dialect="hlo")
    check_entry(name, text, specs)
    path = os.path.join(out_dir, name + ".hlo")
    with open(path, "w") as f:
      f.write(text)
    spec_path = os.path.join(out_dir, name + ".inputs.json")
    if inputs is not None:
      if len(inputs) != len(specs):
        raise SystemExit(f"{name}: {len(inputs)} input ranges for {len(specs)} parameters")
      with open(spec_path, "w") as f:
        json.dump({"params": inputs}, f)
        f.write("\n")
    elif os.path.exists(spec_path):
      os.remove(spec_path)
    total += len(text)
    print(f"{name}: {len(specs)} parameters, {len(text)} bytes")
  stale = sorted(set(os.path.splitext(f)[0] for f in os.listdir(out_dir)
                     if f.endswith(".hlo")) - set(programs))
  if stale:
    raise SystemExit(f"{out_dir} holds programs this script no longer writes: {stale}")
  print(f"{len(programs)} programs, {total} bytes of HLO in {out_dir}")


if __name__ == "__main__":
  main()
