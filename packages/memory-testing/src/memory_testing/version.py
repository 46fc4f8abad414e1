"""The memory-testing distribution's version (static, read by hatchling)."""

__version__ = "0.1.0"
