"""An ``mcpb`` bundle: downloaded, checked against its published SHA-256, unpacked, run.

An MCP Bundle is a zip file with a ``manifest.json`` whose ``server.mcp_config``
(``command``, ``args``, ``env``) says how to start the server, ``${__dirname}``
standing for the folder it was unpacked into.  The registry publishes the
bundle's URL (``identifier``) and its ``fileSha256``, which a client must check
before it runs anything (server.json 2025-12-11).

Decisions:

* No ``fileSha256``, no bundle: a download that cannot be checked is refused.
* The URL must be ``https:`` (or ``http:`` to a loopback host); the download is
  at most 256 MiB, the archive at most 10,000 members and 1 GiB unpacked.
* A member with an absolute path, a ``..`` part, a drive, or the mode bits of a
  link is refused, with the whole bundle: an archive that writes outside its
  folder is hostile, not damaged.
* The folder is named by the checked digest, under ``bundles``; it is filled in
  a temporary sibling and renamed into place, so a half-unpacked bundle is
  never used, and an existing folder (same digest, same bytes) is used again.
* ``${user_config.KEY}`` in the manifest becomes a ``${KEY}`` reference (the user
  supplies it through the environment, as for any other input), and ``${HOME}``
  stays one; every other ``${`` of the manifest is escaped (``$${``), so a
  bundle cannot have the configuration hand it an environment variable that
  ``inherit_env`` keeps from it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Mapping

from ..exceptions import DiscoveryError
from ._api import check_registry, fetch, literal

__all__ = ["bundle_config", "default_bundles"]

MAX_DOWNLOAD = 256 << 20
MAX_MEMBERS = 10_000
MAX_UNPACKED = 1 << 30
_USER_CONFIG = re.compile(r"\$\$\{user_config\.([A-Za-z0-9_.-]+)\}")   # as escaped


def default_bundles() -> str:
    """``~/.cache/mcp-client/bundles`` (under ``XDG_CACHE_HOME`` when set)."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "mcp-client", "bundles")


def bundle_config(name: str, package: Mapping[str, Any], env: dict[str, str],
                  package_args: list[str], reference: Callable[[str, str, Mapping[str, Any]], str],
                  *, bundles: str | None, fetch: bool) -> dict[str, Any]:
    """The ``mcpServers`` entry of a bundle (downloaded and unpacked when ``fetch``)."""
    digest = package.get("fileSha256")
    if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise DiscoveryError(name, "integrity", "an mcpb package without a fileSha256 cannot "
                             "be checked, so it is not used")
    if not fetch:
        return {}
    folder = Path(bundles or default_bundles()) / digest
    if not (folder / "manifest.json").is_file():
        data = _download(name, package["identifier"])
        if hashlib.sha256(data).hexdigest() != digest:
            raise DiscoveryError(name, "integrity", "the downloaded bundle's SHA-256 is not the "
                                 "published fileSha256; nothing was unpacked")
        _unpack(name, data, folder)
    return _manifest_config(name, folder, env, package_args, reference)


def _download(name: str, url: str) -> bytes:
    try:
        check_registry(url)   # the same rule as a registry's: https, or loopback http
    except DiscoveryError:
        raise DiscoveryError(name, "invalid", "an mcpb bundle must be downloaded over https: "
                             "(plain http: only on this machine's loopback)") from None
    data = fetch(url, name, limit=MAX_DOWNLOAD, timeout=60, what="the bundle's address",
                 missing="unreachable")
    if len(data) > MAX_DOWNLOAD:
        raise DiscoveryError(name, "integrity", f"the bundle is over {MAX_DOWNLOAD} bytes")
    return data


def _unpack(name: str, data: bytes, folder: Path) -> None:
    import io

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise DiscoveryError(name, "integrity", "the bundle is not a zip archive") from None
    members = archive.infolist()
    if len(members) > MAX_MEMBERS or sum(m.file_size for m in members) > MAX_UNPACKED:
        raise DiscoveryError(name, "integrity", "the bundle unpacks to too much")
    for member in members:
        path = PurePosixPath(member.filename)
        mode = member.external_attr >> 16
        if path.is_absolute() or ".." in path.parts or "\\" in member.filename or \
                ":" in member.filename or stat.S_ISLNK(mode):
            raise DiscoveryError(name, "integrity", f"the bundle holds an unsafe member "
                                 f"{member.filename!r}; nothing was unpacked")
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=folder.parent))
    try:
        archive.extractall(scratch)
        if not (scratch / "manifest.json").is_file():
            raise DiscoveryError(name, "integrity", "the bundle has no manifest.json")
        try:
            scratch.rename(folder)
        except OSError:   # another process unpacked the same digest first: use theirs
            if not (folder / "manifest.json").is_file():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _manifest_config(name: str, folder: Path, env: dict[str, str], package_args: list[str],
                     reference: Callable[[str, str, Mapping[str, Any]], str]) -> dict[str, Any]:
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        mcp_config = manifest["server"]["mcp_config"]
        command = mcp_config["command"]
    except (OSError, ValueError, KeyError, TypeError):
        raise DiscoveryError(name, "invalid", "the bundle's manifest.json has no "
                             "server.mcp_config.command") from None
    if not isinstance(command, str):
        raise DiscoveryError(name, "invalid", "the bundle's command is not a string")

    def resolved(text: Any) -> str:
        text = literal(str(text)).replace("$${__dirname}", literal(str(folder)))
        text = text.replace("$${HOME}", "${HOME}")
        return _USER_CONFIG.sub(lambda m: reference(m.group(1), "env", {}), text)

    args = [resolved(arg) for arg in mcp_config.get("args") or []]
    config: dict[str, Any] = {"command": resolved(command), "args": [*args, *package_args]}
    merged = {key: resolved(value) for key, value in (mcp_config.get("env") or {}).items()}
    merged.update(env)
    if merged:
        config["env"] = merged
    config["cwd"] = str(folder)
    return config
