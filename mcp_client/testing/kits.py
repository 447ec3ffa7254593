"""Ready-made official-SDK servers for testing agents built on mcp_client.

* :class:`TestKit` -- one tool of every shape: text (``echo``, ``add``),
  ``image``, ``audio``, ``resource_link``, ``embedded_text``,
  ``embedded_blob``, ``mixed``, structured output (``weather``), ``silent``
  (no content), ``fail`` (isError), ``slow``, ``rendezvous`` (only succeeds
  when n calls are in flight together: proof that a batch overlapped),
  ``ticket`` (1, 2, 3...: proof of how many calls reached the server),
  ``read_notes`` / ``write_note`` (read-only and not), ``no_args``, and two
  names a model API refuses (:data:`DOTTED_TOOL_NAME`,
  :data:`LONG_TOOL_NAME`).  Every tool but ``fail``, ``write_note`` and
  ``no_args`` is annotated ``readOnlyHint``.
* :class:`ProgressKit` -- tools that report progress: ``count(n, delay_ms=0)``
  (``i`` of ``n``, message ``step i/n``), ``ticks(n)`` (no total, no message),
  ``count_then_fail(n)``.

Each kit is used in this process or as a child process, the same server
either way::

    kit = TestKit()
    with kit.local() as local, TestKit.connect_stdio() as remote:
        assert local.tools_for_llm() == remote.tools_for_llm()

    python -m mcp_client.testing.kits testkit      # the kit over stdio

This module does not import the ``mcp`` SDK: a kit's constructor does
(:mod:`mcp_client.testing._kitservers`), so ``import mcp_client.testing``
stays free of it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from ..client import Client
    from ..local import LocalServer

__all__ = ["TestKit", "ProgressKit", "LONG_TOOL_NAME", "DOTTED_TOOL_NAME", "main"]

#: The TestKit tool whose name is longer than 64 characters.
LONG_TOOL_NAME = ("read_the_complete_quarterly_financial_statements_"
                  "of_every_subsidiary_in_the_group")
#: The TestKit tool whose name has a dot.
DOTTED_TOOL_NAME = "files.read_text"

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


class _Kit:
    """A kit: an SDK server built fresh for each instance."""

    __test__ = False     # not a pytest test class, whatever its name
    kind: ClassVar[str] = ""
    #: What the server builder is told besides the server's name.
    build_options: ClassVar[dict[str, str]] = {}

    def __init__(self, *, name: str | None = None) -> None:
        from . import _kitservers

        builder = getattr(_kitservers, f"build_{self.kind}")
        #: The ``mcp.server.mcpserver.MCPServer`` (not yet running).
        self.server: Any = builder(name or self.kind, **self.build_options)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} server={self.server.name!r}>"

    def local(self, **options: Any) -> LocalServer:
        """This kit's server in this process, as a :class:`~mcp_client.local.LocalServer`."""
        from ..local import LocalServer

        return LocalServer(self.server, **options)

    @classmethod
    def command(cls) -> list[str]:
        """The argv that runs this kit over stdio (``python -m mcp_client.testing.kits``)."""
        return [sys.executable, "-m", "mcp_client.testing.kits", cls.kind]

    @classmethod
    def connect_stdio(cls, **options: Any) -> Client:
        """A fresh kit server as a child process, and a client connected to it.

        The child imports this same ``mcp_client`` (its directory is put first
        on the child's ``PYTHONPATH``) unless ``env`` or ``inherit_env`` is
        given.

        Args:
            **options: anything :meth:`Client.connect_stdio` takes.
        """
        from ..client import Client

        command, *args = cls.command()
        if "env" not in options and "inherit_env" not in options:
            path = os.environ.get("PYTHONPATH")
            options["env"] = {"PYTHONPATH": _PACKAGE_ROOT + (os.pathsep + path if path else "")}
        return Client.connect_stdio(command, args=args, **options)


class TestKit(_Kit):
    """An official-SDK server with one tool of every shape (see the module docstring)."""

    kind = "testkit"
    build_options = {"dotted_name": DOTTED_TOOL_NAME, "long_name": LONG_TOOL_NAME}


class ProgressKit(_Kit):
    """An official-SDK server whose tools report progress (see the module docstring)."""

    kind = "progresskit"


def main(argv: list[str] | None = None) -> int:
    """Serve a kit over stdio: ``python -m mcp_client.testing.kits testkit|progresskit``."""
    args = sys.argv[1:] if argv is None else argv
    kits = {kit.kind: kit for kit in (TestKit, ProgressKit)}
    if len(args) != 1 or args[0] not in kits:
        print(f"usage: python -m mcp_client.testing.kits {'|'.join(kits)}", file=sys.stderr)
        return 2
    kits[args[0]]().server.run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
