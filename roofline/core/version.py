"""The version of roofline, the one place it is written (``roofline.__version__`` and pyproject.toml read it)."""

__version__ = "0.1.0"
