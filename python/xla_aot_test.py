"""Tests of the installed xla_aot wheel (run by python/wheel_test.sh in a
fresh venv). Compiled results are checked against hand-computed numpy and
against xla_aot.evaluate (the reference evaluator); every error path raises
the documented exception with the command line's message."""

import os
import tempfile
import threading
import time
import unittest

import numpy as np

import xla_aot

# A layer with a bias and a ReLU, its row sums, and the biased values again:
# a tuple result of two leaves, odd sizes.
LAYER = """HloModule layer, entry_computation_layout={(f32[3,5]{1,0}, f32[5]{0})->(f32[3]{0}, f32[3,5]{1,0})}

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT sum = f32[] add(a, b)
}

ENTRY main {
  x = f32[3,5]{1,0} parameter(0)
  bias = f32[5]{0} parameter(1)
  bias_b = f32[3,5]{1,0} broadcast(bias), dimensions={1}
  biased = f32[3,5]{1,0} add(x, bias_b)
  zero = f32[] constant(0)
  zeros = f32[3,5]{1,0} broadcast(zero), dimensions={}
  relu = f32[3,5]{1,0} maximum(biased, zeros)
  row_sum = f32[3]{0} reduce(relu, zero), dimensions={1}, to_apply=add_f32
  ROOT out = (f32[3]{0}, f32[3,5]{1,0}) tuple(row_sum, biased)
}
"""

# bf16 multiply-add: operands whose products are exact in bf16.
BF16 = """HloModule bf16_fma

ENTRY main {
  a = bf16[7]{0} parameter(0)
  b = bf16[7]{0} parameter(1)
  c = bf16[7]{0} parameter(2)
  ab = bf16[7]{0} multiply(a, b)
  ROOT r = bf16[7]{0} add(ab, c)
}
"""

# Integer products and row sums and a comparison: s32 and pred results.
INTS = """HloModule ints

add_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT sum = s32[] add(a, b)
}

ENTRY main {
  x = s32[3,4]{1,0} parameter(0)
  y = s32[4]{0} parameter(1)
  yb = s32[3,4]{1,0} broadcast(y), dimensions={1}
  p = s32[3,4]{1,0} multiply(x, yb)
  zero = s32[] constant(0)
  sums = s32[3]{0} reduce(p, zero), dimensions={1}, to_apply=add_s32
  ten = s32[] constant(10)
  tens = s32[3,4]{1,0} broadcast(ten), dimensions={}
  gt = pred[3,4]{1,0} compare(p, tens), direction=GT
  ROOT out = (s32[3]{0}, pred[3,4]{1,0}) tuple(sums, gt)
}
"""

# An f32 matrix product (the host's GEMM thunk).
DOT = """HloModule dot

ENTRY main {
  x = f32[3,4]{1,0} parameter(0)
  y = f32[4,5]{1,0} parameter(1)
  ROOT d = f32[3,5]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""

# Line 4 has an unknown opcode at column 22.
BAD_HLO = """HloModule bad

