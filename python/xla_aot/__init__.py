"""xla_aot: compile XLA HLO programs ahead of time, save, load and run them.

    import numpy as np, xla_aot
    exe = xla_aot.compile(hlo_text)                  # or a path to a .hlo file
    exe.save("model.xaot")
    exe = xla_aot.load("model.xaot")
    (y,) = exe.run(np.ones((3, 5), np.float32))

The package is a thin layer over the C++ compile API (xla/aot/compile.h), the
runtime (xla/aot/executable.h) and the reference evaluator; docs/python.md
is its manual. Errors are xla_aot.Error subclasses carrying the command
line's message. Thread-safety: compile, evaluate and Executable.run release
the GIL; one Executable may be run from many threads at once.
"""

import io
import os
from typing import NamedTuple, Tuple

import numpy as np

from . import _xla_aot
from ._errors import (Error, FailedPreconditionError, InvalidArgumentError, NotFoundError,
                      PermissionDeniedError, ResourceExhaustedError, UnimplementedError)
from ._jax import from_jax
from ._version import __version__

__all__ = [
    "Error", "Executable", "FailedPreconditionError", "InvalidArgumentError", "NotFoundError",
    "PermissionDeniedError", "ResourceExhaustedError", "TensorSpec", "UnimplementedError",
    "compile", "evaluate", "from_jax", "load", "__version__",
]

try:  # bf16, f8 and int4 arrays as their own dtypes when ml_dtypes is installed
    import ml_dtypes as _ml_dtypes
except ImportError:
    _ml_dtypes = None

# The numpy dtype each XLA element type travels as (xla/types/npy.h): bf16
# and the f8 types as float32, s4/s2/s1 as int8, u4/u2/u1 as uint8.
_NUMPY_DTYPES = {
    "pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "f16": np.float16,
    "f32": np.float32, "f64": np.float64, "c64": np.complex64, "c128": np.complex128,
}

# XLA element types ml_dtypes has a dtype for.
_ML_DTYPE_NAMES = {
    "bf16": "bfloat16", "f8e4m3fn": "float8_e4m3fn", "f8e5m2": "float8_e5m2",
    "f8e4m3fnuz": "float8_e4m3fnuz", "f8e5m2fnuz": "float8_e5m2fnuz",
    "f8e4m3b11fnuz": "float8_e4m3b11fnuz", "f8e4m3": "float8_e4m3", "f8e3m4": "float8_e3m4",
    "s4": "int4", "u4": "uint4", "s2": "int2", "u2": "uint2",
}


def _ml_dtype(xla_type):
    """The ml_dtypes dtype of an XLA type, or None (no ml_dtypes, no such type)."""
    name = _ML_DTYPE_NAMES.get(xla_type)
    if _ml_dtypes is None or name is None or not hasattr(_ml_dtypes, name):
        return None
    return np.dtype(getattr(_ml_dtypes, name))


class TensorSpec(NamedTuple):
    """One parameter or result leaf.

    name: the HLO parameter's name ("out0", "out1", ... for results);
    shape: its dimensions; dtype: the XLA element type ("f32", "bf16");
    numpy_dtype: what run takes and returns for it without ml_dtypes
    (float32 for bf16 and the f8 types).
    """

    name: str
    shape: Tuple[int, ...]
    dtype: str
    numpy_dtype: np.dtype


def _spec(raw):
    name, shape, dtype, travel = raw
    return TensorSpec(name, tuple(shape), dtype, np.dtype(_NUMPY_DTYPES.get(travel, np.float32)))


def _to_npy(value):
    """.npy bytes of one argument; ml_dtypes arrays go as their travel type."""
    array = np.asarray(value)
    if _ml_dtypes is not None and array.dtype.type.__module__.startswith("ml_dtypes"):
        kind = "i" if "int" in array.dtype.name else "f"
        signed = not array.dtype.name.startswith("uint")
        array = array.astype(np.float32 if kind == "f" else (np.int8 if signed else np.uint8))
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def _from_npy(xla_type, data):
    array = np.load(io.BytesIO(data), allow_pickle=False)
    dtype = _ml_dtype(xla_type)
    return array.astype(dtype) if dtype is not None else array


def _read_hlo(hlo):
    """(text, source name) of HLO text or a path to an HLO file.

    A str holding a newline or starting with "HloModule" is HLO text; any
    other str, or an os.PathLike, is a path."""
    if isinstance(hlo, bytes):
        hlo = hlo.decode()
    if isinstance(hlo, str) and ("\n" in hlo or hlo.lstrip().startswith("HloModule")):
        return hlo, "<text>"
    if not isinstance(hlo, (str, os.PathLike)):
        raise TypeError(f"hlo must be HLO text or a path, not {type(hlo).__name__}")
    path = os.fspath(hlo)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    except FileNotFoundError:
        raise NotFoundError(f"{path}: cannot open file") from None
    except OSError as e:
        raise Error(f"{path}: {e.strerror}") from None


