"""A genuinely legacy server: the newest ``mcp`` 1.x release's FastMCP over HTTP.

Runs under a Python that has ``mcp`` 1.x (not the test venv, which has 2.3.0): ``.ci/run``
builds one and names it in ``MCP_LEGACY_PYTHON``.  Tools: ``echo(text)`` and ``greet()``
(asks the client for a name with a real ``elicitation/create`` request).  Listens on
127.0.0.1:``--port``; ``--stateless`` runs the stateless mode, ``--sse`` the 2024-11-05
HTTP+SSE transport (``/sse``) instead of Streamable HTTP (``/mcp``); ``--stdio`` serves
stdio instead (no port; exits on stdin EOF).

Usage: ``python tests/servers/mcp1_http.py --port N [--stateless] [--sse]`` or
``python tests/servers/mcp1_http.py --stdio``
"""

import argparse

from mcp.server.fastmcp import Context, FastMCP
from pydantic import BaseModel


class Name(BaseModel):
    name: str


def build(port: int, stateless: bool) -> FastMCP:
    mcp = FastMCP("mcp1-server", host="127.0.0.1", port=port, stateless_http=stateless,
                  log_level="WARNING")

    @mcp.tool()
    def echo(text: str) -> str:
        """Say ``text`` back."""
        return text

    @mcp.tool()
    async def greet(ctx: Context) -> str:  # type: ignore[type-arg]
        """Ask the client for a name, then greet it."""
        answer = await ctx.elicit("What is your name?", Name)
        if answer.action != "accept":
            return f"no name ({answer.action})"
        return f"Hello, {answer.data.name}!"

    return mcp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int)
    parser.add_argument("--stateless", action="store_true")
    parser.add_argument("--sse", action="store_true")
    parser.add_argument("--stdio", action="store_true")
    args = parser.parse_args()
    if args.stdio:
        build(0, False).run("stdio")
    elif args.port is None:
        parser.error("--port is required (or --stdio)")
    else:
        build(args.port, args.stateless).run("sse" if args.sse else "streamable-http")


if __name__ == "__main__":
    main()
