"""Table-driven tests: one generated test method per row, so every case is counted and named."""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence


def add_rows(cls: type, prefix: str, rows: Sequence[Sequence[Any]],
             check: Callable[..., None]) -> None:
    """Give ``cls`` a ``test_<prefix>_<n>_<label>`` method per row, calling ``check(self, *row)``.

    The first item of each row is its label (a short description).
    """
    for number, row in enumerate(rows):
        label = re.sub(r"[^A-Za-z0-9]+", "_", str(row[0])).strip("_").lower()[:48]

        def test(self: Any, row: Sequence[Any] = row) -> None:
            check(self, *row)

        name = f"test_{prefix}_{number:03d}_{label}"
        test.__name__ = test.__qualname__ = name
        test.__doc__ = str(row[0])
        setattr(cls, name, test)
