#!/usr/bin/env python3
"""Writes the host FFT benchmark set (issue 28): jnp.fft programs as HLO text.

Run by hand with a Python that has jax and jaxlib (the build and the tests
never run it); the outputs are committed under benchmarks/models/fft/ so
that benchmarks/host_vs_xla_cpu.sh (with COMPILE_FLAGS=--emit_fft) times
the same modules everywhere:

  python3 benchmarks/models/gen/gen_fft.py [OUT_DIR]
      (default: benchmarks/models/fft)
  python3 benchmarks/models/gen/gen_fft.py --time [ITERATIONS] [NAME ...]
      (XLA:CPU's median and min per program, inputs drawn in memory: no
      files, for a disk too full for host_vs_xla_cpu.sh's .npy files)

Each program is one jnp.fft call on one parameter, lowered with
`jax.jit(f).lower(spec).as_text(dialect='hlo')`. The shapes are the ones a
user runs: power-of-two, small-factor, prime and long lengths, 2-D
transforms and one double-precision case. Inputs are drawn by
benchmarks/xla_cpu_baseline.py (uniform in [-1, 1) for both parts).
"""
import os
import sys
import time

import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)

# name -> (function, shape, dtype)
PROGRAMS = {
    "irfft_c64_1024x2049": (lambda a: jnp.fft.irfft(a, n=4096, axis=-1), (1024, 2049), jnp.complex64),
    "fft_c64_1024x1000": (lambda a: jnp.fft.fft(a, axis=-1), (1024, 1000), jnp.complex64),
    "fft_c64_512x3072": (lambda a: jnp.fft.fft(a, axis=-1), (512, 3072), jnp.complex64),
    "fft_c64_256x1009": (lambda a: jnp.fft.fft(a, axis=-1), (256, 1009), jnp.complex64),
    "fft_c64_64x32768": (lambda a: jnp.fft.fft(a, axis=-1), (64, 32768), jnp.complex64),
    # One long line (batch 1, 2^20 points: a four-step of 1024 x 1024).
    "fft_c64_1x1048576": (lambda a: jnp.fft.fft(a, axis=-1), (1, 1048576), jnp.complex64),
    "fft2_c64_8x384x384": (lambda a: jnp.fft.fft2(a), (8, 384, 384), jnp.complex64),
    "rfft2_f32_16x256x256": (lambda a: jnp.fft.rfft2(a), (16, 256, 256), jnp.float32),
    "irfft_c128_1024x2049": (lambda a: jnp.fft.irfft(a, n=4096, axis=-1), (1024, 2049), jnp.complex128),
}


def time_programs(iterations, names):
    """Prints XLA:CPU's median and min (ms) of each program (3 warm-up calls)."""
    import numpy as np
    rng = np.random.default_rng(1)
    for name in names or PROGRAMS:
        f, shape, dtype = PROGRAMS[name]
        if jnp.issubdtype(dtype, jnp.complexfloating):
            x = rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)
        else:
            x = rng.uniform(-1, 1, shape)
        a = jax.device_put(x.astype(dtype))
        g = jax.jit(f)
        for _ in range(3):
            g(a).block_until_ready()
        ms = []
        for _ in range(iterations):
            t0 = time.perf_counter()
            g(a).block_until_ready()
            ms.append((time.perf_counter() - t0) * 1e3)
        print(f"{name} median_ms={np.median(ms):.2f} min_ms={min(ms):.2f}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--time":
        iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 10
        time_programs(iterations, sys.argv[3:])
        return
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "fft")
    os.makedirs(out, exist_ok=True)
    for name, (f, shape, dtype) in PROGRAMS.items():
        text = jax.jit(f).lower(jax.ShapeDtypeStruct(shape, dtype)).as_text(dialect="hlo")
        if " fft(" not in text:
            raise SystemExit(f"{name}: the lowered module has no fft instruction")
        with open(os.path.join(out, name + ".hlo"), "w") as fh:
            fh.write(text)
        print(name)


if __name__ == "__main__":
    main()
