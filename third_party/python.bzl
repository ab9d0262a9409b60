"""The Python that the `xla_aot` package is built for (python/BUILD).

Debian's /usr/bin/python3 (python3-dev, pybind11-dev from
tools/install_deps.sh), chosen deliberately rather than whatever `python3`
is first on PATH (a pyenv build, say): the wheel's tests install it into a
venv of this interpreter, with Debian's numpy. The repository holds:

  //:headers    Python.h and friends (cc_library; pybind11's headers are in
                /usr/include, on the compiler's default path)
  //:defs.bzl   PYTHON (the interpreter's path), PYTHON_TAG ("cp311") and
                EXT_SUFFIX (".cpython-311-x86_64-linux-gnu.so")
"""

_QUERY = """
import sys, sysconfig
print(sysconfig.get_paths()["include"])
print(sysconfig.get_config_var("EXT_SUFFIX"))
print("cp%d%d" % sys.version_info[:2])
"""

def _python_repository_impl(ctx):
    python = ctx.attr.interpreter
    result = ctx.execute([python, "-c", _QUERY])
    if result.return_code != 0:
        fail("python_repository: cannot run %s (install python3-dev with tools/install_deps.sh): %s" %
             (python, result.stderr))
    include, ext_suffix, tag = result.stdout.strip().split("\n")
    if not ctx.path(include + "/Python.h").exists:
        fail("python_repository: %s/Python.h is missing: install python3-dev (tools/install_deps.sh)" % include)
    ctx.symlink(include, "include")
    ctx.file("BUILD", """package(default_visibility = ["//visibility:public"])

cc_library(
    name = "headers",
    hdrs = glob(["include/**/*.h"]),
    includes = ["include"],
)

exports_files(["defs.bzl"])
""")
    ctx.file("defs.bzl", "PYTHON = %r\nEXT_SUFFIX = %r\nPYTHON_TAG = %r\n" % (python, ext_suffix, tag))

python_repository = repository_rule(
    implementation = _python_repository_impl,
    attrs = {"interpreter": attr.string(default = "/usr/bin/python3")},
    local = True,
)
