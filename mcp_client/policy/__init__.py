"""Permissions: the :class:`Policy` layer, its shared :class:`Grants`, and the rule language.

This package is the face of the permission unit.  The decision lives in
:mod:`._policy`, the grants in :mod:`._grants` (kept in a book,
:mod:`._book`: in memory, or in an SQLite file many processes share; or
:mod:`._pgbook`, in a PostgreSQL store many hosts share), the
rule language in
:mod:`mcp_client.policy.rules` (public: ``RuleError``, ``compile_rule``...),
the shell reader in :mod:`._shell` (what it knows of particular programs in
:mod:`._programs`, the command checks in :mod:`._checks`), and the call as a
question shows it, with the answer read back, in :mod:`._calls` and
:mod:`._asking`.  Import the public names from here.  Outside ``__all__``,
``command_locations`` (:mod:`._places`) is the shell reader's answer to the
lease layer: what a call's commands may change.
"""
from __future__ import annotations

from ._places import command_locations as command_locations  # noqa: F401 -- for leases
from ._book import GrantBook, GrantBookError, MemoryBook, SQLiteBook
from ._grants import Grants, GrantStore
from ._pgbook import PostgresBook
from ._policy import ANSWERS, FLOOR_CHECKS, LEASE_TOOLS, REFUSED, Policy

__all__ = ["Policy", "Grants", "ANSWERS", "LEASE_TOOLS", "FLOOR_CHECKS", "REFUSED",
           "GrantBook", "GrantBookError", "GrantStore", "MemoryBook", "SQLiteBook",
           "PostgresBook"]
