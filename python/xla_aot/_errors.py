"""The exceptions of the xla_aot package.

Every error from the native code is an `Error` carrying the message that the
`xla_aot` command line prints (HLO errors as `file:line:col: ...`) and the
absl status code's name in `.code` ("INVALID_ARGUMENT"). The subclasses
also derive from the built-in exception Python code expects, so that
`except ValueError` or `except FileNotFoundError` catch them.
"""


class Error(Exception):
    """An error from xla_aot; `.code` is the status code's name."""

    code = "UNKNOWN"


class InvalidArgumentError(Error, ValueError):
    """Bad input: HLO that does not parse or verify, a bad compile option,
    wrong arity, dtype or shape in run or evaluate, a malformed artifact."""

    code = "INVALID_ARGUMENT"


class NotFoundError(Error, FileNotFoundError):
    """A file (HLO, artifact, key) that cannot be opened."""

    code = "NOT_FOUND"


class PermissionDeniedError(Error, PermissionError):
    """An artifact refused by the trust policy (signatures)."""

    code = "PERMISSION_DENIED"


class UnimplementedError(Error, NotImplementedError):
    """An instruction or custom call the target cannot compile or run."""

    code = "UNIMPLEMENTED"


class FailedPreconditionError(Error):
    """The device does not fit the artifact (wrong target, missing CPU
    extensions, no GPU)."""

    code = "FAILED_PRECONDITION"


class ResourceExhaustedError(Error, MemoryError):
    """The program needs more memory than the device has (device_memory)."""

    code = "RESOURCE_EXHAUSTED"
