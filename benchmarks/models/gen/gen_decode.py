#!/usr/bin/env python3
"""Writes the KV-cache decode programs of issue 26 (decode26) as HLO text.

Run by hand with a Python that has jax and jaxlib (the build and the tests
never run it); the outputs are committed under benchmarks/models/ beside
the other tuned models, so that benchmarks/host_vs_xla_cpu.sh measures the
same modules everywhere:

  python3 benchmarks/models/gen/gen_decode.py [OUT_DIR]
      (default: benchmarks/models)

Each program is an attention-only decode loop (no projections: the weights
of a full layer would hide the attention's time): `steps` iterations of
`lax.fori_loop`, each writing one new key and value into the caches at
pos0 + i (dynamic_update_slice), attending with its queries over the cache
up to that position (`jnp.where(arange(T) <= pos, s, -1e9)`, grouped-query
heads through `jnp.repeat`, softmax in f32), and feeding
tanh(output + q0) back as the next queries. The start position is drawn
in [T - 96, T - steps] (NAME.inputs.json), so the caches are nearly full.

As gen_broad.py does: `jax.jit(f, keep_unused=True).lower(*specs)
.as_text(dialect='hlo')`, with the entry's parameters checked against the
specs.
"""
import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_broad import S, check_entry, f32, rng_range  # noqa: E402

I32 = jnp.int32


def gqa_decode(q0, pos0, k_cache, v_cache, k_new, v_new, heads, steps):
  # q0 [B, H, D]; caches [B, T, Hkv, D]; k_new, v_new [steps, B, 1, Hkv,
  # D]: the key and value each step appends.
  b, t, kv_heads, d = k_cache.shape
  repeat = heads // kv_heads

  def body(i, state):
    q, kc, vc = state
    pos = pos0 + i
    kc = lax.dynamic_update_slice(kc, k_new[i], (0, pos, 0, 0))
    vc = lax.dynamic_update_slice(vc, v_new[i], (0, pos, 0, 0))
    k = jnp.repeat(kc, repeat, axis=2)
    v = jnp.repeat(vc, repeat, axis=2)
    s = jnp.einsum("bhd,bthd->bht", q, k) / np.float32(np.sqrt(d))
    s = jnp.where(jnp.arange(t)[None, None, :] <= pos, s, -1e9)
    o = jnp.einsum("bht,bthd->bhd", jax.nn.softmax(s, axis=-1), v)
    return jnp.tanh(o + q0), kc, vc

  return lax.fori_loop(0, steps, body, (q0, k_cache, v_cache))


def programs():
  P = {}

  def add(name, b, t, heads, kv_heads, d, steps):
    fn = lambda q0, pos0, kc, vc, kn, vn: gqa_decode(q0, pos0, kc, vc, kn, vn, heads, steps)
    specs = [f32(b, heads, d), S(I32), f32(b, t, kv_heads, d), f32(b, t, kv_heads, d),
             f32(steps, b, 1, kv_heads, d), f32(steps, b, 1, kv_heads, d)]
    inputs = [None, rng_range(t - 96, t - steps + 1), None, None, None, None]
    P[name] = (fn, specs, inputs)

  add("kv_decode_gqa4_steps16_b1_t1024_h8_d128", 1, 1024, 8, 2, 128, 16)
  add("kv_decode_gqa4_steps16_b4_t1024_h8_d128", 4, 1024, 8, 2, 128, 16)
  return P


def main():
  out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
      os.path.dirname(os.path.abspath(__file__)))
  for name, (fn, specs, inputs) in programs().items():
    text = jax.jit(fn, keep_unused=True).lower(*specs).as_text(dialect="hlo")
    check_entry(name, text, specs)
    with open(os.path.join(out_dir, name + ".hlo"), "w") as f:
      f.write(text)
    with open(os.path.join(out_dir, name + ".inputs.json"), "w") as f:
      json.dump({"params": inputs}, f)
      f.write("\n")
    print(f"{name}: {len(specs)} parameters, {len(text)} bytes")


if __name__ == "__main__":
  main()
