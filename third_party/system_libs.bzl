"""system_linkopts: link options for Debian's libraries, static in the static CLI.

Under --config=static_llvm (the command line built for speed of start-up,
see .bazelrc) the libraries named here link from Debian's static archives
(lib*.a) instead of their shared objects: the dynamic loader then maps and
searches a handful of objects at every process start instead of about 70
(docs/perf.md, "The last fixed cost of a compile"). The condition is
//third_party:static_cli (the same --define as @llvm16//:static_llvm). Only
the CLI is meant to be built so: it is a position-dependent executable
(-no-pie), so the archives need no PIC, which a shared object (the Python
extension) built under the config would. Every other build (tests, the
runtime library, the Python extension) links the shared objects as before.
"""

def system_linkopts(libs, shared = []):
    """Returns linkopts for `libs` ("-lfoo" each) followed by `shared`.

    libs: linked statically under --config=static_llvm, in one group (so
      their order among themselves does not matter), else as given.
    shared: always linked as given (e.g. "-lpthread", "-lrt": parts of the
      C library, never linked statically here).
    """
    return select({
        "//third_party:static_cli": ["-Wl,-Bstatic", "-Wl,--start-group"] + libs +
                                 ["-Wl,--end-group", "-Wl,-Bdynamic"] + shared,
        "//conditions:default": libs + shared,
    })