ENTRY main {
  x = f32[3]{0} parameter(0)
  ROOT y = f32[3]{0} frobnicate(x)
}
"""


def layer_inputs():
    x = (np.arange(15, dtype=np.float32).reshape(3, 5) - 7.0) * 0.75
    bias = np.array([0.5, -1.25, 2.0, -3.5, 0.25], np.float32)
    return x, bias


def layer_expected(x, bias):
    biased = x + bias
    return np.maximum(biased, 0).sum(axis=1), biased


def as_float32(values):
    """bf16 results arrive as float32, or as ml_dtypes.bfloat16 arrays."""
    return np.asarray(values).astype(np.float32)


class CompileAndRunTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.layer = xla_aot.compile(LAYER, opt_level=1)

    def test_installed_from_the_wheel(self):
        self.assertIn("site-packages", xla_aot.__file__)
        self.assertRegex(xla_aot.__version__, r"^\d+\.\d+\.\d+$")

    def test_tuple_result_matches_numpy_and_evaluator(self):
        x, bias = layer_inputs()
        row_sum, biased = self.layer.run(x, bias)
        want_sum, want_biased = layer_expected(x, bias)
        np.testing.assert_allclose(row_sum, want_sum, rtol=1e-6)
        np.testing.assert_array_equal(biased, want_biased)
        ref = xla_aot.evaluate(LAYER, x, bias)
        self.assertEqual(len(ref), 2)
        np.testing.assert_allclose(row_sum, ref[0], rtol=1e-6)
        np.testing.assert_array_equal(biased, ref[1])
        self.assertEqual(row_sum.dtype, np.float32)
        self.assertEqual(biased.shape, (3, 5))

    def test_signature(self):
        self.assertEqual([(s.name, s.shape, s.dtype) for s in self.layer.inputs],
                         [("x", (3, 5), "f32"), ("bias", (5,), "f32")])
        self.assertEqual([(s.shape, s.dtype) for s in self.layer.outputs], [((3,), "f32"), ((3, 5), "f32")])
        self.assertEqual(self.layer.inputs[0].numpy_dtype, np.float32)
        self.assertIn("f32[3, 5]", repr(self.layer))

    def test_bf16(self):
        exe = xla_aot.compile(BF16)
        self.assertEqual([s.dtype for s in exe.inputs], ["bf16"] * 3)
        self.assertEqual(exe.inputs[0].numpy_dtype, np.float32)
        a = np.array([1.5, -2.0, 0.25, 3.0, -0.5, 8.0, 1.75], np.float32)
        b = np.array([2.0, 0.5, -4.0, 1.25, 6.0, -0.125, 3.0], np.float32)
        c = np.array([0.5, 1.0, -1.0, 2.0, -3.0, 0.25, 0.0], np.float32)
        (got,) = exe.run(a, b, c)
        np.testing.assert_array_equal(as_float32(got), a * b + c)  # exact in bf16
        (ref,) = xla_aot.evaluate(BF16, a, b, c)
        np.testing.assert_array_equal(as_float32(got), as_float32(ref))

    def test_bf16_inputs_round_to_nearest_even(self):
        exe = xla_aot.compile(BF16)
        # 1 + 2^-8 is halfway between two bf16 values: it rounds to 1.0.
        a = np.full(7, 1.0 + 2.0**-8, np.float32)
        (got,) = exe.run(a, np.ones(7, np.float32), np.zeros(7, np.float32))
        np.testing.assert_array_equal(as_float32(got), np.ones(7, np.float32))

    def test_integers_and_pred(self):
        exe = xla_aot.compile(INTS)
        x = np.arange(12, dtype=np.int32).reshape(3, 4) * 3 - 11
        y = np.array([2, -1, 5, 3], np.int32)
        sums, gt = exe.run(x, y)
        np.testing.assert_array_equal(sums, (x * y).sum(axis=1))
        np.testing.assert_array_equal(gt, (x * y) > 10)
        self.assertEqual(sums.dtype, np.int32)
        self.assertEqual(gt.dtype, np.bool_)
        ref_sums, ref_gt = xla_aot.evaluate(INTS, x, y)
        np.testing.assert_array_equal(sums, ref_sums)
        np.testing.assert_array_equal(gt, ref_gt)

    def test_dot(self):
        exe = xla_aot.compile(DOT)
        x = np.linspace(-1.5, 2.5, 12, dtype=np.float32).reshape(3, 4)
        y = np.linspace(0.75, -3.0, 20, dtype=np.float32).reshape(4, 5)
        (d,) = exe.run(x, y)
        np.testing.assert_allclose(d, x.astype(np.float64) @ y.astype(np.float64), rtol=1e-5, atol=1e-6)
        (ref,) = xla_aot.evaluate(DOT, x, y)
        np.testing.assert_allclose(d, ref, rtol=1e-5, atol=1e-6)

    def test_compile_from_a_path_and_options(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "layer.hlo")
            with open(path, "w") as f:
                f.write(LAYER)
            exe = xla_aot.compile(path, no_fusion=True, host_cpu_variants="none", opt_level=0,
                                  checksum="crc32c")
        x, bias = layer_inputs()
        row_sum, biased = exe.run(x, bias)
        want_sum, want_biased = layer_expected(x, bias)
        np.testing.assert_allclose(row_sum, want_sum, rtol=1e-6)
        np.testing.assert_array_equal(biased, want_biased)

    def test_offload_scan_stacks_option(self):
        # A scan whose per-step rows go to host memory (MoveToHost) and come
        # back in reverse (MoveToDevice). The option puts the stack in host
        # memory, moved a row per step by dynamic-offset copies (a feature
        # the artifact then requires); without it the stack stays on the
        # device. Both match the evaluator.
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scan_offload.hlo")
        on = xla_aot.compile(path, offload_scan_stacks=True)
        off = xla_aot.compile(path)
        self.assertIn("copy_thunk.dynamic_offset", on.inspect())
        self.assertNotIn("copy_thunk.dynamic_offset", off.inspect())
        rng = np.random.default_rng(25)
        x = rng.uniform(-1.5, 1.5, size=(33,)).astype(np.float32)
        ws = rng.uniform(0.5, 1.5, size=(5, 33)).astype(np.float32)
        want = xla_aot.evaluate(path, x, ws)
        self.assertGreater(float(np.abs(want[1]).max()), 0.1)
        for exe in (on, off):
            got = exe.run(x, ws)
            self.assertEqual(len(got), 2)
            for g, w in zip(got, want):
                np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)

    def test_save_load_round_trip(self):
        x, bias = layer_inputs()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "layer.xaot")
            self.layer.save(path)
            with open(path, "rb") as f:
                self.assertEqual(f.read(), self.layer.artifact_bytes())
            loaded = xla_aot.load(path)
        self.assertEqual(loaded.inputs, self.layer.inputs)
        for got, want in zip(loaded.run(x, bias), self.layer.run(x, bias)):
            np.testing.assert_array_equal(got, want)
        self.assertEqual(loaded.artifact_bytes(), self.layer.artifact_bytes())

    def test_inspect(self):
        text = self.layer.inspect()
        self.assertIn("signature: none", text)
        self.assertIn("thunks:", text)
        self.assertIn("f32[3,5]", text)

    def test_runs_from_many_threads(self):
        x, bias = layer_inputs()
        errors = []

        def worker(k):
            try:
                xk = x * (k + 1)
                for _ in range(5):
                    row_sum, biased = self.layer.run(xk, bias)
                    want_sum, want_biased = layer_expected(xk, bias)
                    np.testing.assert_allclose(row_sum, want_sum, rtol=1e-6)
                    np.testing.assert_array_equal(biased, want_biased)
            except Exception as e:  # pylint: disable=broad-except
                errors.append(e)

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_compile_releases_the_gil(self):
        # Another Python thread keeps running while compiles work: its
        # longest pause stays far below the compiles' time (it would span a
        # whole compile if the GIL were held).
        done = threading.Event()
        seconds = []

        def compile_several():
            start = time.perf_counter()
            for _ in range(6):
                xla_aot.compile(LAYER, opt_level=3)
            seconds.append(time.perf_counter() - start)
            done.set()

        thread = threading.Thread(target=compile_several)
        last = time.perf_counter()
        longest_pause, iterations = 0.0, 0
        thread.start()
        while not done.is_set():
            now = time.perf_counter()
            longest_pause, last = max(longest_pause, now - last), now
            iterations += 1
        thread.join()
        self.assertGreater(iterations, 1000)
        self.assertLess(longest_pause, seconds[0] / 2,
                        f"the main thread paused {longest_pause:.3f}s during {seconds[0]:.3f}s of compiles")


class ErrorTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.layer = xla_aot.compile(LAYER, opt_level=0)

    def test_bad_hlo_names_line_and_column(self):
        with self.assertRaises(xla_aot.InvalidArgumentError) as cm:
            xla_aot.compile(BAD_HLO)
        self.assertIsInstance(cm.exception, ValueError)
        self.assertRegex(str(cm.exception), r"^<text>:5:\d+: ")
        self.assertIn("frobnicate", str(cm.exception))
        self.assertEqual(cm.exception.code, "INVALID_ARGUMENT")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.hlo")
            with open(path, "w") as f:
                f.write(BAD_HLO)
            with self.assertRaisesRegex(xla_aot.InvalidArgumentError, r"bad\.hlo:5:\d+: "):
                xla_aot.compile(path)
            with self.assertRaisesRegex(xla_aot.InvalidArgumentError, r"bad\.hlo:5:\d+: "):
                xla_aot.evaluate(path, np.zeros(3, np.float32))

    def test_missing_files(self):
        with self.assertRaisesRegex(xla_aot.NotFoundError, "/no/such/model.hlo: cannot open file"):
            xla_aot.compile("/no/such/model.hlo")
        with self.assertRaises(FileNotFoundError):
            xla_aot.load("/no/such/model.xaot")

    def test_bad_options(self):
        with self.assertRaisesRegex(ValueError, "unknown compile option 'fusion'"):
            xla_aot.compile(LAYER, fusion=False)
        with self.assertRaisesRegex(ValueError, r"compile option 'opt_level': bad --opt_level value '9'"):
            xla_aot.compile(LAYER, opt_level=9)
        with self.assertRaisesRegex(ValueError, "sm_90"):
            xla_aot.compile(LAYER, target="sm_12")

    def test_wrong_arity(self):
        x, _ = layer_inputs()
        with self.assertRaisesRegex(ValueError, "takes 2 arguments .* but 1 were given"):
            self.layer.run(x)
        with self.assertRaisesRegex(ValueError, "takes 2 arguments"):
            xla_aot.evaluate(LAYER, x)

    def test_wrong_dtype(self):
        x, bias = layer_inputs()
        with self.assertRaisesRegex(ValueError, r"parameter 1 \('bias'\)") as cm:
            self.layer.run(x, bias.astype(np.float64))
        self.assertIn("expects f32[5]", str(cm.exception))
        self.assertIn("the array has dtype <f8", str(cm.exception))

    def test_wrong_shape(self):
        x, bias = layer_inputs()
        with self.assertRaisesRegex(ValueError, r"parameter 0 \('x'\)"):
            self.layer.run(x.T.copy(), bias)
        with self.assertRaisesRegex(ValueError, r"parameter 1 \('bias'\)"):
            self.layer.run(x, np.zeros(4, np.float32))

    def test_hostile_artifacts(self):
        good = self.layer.artifact_bytes()
        flipped = bytearray(good)
        flipped[len(flipped) // 2] ^= 0x5A
        cases = {
            "empty": b"",
            "garbage": bytes(range(256)) * 3,
            "truncated": good[: len(good) // 3],
            "flipped": bytes(flipped),
        }
        with tempfile.TemporaryDirectory() as tmp:
            for name, data in cases.items():
                path = os.path.join(tmp, name + ".xaot")
                with open(path, "wb") as f:
                    f.write(data)
                with self.subTest(name), self.assertRaises(xla_aot.Error) as cm:
                    xla_aot.load(path)
                self.assertIn(path, str(cm.exception))

    def test_unsigned_refused_by_policy(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "layer.xaot")
            self.layer.save(path)
            with self.assertRaises(xla_aot.PermissionDeniedError):
                xla_aot.load(path, unsigned="refuse")
            with self.assertRaisesRegex(ValueError, "unsigned"):
                xla_aot.load(path, unsigned="sometimes")


class FromJaxTest(unittest.TestCase):

    def setUp(self):
        try:
            import jax  # pylint: disable=import-outside-toplevel,unused-import
        except ImportError:
            self.skipTest("jax is not installed in this environment: xla_aot.from_jax not tested")

    def test_keeps_unused_arguments(self):
        import jax.numpy as jnp  # pylint: disable=import-outside-toplevel

        def fn(x, unused, y):
            return jnp.tanh(x) * 2.0 + y.sum()

        x = np.linspace(-2, 2, 21, dtype=np.float32).reshape(3, 7)
        unused = np.ones(4, np.int32)
        y = np.arange(5, dtype=np.float32)
        hlo = xla_aot.from_jax(fn, x, unused, y)
        exe = xla_aot.compile(hlo)
        self.assertEqual(len(exe.inputs), 3)
        (got,) = exe.run(x, unused, y)
        np.testing.assert_allclose(got, np.tanh(x) * 2.0 + y.sum(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got, np.asarray(fn(x, unused, y)), rtol=1e-5, atol=1e-6)


if __name__ == "__main__":
    unittest.main()