def _option_text(name, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


class Executable:
    """A compiled program, loaded and ready to run on its target's device 0.

    Made by xla_aot.compile and xla_aot.load. Safe to share between threads:
    run may be called from many at once (each call has its own buffers), and
    releases the GIL while the program runs.
    """

    def __init__(self, impl):
        self._impl = impl
        self._inputs = [_spec(raw) for raw in impl.inputs()]
        self._outputs = [_spec(raw) for raw in impl.outputs()]

    @property
    def inputs(self):
        """The parameters, in order: a list of TensorSpec."""
        return list(self._inputs)

    @property
    def outputs(self):
        """The result leaves (tuples flattened depth first): a list of TensorSpec."""
        return list(self._outputs)

    def run(self, *arrays):
        """Runs once on the arguments (numpy arrays or anything np.asarray
        takes, one per parameter, with its dtype and shape exactly) and
        returns a list of numpy arrays, one per result leaf.

        bf16 and f8 parameters take float32 arrays (rounded to nearest even)
        or ml_dtypes arrays; their results are float32, or ml_dtypes arrays
        when ml_dtypes is installed. Raises InvalidArgumentError (a
        ValueError) naming the parameter for a wrong count, dtype or shape,
        FailedPreconditionError when this machine cannot run the artifact.
        """
        return [_from_npy(t, data) for t, data in self._impl.run([_to_npy(a) for a in arrays])]

    def save(self, path):
        """Writes the artifact (the bytes compile made or load read) to `path`;
        `xla_aot run`, `xla_aot inspect` and the C++ runtime read it. Raises
        OSError when the file cannot be written."""
        with open(path, "wb") as f:
            f.write(self._impl.artifact_bytes())

    def artifact_bytes(self):
        """The serialized artifact, as save writes it."""
        return self._impl.artifact_bytes()

    def inspect(self):
        """What `xla_aot inspect FILE` prints: signature, header, tables,
        custom calls and the thunk tree."""
        return self._impl.inspect()

    def __repr__(self):
        ins = ", ".join(f"{s.dtype}{list(s.shape)}" for s in self._inputs)
        outs = ", ".join(f"{s.dtype}{list(s.shape)}" for s in self._outputs)
        return f"<xla_aot.Executable ({ins}) -> ({outs})>"


def compile(hlo, target="host", **options):  # pylint: disable=redefined-builtin
    """Compiles HLO (text, or a path to a .hlo file) for `target` ("host",
    "sm_80", "sm_86", "sm_89", "sm_90") and returns an Executable.

    `options` are the flags of `xla_aot compile` without their dashes:
    switches take a bool (no_fusion=True, emit_collectives=True), the others
    their value (opt_level=2, host_cpu="x86-64-v3", num_partitions=4,
    host_cpu_variants=["x86-64-v3"] or "none", target_runtime="2026-11-30",
    allow_custom_calls=["my_op"]). Output flags (-o, --dump_dir alone) have
    no meaning here; dump_dir=DIR still writes the dumps.

    Raises InvalidArgumentError for HLO that does not parse or verify (the
    message names file:line:col) and for a bad option, NotFoundError for a
    missing file, UnimplementedError for an instruction the target cannot
    compile, Error for other compiler failures. Releases the GIL while it
    compiles; compiles may run on many threads at once.
    """
    text, source = _read_hlo(hlo)
    pairs = [("target", str(target))] + [(k, _option_text(k, v)) for k, v in options.items()]
    return Executable(_xla_aot.compile(text, source, pairs))


def load(path, trusted_keys=(), unsigned="allow"):
    """Loads an artifact file (from Executable.save or `xla_aot compile`).

    The whole artifact is validated first. trusted_keys: public key files
    (NAME.pub from `xla_aot keygen`) whose signatures to accept; unsigned:
    "allow", "no_host_code" or "refuse", as `xla_aot run --unsigned`.
    Raises NotFoundError for a missing file, InvalidArgumentError naming the
    field for a malformed artifact, PermissionDeniedError for one the trust
    policy refuses, FailedPreconditionError for a host artifact this CPU
    cannot run.
    """
    return Executable(_xla_aot.load_file(os.fspath(path), [os.fspath(k) for k in trusted_keys],
                                         unsigned))


def evaluate(hlo, *arrays):
    """Runs HLO (text or a path) on the reference evaluator (`xla_aot eval`)
    and returns one numpy array per result leaf; arguments and results as
    Executable.run. Slow but independent of the compiler: the oracle to
    check compiled results against. Raises as compile and run do."""
    text, source = _read_hlo(hlo)
    return [_from_npy(t, data) for t, data in _xla_aot.evaluate(text, source, [_to_npy(a) for a in arrays])]
