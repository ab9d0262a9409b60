"""Small JAX attention programs for xla/aot/attention_fusion_test (f32)."""
import os, sys
import jax, jax.numpy as jnp, numpy as np
f32 = lambda *s: jax.ShapeDtypeStruct(s, jnp.float32)

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

def dpa(q, k, v):  # jax.nn.dot_product_attention's XLA path (5-D GQA dots)
  return jax.nn.dot_product_attention(q, k, v, is_causal=True)

MODELS = {
  "mha_bshd_causal_b2_s40_h3_d16": (mha_bshd_causal, [f32(2, 40, 3, 16)] * 3),
  "gqa2_repeat_b2_s33_h4_d8": (gqa_repeat, [f32(2, 33, 4, 8), f32(2, 33, 2, 8), f32(2, 33, 2, 8)]),
  "gqa4_repeat_b1_s257_h8_d16": (gqa_repeat, [f32(1, 257, 8, 16), f32(1, 257, 2, 16), f32(1, 257, 2, 16)]),
  "dpa_gqa2_b2_s33_h4_d16": (dpa, [f32(2, 33, 4, 16), f32(2, 33, 2, 16), f32(2, 33, 2, 16)]),
}

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
for name, (fn, specs) in MODELS.items():
  with open(os.path.join(out, name + ".hlo"), "w") as f:
    f.write(jax.jit(fn).lower(*specs).compiler_ir("hlo").as_hlo_text())
