"""xla_cc_proto: compiles .proto files with the system protoc.

Debian's protoc and libprotobuf are used directly (no protobuf Bazel rules,
which would need a download). Imports are resolved from the workspace root.
"""

def xla_cc_proto(name, srcs, deps = [], visibility = None):
    """Declares `name`, a cc_library holding the generated C++ for `srcs`.

    deps: other xla_cc_proto targets whose .proto files `srcs` import.
    """
    hdrs = [s[:-len(".proto")] + ".pb.h" for s in srcs]
    cc_srcs = [s[:-len(".proto")] + ".pb.cc" for s in srcs]
    dep_protos = [d + "_protos" for d in deps]
    native.filegroup(
        name = name + "_protos",
        srcs = srcs + dep_protos,
        visibility = visibility,
    )
    native.genrule(
        name = name + "_genproto",
        srcs = srcs + dep_protos,
        outs = hdrs + cc_srcs,
        cmd = "/usr/bin/protoc -I. --cpp_out=$(GENDIR) " +
              " ".join(["$(location %s)" % s for s in srcs]),
    )
    native.cc_library(
        name = name,
        srcs = cc_srcs,
        hdrs = hdrs,
        deps = deps + ["//third_party:protobuf"],
        visibility = visibility,
    )
