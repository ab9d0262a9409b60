#!/usr/bin/env python3
"""Times an HLO module on XLA:CPU or XLA:GPU (through jaxlib) and saves its inputs and outputs.

The baseline half of benchmarks/host_vs_xla_cpu.sh. Run by hand; needs
`pip install jax jaxlib`. Nothing in the build or the tests imports it.

  python3 benchmarks/xla_cpu_baseline.py MODULE.hlo --out_dir=DIR
      [--iterations=20] [--warmup=3] [--seed=1] [--platform=cpu|gpu]
  python3 benchmarks/xla_cpu_baseline.py --compare DIR_A DIR_B

The first form draws inputs with numpy's default_rng(seed): floats (f32,
f16, bf16, ...) uniformly in [-1, 1), integers in [0, 8), pred a coin; when
MODULE.inputs.json sits beside MODULE.hlo (as benchmarks/models/gen/
gen_broad.py writes them), its {"params": [...]} list gives per parameter
null (that default) or {"low": L, "high": H} (integers in [L, H), floats
uniform in [L, H)). It writes them to DIR/input_<i>.npy, compiles the module with XLA:CPU, runs it
`warmup` times, then `iterations` timed runs (each waits for the result),
writes the outputs to DIR/xla_cpu/out<i>.npy and prints one line:
  xla_cpu MODULE median_ms=... min_ms=... max_ms=... compile_s=...
With --platform=gpu it does the same on the first GPU that jax sees (the
baseline of tools/gpu_check.sh): outputs go to DIR/xla_gpu/ and the line
starts with xla_gpu.
With --compile_only it only compiles and prints
  xla_cpu MODULE compile_s=...
(benchmarks/corpus_compile.sh's baseline; --out_dir is then not needed).
The second form compares out<i>.npy files of two directories and prints
the largest absolute difference and the largest difference over the
output's largest magnitude (max_norm), over the elements that are not NaN
on either side, and how many of the baseline's elements are NaN; a NaN on
one side only makes both figures inf; and, over integer and pred outputs,
how many elements differ (int_mismatches). It exits 1 when a file is missing or
a shape differs.
"""
import argparse
import glob
import json
import os
import statistics
import sys
import time

import numpy as np


def is_float(dtype):
  # bfloat16 and the fp8 types are numpy extension types (kind 'V'), not
  # subtypes of np.floating.
  if np.issubdtype(dtype, np.floating):
    return True
  try:
    import ml_dtypes
    ml_dtypes.finfo(dtype)
    return True
  except (ImportError, ValueError, TypeError):
    return False


def input_ranges(module_path, count):
  """Per-parameter {"low", "high"} (or None) from MODULE.inputs.json, if any."""
  path = os.path.splitext(module_path)[0] + ".inputs.json"
  if not os.path.exists(path):
    return [None] * count
  with open(path) as f:
    ranges = json.load(f)["params"]
  if len(ranges) != count:
    raise SystemExit(f"{path}: {len(ranges)} entries for {count} parameters")
  return ranges


def npy_travel(x):
  """As xla_aot's .npy files hold them: bf16 and fp8 (not numpy types) as f32."""
  if x.dtype.kind == "V" and is_float(x.dtype):
    return x.astype(np.float32)
  return x


def draw_inputs(program_shape, seed, ranges=None):
  rng = np.random.default_rng(seed)
  inputs = []
  shapes = program_shape.parameter_shapes()
  for shape, r in zip(shapes, ranges or [None] * len(shapes)):
    dtype = np.dtype(shape.numpy_dtype())
    dims = shape.dimensions()
    if is_float(dtype):
      low, high = (r["low"], r["high"]) if r else (-1.0, 1.0)
      inputs.append(rng.uniform(low, high, size=dims).astype(dtype))
    elif np.issubdtype(dtype, np.complexfloating):  # both parts in [low, high)
      low, high = (r["low"], r["high"]) if r else (-1.0, 1.0)
      parts = rng.uniform(low, high, size=(2,) + tuple(dims))
      inputs.append((parts[0] + 1j * parts[1]).astype(dtype))
    elif dtype == np.bool_:
      inputs.append(rng.integers(0, 2, size=dims).astype(dtype))
    else:
      low, high = (r["low"], r["high"]) if r else (0, 8)
      inputs.append(rng.integers(low, high, size=dims).astype(dtype))
  return inputs


def flatten(result):
  if isinstance(result, (list, tuple)):
    out = []
    for r in result:
      out.extend(flatten(r))
    return out
  return [result]


