"""The version of the xla_aot Python package (the wheel's name and
xla_aot.__version__)."""

VERSION = "0.1.0"
