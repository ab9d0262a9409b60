#!/usr/bin/env bash
# Installs every Debian package that the build and the tests need.
# Idempotent: packages already present are not reinstalled, and `apt-get update`
# runs at most once per invocation (and only when something is missing).
set -euo pipefail

PACKAGES=(
  bazel-bootstrap      # Bazel 4.2.3, runs offline
  bazel-rules-java     # @rules_java for Bazel's built-in toolchains
  g++
  protobuf-compiler    # /usr/bin/protoc
  libprotobuf-dev
  libabsl-dev
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  libeigen3-dev
  libsodium-dev        # Ed25519 signatures and BLAKE2b digests of artifacts
  llvm-16-dev          # headers plus libLLVM-16.so
  lld-16               # ld.lld-16: XLA_HOST_LINKER=ld.lld-16, and the tests compare with it
  liblld-16-dev        # lld's ELF linker as a library: host kernels link in process
  binutils
  openmpi-bin          # mpirun, for the multi-process collective tests
  libopenmpi-dev       # mpi.h and libmpi.so.40 (dlopen'ed, never linked by the runtime)
  pybind11-dev         # the Python extension (python/, docs/python.md)
  python3-dev          # Python.h for Debian's /usr/bin/python3
  python3-venv         # the wheel test installs into a temporary venv
  python3-numpy        # the package's one Python dependency
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install_deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
