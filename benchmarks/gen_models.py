#!/usr/bin/env python3
"""Writes the HLO text of the host-execution benchmark models.

Run by hand (needs `pip install jax jaxlib`); the build and the tests never
run it. The outputs are committed under benchmarks/models/ so that
benchmarks/host_vs_xla_cpu.sh measures the same modules on every machine.

  python3 benchmarks/gen_models.py [OUT_DIR [NAME ...]]
      (default: benchmarks/models, every model)

Every model is f32 (but the one named bf16) and takes its weights as parameters (no baked-in
constants), so XLA:CPU and xla_aot see the same HLO and the same inputs.
"""
import os
import sys

import jax
import jax.numpy as jnp


def mlp(x, w1, b1, w2, b2, w3, b3):
  h = jax.nn.gelu(x @ w1 + b1)
  h = jax.nn.gelu(h @ w2 + b2)
  return h @ w3 + b3


def softmax(x):
  return jax.nn.softmax(x, axis=-1)


def layer_norm(x, gamma, beta):
  mean = jnp.mean(x, axis=-1, keepdims=True)
  var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
  return (x - mean) * jax.lax.rsqrt(var + 1e-5) * gamma + beta


def attention(x, wq, wk, wv, wo):
  # x: [batch, seq, model]; 8 heads of 64.
  b, s, d = x.shape
  heads = 8
  hd = d // heads

  def split(t):
    return t.reshape(b, s, heads, hd).transpose(0, 2, 1, 3)

  q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
  scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(float(hd))
  probs = jax.nn.softmax(scores, axis=-1)
  out = jnp.einsum("bhqk,bhkd->bhqd", probs, v).transpose(0, 2, 1, 3)
  return out.reshape(b, s, d) @ wo


def decoder_block(x, g1, wq, wk, wv, wo, g2, w1, w2):
  # A pre-norm causal decoder block: RMS norm, 8 heads of 64 with a
  # causal mask filled with finfo(f32).min (flax's choice), a ReLU MLP.
  b, s, d = x.shape
  heads = 8
  hd = d // heads

  def rms(t, g):
    return t * jax.lax.rsqrt(jnp.mean(t * t, axis=-1, keepdims=True) + 1e-6) * g

  def split(t):
    return t.reshape(b, s, heads, hd).transpose(0, 2, 1, 3)

  h = rms(x, g1)
  q, k, v = split(h @ wq), split(h @ wk), split(h @ wv)
  scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) * (1.0 / float(hd) ** 0.5)
  causal = jnp.tril(jnp.ones((s, s), bool))
  scores = jnp.where(causal, scores, jnp.finfo(jnp.float32).min)
  probs = jax.nn.softmax(scores, axis=-1)
  out = jnp.einsum("bhqk,bhkd->bhqd", probs, v).transpose(0, 2, 1, 3)
  x = x + out.reshape(b, s, d) @ wo
  return x + jax.nn.relu(rms(x, g2) @ w1) @ w2


def decoder_block_bf16(x, g1, wq, wk, wv, wo, g2, w1, w2):
  # The causal decoder block above in bf16, as mixed-precision JAX models
  # write it: bf16 activations, weights and matmuls, the softmax in f32
  # (`softmax(s.astype(f32)).astype(bf16)`), the RMS norm's statistics in
  # f32.
  b, s, d = x.shape
  heads = 8
  hd = d // heads

  def rms(t, g):
    t32 = t.astype(jnp.float32)
    norm = t32 * jax.lax.rsqrt(jnp.mean(t32 * t32, axis=-1, keepdims=True) + 1e-6)
    return norm.astype(t.dtype) * g

  def split(t):
    return t.reshape(b, s, heads, hd).transpose(0, 2, 1, 3)

  h = rms(x, g1)
  q, k, v = split(h @ wq), split(h @ wk), split(h @ wv)
  scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) * jnp.bfloat16(1.0 / float(hd) ** 0.5)
  causal = jnp.tril(jnp.ones((s, s), bool))
  scores = jnp.where(causal, scores, jnp.finfo(jnp.bfloat16).min)
  probs = jax.nn.softmax(scores.astype(jnp.float32), axis=-1).astype(jnp.bfloat16)
  out = jnp.einsum("bhqk,bhkd->bhqd", probs, v).transpose(0, 2, 1, 3)
  x = x + out.reshape(b, s, d) @ wo
  return x + jax.nn.relu(rms(x, g2) @ w1) @ w2


def f32(*shape):
  return jax.ShapeDtypeStruct(shape, jnp.float32)


def bf16(*shape):
  return jax.ShapeDtypeStruct(shape, jnp.bfloat16)


MODELS = {
    "mlp_b256_1024": (mlp, [f32(256, 1024), f32(1024, 1024), f32(1024),
                            f32(1024, 1024), f32(1024), f32(1024, 256),
                            f32(256)]),
    "softmax_512x1023": (softmax, [f32(512, 1023)]),
    "layer_norm_512x1023": (layer_norm, [f32(512, 1023), f32(1023),
                                         f32(1023)]),
    "attention_b4_s256_d512": (attention, [f32(4, 256, 512), f32(512, 512),
                                           f32(512, 512), f32(512, 512),
                                           f32(512, 512)]),
    "decoder_causal_b2_s512_d512": (decoder_block, [f32(2, 512, 512), f32(512),
                                                    f32(512, 512), f32(512, 512),
                                                    f32(512, 512), f32(512, 512),
                                                    f32(512), f32(512, 2048),
                                                    f32(2048, 512)]),
    "decoder_causal_bf16_b2_s512_d512": (
        decoder_block_bf16, [bf16(2, 512, 512), bf16(512), bf16(512, 512),
                             bf16(512, 512), bf16(512, 512), bf16(512, 512),
                             bf16(512), bf16(512, 2048), bf16(2048, 512)]),
}


def main():
  out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
      os.path.dirname(os.path.abspath(__file__)), "models")
  os.makedirs(out_dir, exist_ok=True)
  only = sys.argv[2:]  # model names (default: all)
  for name, (fn, specs) in MODELS.items():
    if only and name not in only:
      continue
    text = jax.jit(fn).lower(*specs).compiler_ir("hlo").as_hlo_text()
    path = os.path.join(out_dir, name + ".hlo")
    with open(path, "w") as f:
      f.write(text)
    print(f"wrote {path} ({len(text)} bytes)")


if __name__ == "__main__":
  main()
