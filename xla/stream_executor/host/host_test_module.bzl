"""host_test_module: a test host kernel module (a shared object), compiled
and linked in one genrule the way xla_aot's host compiler links kernels and
CheckHostSharedObject (host_object_check.h) accepts them.

A cc_binary(linkshared = 1) will not do: Bazel links it with the C
runtime's crt files, whose DT_INIT, DT_FINI and .init_array run code at
load, with -lstdc++ -lm as DT_NEEDED entries, and under --config=asan or
ubsan with the sanitizer's module constructors and its runtime library as a
DT_NEEDED (the --copt and --linkopt of a config come after a target's own
options, so no target option turns them off). A genrule gets none of those:
the module is what the compiler would write, not code under test.

It is linked with binutils ld (the compiler's fallback linker; gold, the
toolchain's default, exports _end, _edata and __bss_start from every shared
object) unless linker = "gold"; -z noseparate-code keeps the files small.
"""

_LINKERS = {
    "bfd": "-fuse-ld=bfd -Wl,-z,noseparate-code",
    "gold": "-fuse-ld=gold",
}

def host_test_module(name, srcs, hdrs = [], linker = "bfd", copts = [], linkopts = []):
    """Builds the shared object `name` from C++ `srcs` (headers in `hdrs`)."""
    native.genrule(
        name = name.replace(".", "_") + "_module",
        testonly = True,
        srcs = srcs + hdrs,
        outs = [name],
        cmd = " ".join([
            "gcc -std=c++17 -O1 -fPIC -shared -nostartfiles -I.",
            "-Wl,-z,now -Wl,-z,relro -Wl,-z,noexecstack -Wl,--as-needed",
            _LINKERS[linker],
        ] + copts + ["-o $@"] + ["$(location %s)" % s for s in srcs] + linkopts),
    )
