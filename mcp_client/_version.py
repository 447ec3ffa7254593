"""The distribution's version, in one place (read by setup.cfg and clientInfo)."""

__version__ = "0.1.0"
