#!/usr/bin/env bash
# Builds the xla_aot Python wheel into dist/ (docs/python.md):
#   dist/xla_aot-<version>-cp3XX-cp3XX-linux_x86_64.whl
# for Debian's /usr/bin/python3 (third_party/python.bzl). Extra arguments go
# to `bazel build` (e.g. -c opt for an optimized extension).
#   tools/build_wheel.sh [-c opt]
#   pip install dist/xla_aot-*.whl
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
bazel build --jobs="${JOBS:-2}" "$@" //python:wheel
bin="$(bazel info "$@" bazel-bin 2>/dev/null)"
mkdir -p dist
for whl in "$bin"/python/xla_aot-*.whl; do
  rm -f "dist/$(basename "$whl")"
  cp "$whl" dist/
  chmod 644 "dist/$(basename "$whl")"
  echo "build_wheel: dist/$(basename "$whl") ($(stat -c %s "$whl") bytes)"
done
