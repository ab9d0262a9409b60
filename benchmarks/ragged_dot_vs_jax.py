"""The issue-28 ragged-dot benchmark's baseline on XLA:CPU, through JAX.

XLA:CPU does not compile the `ragged-dot` HLO opcode itself (jaxlib 0.10.2:
"HLO opcode `ragged-dot` is not supported by XLA:CPU ThunkEmitter"); JAX
expands `jax.lax.ragged_dot` before XLA sees it. This times that expansion
on the shapes of benchmarks/models/issue28/ragged_dot_e8_t4096_k256_n256.hlo
(4096 tokens of width 256, 8 experts of 256 x 256, 512 tokens each), and the
same work as one dense batched dot (the lower bound when the groups are
equal). Compare with `xla_aot bench` on the compiled module (docs/perf.md).

  /path/to/venv-with-jax/bin/python benchmarks/ragged_dot_vs_jax.py [--runs=N]
"""
import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np


def median_ms(f, args, runs):
  f(*args).block_until_ready()
  times = []
  for _ in range(runs):
    t = time.perf_counter()
    f(*args).block_until_ready()
    times.append((time.perf_counter() - t) * 1e3)
  return sorted(times)[len(times) // 2]


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument("--runs", type=int, default=5)
  args = parser.parse_args()
  jax.config.update("jax_platforms", "cpu")
  rng = np.random.default_rng(1)
  x = jnp.asarray(rng.uniform(-1, 1, (4096, 256)).astype(np.float32))
  w = jnp.asarray(rng.uniform(-1, 1, (8, 256, 256)).astype(np.float32))
  g = jnp.full((8,), 512, jnp.int32)
  ragged = jax.jit(jax.lax.ragged_dot)
  dense = jax.jit(lambda a, b: jnp.einsum("gtk,gkn->gtn", a.reshape(8, 512, 256), b))
  print(f"jax {jax.__version__}; XLA:CPU")
  print(f"jax.lax.ragged_dot: median {median_ms(ragged, (x, w, g), args.runs):.1f} ms")
  print(f"dense batched dot (equal groups): median {median_ms(dense, (x, w), args.runs):.1f} ms")


if __name__ == "__main__":
  main()