def run_baseline(args):
  import jax
  from jax._src.lib import _jax
  from jax._src.lib import xla_client as xc

  # The program's own types decide: without x64, device_put would narrow
  # f64/c128/s64 inputs to 32 bits and the executable would refuse them.
  jax.config.update("jax_enable_x64", True)

  with open(args.module) as f:
    text = f.read()
  module = xc.hlo.hlo_module_from_text(text)
  stablehlo = _jax.mlir.hlo_to_stablehlo(
      module.as_serialized_hlo_module_proto())
  device = jax.devices(args.platform)[0]
  client = device.client
  t0 = time.perf_counter()
  exe = client.compile_and_load(stablehlo, xc.DeviceList((device,)),
                                xc.CompileOptions())
  compile_s = time.perf_counter() - t0
  if args.compile_only:
    print(f"xla_{args.platform} {os.path.basename(args.module)} compile_s={compile_s:.3f}")
    return

  computation = xc.XlaComputation(module.as_serialized_hlo_module_proto())
  program_shape = computation.program_shape()
  inputs = draw_inputs(program_shape, args.seed,
                       input_ranges(args.module, len(program_shape.parameter_shapes())))
  out_dir = os.path.join(args.out_dir, f"xla_{args.platform}")
  os.makedirs(out_dir, exist_ok=True)
  for i, x in enumerate(inputs):
    np.save(os.path.join(args.out_dir, f"input_{i}.npy"), npy_travel(x))
  # Fresh device buffers per run, outside the timed region: modules that
  # donate their parameters (input_output_alias) consume them.
  def fresh():
    return [jax.device_put(x, device) for x in inputs]

  def once(args):
    outs = flatten(exe.execute(args))
    for o in outs:
      o.block_until_ready()
    return outs

  for _ in range(args.warmup):
    once(fresh())
  times = []
  for _ in range(args.iterations):
    run_args = fresh()
    for a in run_args:
      a.block_until_ready()
    t = time.perf_counter()
    outs = once(run_args)
    times.append((time.perf_counter() - t) * 1e3)
  for i, o in enumerate(outs):
    np.save(os.path.join(out_dir, f"out{i}.npy"), npy_travel(np.asarray(o)))
  name = os.path.basename(args.module)
  print(f"xla_{args.platform} {name} median_ms={statistics.median(times):.3f} "
        f"min_ms={min(times):.3f} max_ms={max(times):.3f} "
        f"compile_s={compile_s:.3f}")


def compare(dir_a, dir_b):
  files = sorted(glob.glob(os.path.join(dir_a, "out*.npy")))
  if not files:
    print(f"compare: no out*.npy in {dir_a}", file=sys.stderr)
    return 1
  worst_abs = worst_norm = 0.0
  nans = nan_mismatch = int_mismatch = 0
  for fa in files:
    fb = os.path.join(dir_b, os.path.basename(fa))
    if not os.path.exists(fb):
      print(f"compare: {fb} is missing", file=sys.stderr)
      return 1
    a, b = np.load(fa), np.load(fb)
    if a.shape != b.shape:
      print(f"compare: {os.path.basename(fa)}: shape {a.shape} vs {b.shape}",
            file=sys.stderr)
      return 1
    if np.issubdtype(b.dtype, np.integer) or b.dtype == np.bool_:
      int_mismatch += int(np.count_nonzero(a != b))
    if np.iscomplexobj(a) or np.iscomplexobj(b):  # both parts compared
      a, b = np.stack([a.real, a.imag]), np.stack([b.real, b.imag])
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    # NaN where the baseline has NaN agrees; NaN on one side only is an
    # infinite difference (np.max would otherwise hide NaNs in the figure).
    a_nan, b_nan = np.isnan(a64), np.isnan(b64)
    nans += int(np.count_nonzero(b_nan))
    if np.any(a_nan != b_nan):
      nan_mismatch += int(np.count_nonzero(a_nan != b_nan))
    both = ~(a_nan | b_nan)
    diff = float(np.max(np.abs(a64[both] - b64[both]), initial=0.0))
    scale = float(np.max(np.abs(b64[both]), initial=0.0))
    worst_abs = max(worst_abs, diff)
    # Normalized by the output's largest magnitude: near-zero elements of a
    # sum do not blow the figure up (the same idea as `xla_aot run
    # --reference`).
    worst_norm = max(worst_norm, diff / scale if scale > 0 else diff)
  if nan_mismatch:
    worst_abs = worst_norm = float("inf")
  print(f"compare outputs={len(files)} max_abs={worst_abs:.3g} "
        f"max_norm={worst_norm:.3g} nan_in_baseline={nans} "
        f"nan_mismatches={nan_mismatch} int_mismatches={int_mismatch}")
  return 0


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("module", nargs="?")
  parser.add_argument("--out_dir")
  parser.add_argument("--iterations", type=int, default=20)
  parser.add_argument("--warmup", type=int, default=3)
  parser.add_argument("--seed", type=int, default=1)
  parser.add_argument("--platform", choices=("cpu", "gpu"), default="cpu")
  parser.add_argument("--compare", nargs=2, metavar=("DIR_A", "DIR_B"))
  parser.add_argument("--compile_only", action="store_true",
                      help="only compile, print `xla_cpu MODULE compile_s=...`")
  args = parser.parse_args()
  if args.compare:
    return compare(*args.compare)
  if not args.module or not (args.out_dir or args.compile_only):
    parser.error("MODULE and --out_dir are required (or --compare A B)")
  run_baseline(args)
  return 0


if __name__ == "__main__":
  sys.exit(main())
