"""Small JAX programs on complex numbers (c64 and c128) for
tests/e2e:complex_ops_test: sort, argsort, cumulative sums and products,
reduce-window, scatter (.at[].add/.set/.mul), segment_sum, gather,
reductions (max and min in JAX's complex order too) and complex-only
ops inside them. Odd sizes throughout.

Run with a Python that has jax (e.g. /work/venv-jax/bin/python); writes
NAME_c64.hlo and NAME_c128.hlo next to this script (or into argv[1]). The
product's build and tests never run this script; they read its output.
"""
import os, sys
import jax
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp
from jax import lax

def sort_1d(x):  # lexicographic: real part, then imaginary part
  return jnp.sort(x)

def sort_axis0(x):
  return jnp.sort(x, axis=0)

def argsort(x):
  return jnp.argsort(x, axis=-1)

def lax_sort_multi(x, y, k):  # three operands, two keys (x, then k)
  return lax.sort((x, k, y), dimension=1, num_keys=2)

def cumsum(x):
  return jnp.cumsum(x, axis=1)

def cumprod(x):
  return jnp.cumprod(x, axis=0)

def reduce_window_add(x):  # 2-D window, strides and padding
  return lax.reduce_window(x, jnp.zeros((), x.dtype), lax.add, (3, 2), (2, 1),
                           ((1, 2), (0, 1)))

def scatter_add(x, i, v):
  return x.at[i].add(v)

def scatter_set(x, i, v):
  return x.at[i].set(v)

def scatter_mul(x, i, v):
  return x.at[i].mul(v)

def segment_sum(x, seg):
  return jax.ops.segment_sum(x, seg, num_segments=7)

def gather_rows(x, i):
  return x[i]

def sum_prod(x):
  return jnp.sum(x, axis=(0, 2)), jnp.prod(x, axis=1)

def abs_angle_conj(x):
  return (jnp.sum(jnp.abs(x), axis=0), jnp.max(jnp.angle(x), axis=1),
          jnp.sum(jnp.conj(x) * x, axis=1))

def max_min_cummax(x):  # JAX's complex max/min: selects on (re, im) compares
  return jnp.max(x, axis=0), jnp.min(x, axis=1), lax.cummax(x, axis=0)

def elementwise(x):  # the complex functions XLA has opcodes for, in sums
  return (jnp.sum(jnp.tan(x) + jnp.sinh(x), axis=1), jnp.cosh(x) * jnp.expm1(x),
          jnp.log1p(x))

def select_compare(x, y):
  return jnp.where(x == y, x, y * 2), x != y

C = "complex"  # the program's complex type: c64, then c128

PROGRAMS = {
    # name: (function, [(dtype or C, shape), ...])
    "sort_1d": (sort_1d, [(C, (257,))]),
    "sort_axis0": (sort_axis0, [(C, (33, 5))]),
    "argsort": (argsort, [(C, (5, 33))]),
    "lax_sort_multi": (lax_sort_multi, [(C, (3, 17)), (C, (3, 17)), (jnp.int32, (3, 17))]),
    "cumsum": (cumsum, [(C, (5, 37))]),
    "cumprod": (cumprod, [(C, (13, 3))]),
    "reduce_window_add": (reduce_window_add, [(C, (9, 7))]),
    "scatter_add": (scatter_add, [(C, (11, 5)), (jnp.int32, (6,)), (C, (6, 5))]),
    "scatter_set": (scatter_set, [(C, (11, 5)), (jnp.int32, (6,)), (C, (6, 5))]),
    "scatter_mul": (scatter_mul, [(C, (11, 5)), (jnp.int32, (6,)), (C, (6, 5))]),
    "segment_sum": (segment_sum, [(C, (19, 3)), (jnp.int32, (19,))]),
    "gather_rows": (gather_rows, [(C, (11, 5)), (jnp.int32, (7,))]),
    "sum_prod": (sum_prod, [(C, (3, 5, 7))]),
    "abs_angle_conj": (abs_angle_conj, [(C, (9, 5))]),
    "max_min_cummax": (max_min_cummax, [(C, (9, 5))]),
    "elementwise": (elementwise, [(C, (9, 5))]),
    "select_compare": (select_compare, [(C, (7, 3)), (C, (7, 3))]),
}

def main():
  out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
  for name, (fn, args) in PROGRAMS.items():
    for suffix, dtype in (("c64", jnp.complex64), ("c128", jnp.complex128)):
      specs = [jax.ShapeDtypeStruct(shape, dtype if t is C else t) for t, shape in args]
      text = jax.jit(fn).lower(*specs).as_text(dialect="hlo")
      with open(os.path.join(out, f"{name}_{suffix}.hlo"), "w") as f:
        f.write(text)

if __name__ == "__main__":
  main()
