#!/usr/bin/env bash
# wheel_test: the wheel as a user gets it. Creates a fresh venv of Debian's
# python3 (--system-site-packages for Debian's numpy; no PyPI), installs the
# wheel with `pip install --no-index --no-deps`, checks that the extension
# needs nothing from the build tree or LD_LIBRARY_PATH, and runs
# xla_aot_test.py in that venv, away from the source tree.
#
#   wheel_test.sh PYTHON WHEEL TEST_FILE [DATA_FILE...]
#
# Each DATA_FILE is copied beside the test, which finds it by its base name.
set -euo pipefail
python="$1"
wheel="$(realpath "$2")"
test_file="$(realpath "$3")"
shift 3
data_files=()
for f in "$@"; do data_files+=("$(realpath "$f")"); done
work="${TEST_TMPDIR:-$(mktemp -d)}/wheel_test"
rm -rf "$work"
mkdir -p "$work/home"
export HOME="$work/home" PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
unset LD_LIBRARY_PATH PYTHONPATH

"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --quiet --no-index --no-deps "$wheel"

so="$(ls "$work"/venv/lib/python3*/site-packages/xla_aot/_xla_aot*.so)"
echo "wheel_test: installed $(basename "$wheel") -> $so"
# Every library the extension needs resolves from the system, and it names
# no path of the build tree.
if ldd "$so" | grep -q 'not found'; then
  echo "wheel_test: FAIL: unresolved libraries:"; ldd "$so" | grep 'not found'; exit 1
fi
if readelf -d "$so" | grep -E 'RPATH|RUNPATH' | grep -qE 'bazel|_solib|execroot|sandbox'; then
  echo "wheel_test: FAIL: the extension's run path names the build tree:"
  readelf -d "$so" | grep -E 'RPATH|RUNPATH'; exit 1
fi
exported="$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBVW]$/ {print $3}')"
if [ "$exported" != "PyInit__xla_aot" ]; then
  echo "wheel_test: FAIL: the extension exports more than PyInit__xla_aot:"; echo "$exported" | head; exit 1
fi

cd "$work"
cp "$test_file" "$work/xla_aot_test.py"
for f in "${data_files[@]}"; do cp "$f" "$work/"; done
"$work/venv/bin/python" -m unittest -v xla_aot_test 2>&1
