"""xla_aot.from_jax: HLO text from a JAX function. The one part of the
package that needs jax, imported only when called."""

from . import _xla_aot


def _hlo_text(lowered):
    """HLO text of a jax `Lowered`, across jax versions."""
    try:
        return lowered.as_text(dialect="hlo")
    except (TypeError, ValueError, AttributeError):
        return lowered.compiler_ir(dialect="hlo").as_hlo_text()


def from_jax(fn, *example_args):
    """Returns the HLO text of `jax.jit(fn)` for arguments like `example_args`
    (arrays or jax.ShapeDtypeStruct; pytrees are flattened), keeping every
    argument: jax.jit drops unused ones unless asked not to, and an entry
    whose parameters are not one per argument leaf raises ValueError.

    Raises ImportError when jax is not installed, and what jax raises for a
    function it cannot trace.
    """
    try:
        import jax
    except ImportError as e:
        raise ImportError("xla_aot.from_jax needs jax (pip install jax jaxlib); "
                          "the rest of xla_aot does not") from e
    lowered = jax.jit(fn, keep_unused=True).lower(*example_args)
    text = _hlo_text(lowered)
    leaves = jax.tree_util.tree_leaves(example_args)
    count = _xla_aot.entry_parameter_count(text, "<from_jax>")
    if count != len(leaves):
        raise ValueError(
            f"from_jax: the HLO entry has {count} parameters but the example arguments "
            f"have {len(leaves)} array leaves; jax dropped or added parameters, so "
            "Executable.run would not take the function's arguments")
    return text
