"""The checks a contributor runs before a commit, as nox sessions.

``nox -l`` lists them; ``nox`` runs them all; ``nox -s tests-3.12`` runs one.
Each session builds a virtual environment of its own and installs the
package with the extra it needs, then runs the command ``.ci/run`` runs:

* ``tests``: ``python -m pytest`` (two pytest-xdist workers, as setup.cfg
  says; arguments after ``--`` are passed on: ``nox -s tests -- tests/client -n 0``);
* ``lint``: flake8 over ``mcp_client tests examples bench``;
* ``typing``: mypy, configured in setup.cfg (strict over ``mcp_client``; the
  bodies of the tests checked too);
* ``docs``: the HTML build and the guide's examples run as doctests, both
  under ``-W`` (a warning fails the build), with no network.

``tests``, ``lint`` and ``typing`` run on every interpreter in
:data:`PYTHONS` that is installed; nox skips the others and says so
(``--error-on-missing-interpreters`` makes that a failure).  ``docs`` needs
one.  ``.ci/run`` stays the whole check: it also runs the MCP conformance
suite, the real peers and the packaging steps, which need Node and PyPI.
"""

from __future__ import annotations

import nox

#: The interpreters the package supports (setup.cfg: ``python_requires = >=3.10``).
PYTHONS = ["3.10", "3.11", "3.12", "3.13"]

#: What flake8 reads, as ``.ci/run`` lists it.
LINT_TARGETS = ["mcp_client", "tests", "examples", "bench"]

nox.options.sessions = ["tests", "lint", "typing", "docs"]
nox.options.reuse_existing_virtualenvs = True


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The test suite (the README's test command)."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session(python=PYTHONS)
def lint(session: nox.Session) -> None:
    """flake8 (max line 100, configured in setup.cfg)."""
    session.install("flake8")
    session.run("flake8", *LINT_TARGETS)


@nox.session(python=PYTHONS)
def typing(session: nox.Session) -> None:
    """mypy over the package and the tests, as setup.cfg configures it."""
    session.install("-e", ".[test]")
    session.run("mypy", *session.posargs)


@nox.session(python=PYTHONS[-1])
def docs(session: nox.Session) -> None:
    """The documentation: HTML, then the guide's examples as doctests, warnings as errors."""
    session.install("-e", ".[docs]")
    out = session.create_tmp()
    session.run("sphinx-build", "-W", "--keep-going", "-q", "-b", "html", "docs",
                f"{out}/docs-html")
    session.run("sphinx-build", "-W", "--keep-going", "-q", "-b", "doctest", "docs",
                f"{out}/docs-doctest")
