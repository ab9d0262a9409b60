"""Packs the xla_aot Python package into a wheel (PEP 427), with zipfile only.

  make_wheel.py --extension=_xla_aot.so --ext_suffix=.cpython-311-x86_64-linux-gnu.so
                --python_tag=cp311 --version=0.1.0 --output=DIR/NAME.whl
                xla_aot/__init__.py xla_aot/_errors.py ...

Writes xla_aot/<each .py>, xla_aot/_version.py, the extension as
xla_aot/_xla_aot<ext_suffix>, and the .dist-info files (METADATA, WHEEL,
RECORD with each file's sha256 and size). The output name must be the
wheel's canonical name (xla_aot-VERSION-TAG-TAG-linux_x86_64.whl), which
pip checks. Deterministic: fixed timestamps and file order. Exits non-zero
with a message for a missing input or a wrong output name.
"""

import argparse
import base64
import hashlib
import os
import sys
import zipfile

_DATE = (2026, 1, 1, 0, 0, 0)

_METADATA = """Metadata-Version: 2.1
Name: xla_aot
Version: {version}
Summary: Ahead-of-time compiler and runtime for XLA HLO programs (host and NVIDIA GPUs)
Requires-Python: =={major}.{minor}.*
Requires-Dist: numpy

See docs/python.md in the xla_aot repository.
"""

_WHEEL = """Wheel-Version: 1.0
Generator: xla_aot make_wheel.py
Root-Is-Purelib: false
Tag: {tag}-{tag}-linux_x86_64
"""


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _add(zf, name, data, executable=False):
    info = zipfile.ZipInfo(name, date_time=_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o755 if executable else 0o644) << 16
    zf.writestr(info, data)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extension", required=True)
    parser.add_argument("--ext_suffix", required=True)
    parser.add_argument("--python_tag", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("sources", nargs="+")
    args = parser.parse_args(argv)

    tag = args.python_tag
    expected = f"xla_aot-{args.version}-{tag}-{tag}-linux_x86_64.whl"
    if os.path.basename(args.output) != expected:
        sys.exit(f"make_wheel: the output must be named {expected}, not {os.path.basename(args.output)}")
    if not tag.startswith("cp") or len(tag) < 4:
        sys.exit(f"make_wheel: bad --python_tag '{tag}' (cpXY)")

    files = []  # (name in the wheel, bytes, executable)
    for src in sorted(args.sources, key=os.path.basename):
        if not src.endswith(".py"):
            sys.exit(f"make_wheel: {src}: not a .py file")
        with open(src, "rb") as f:
            files.append((f"xla_aot/{os.path.basename(src)}", f.read(), False))
    files.append(("xla_aot/_version.py", f'__version__ = "{args.version}"\n'.encode(), False))
    with open(args.extension, "rb") as f:
        files.append((f"xla_aot/_xla_aot{args.ext_suffix}", f.read(), True))

    dist_info = f"xla_aot-{args.version}.dist-info"
    files.append((f"{dist_info}/METADATA",
                  _METADATA.format(version=args.version, major=tag[2], minor=tag[3:]).encode(), False))
    files.append((f"{dist_info}/WHEEL", _WHEEL.format(tag=tag).encode(), False))
    record = [_record_line(name, data) for name, data, _ in files]
    record.append(f"{dist_info}/RECORD,,")

    tmp = args.output + ".tmp"
    with zipfile.ZipFile(tmp, "w") as zf:
        for name, data, executable in files:
            _add(zf, name, data, executable)
        _add(zf, f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode())
    os.replace(tmp, args.output)


if __name__ == "__main__":
    main(sys.argv[1:])
