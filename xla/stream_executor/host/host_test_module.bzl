"""host_test_module: a test host kernel module (a shared object) built by
the toolchain the way CheckHostSharedObject (host_object_check.h) accepts it.

Bazel links a cc_binary shared object with gold, with the C runtime's crt
files, whose DT_INIT, DT_FINI and .init_array run code at load, and with
-lstdc++ -lm, which become DT_NEEDED entries. -nostartfiles drops the crt
files, -Wl,--as-needed (before the toolchain's libraries) the libraries
unless used, and binutils ld (the compiler's fallback linker) replaces gold,
which exports _end, _edata and __bss_start from every shared object
(-z noseparate-code keeps the files small: no page of padding per segment).
linker = "gold" keeps gold.
"""

HOST_TEST_MODULE_LINKOPTS = ["-nostartfiles", "-Wl,--as-needed"]

_LINKERS = {
    "bfd": ["-fuse-ld=bfd", "-Wl,-z,noseparate-code"],
    "gold": ["-fuse-ld=gold"],
}

def host_test_module(name, srcs, linker = "bfd", linkopts = [], **kwargs):
    native.cc_binary(
        name = name,
        testonly = True,
        srcs = srcs,
        linkshared = True,
        linkopts = HOST_TEST_MODULE_LINKOPTS + _LINKERS[linker] + linkopts,
        **kwargs
    )
