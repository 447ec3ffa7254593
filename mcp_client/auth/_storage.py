"""Where tokens and client registrations are kept between requests and processes.

A record is a JSON-able dict (the issuer, the client registration, the
tokens, the scopes asked for) stored under a key that names the protected
resource and the client (:func:`storage_key`).  :class:`MemoryTokenStorage`
keeps records for the life of the process; :class:`FileTokenStorage` keeps
them in one JSON file, written atomically (a temporary file in the same
folder, then ``os.replace``) with mode 0600, and serialised across processes
with an advisory lock on a sibling ``.lock`` file where the platform has
``fcntl``.  No storage shows a record in its ``repr()`` or logs one.

A token file is checked as ssh checks a private key (``StrictModes``),
because a record planted in it points the client's refresh -- with the
refresh token and the client secret -- at whatever token endpoint it names.
Where the platform has user ids, a ``tokens.json`` that is writable by group
or others, is owned by another user, or lies in a folder that is
world-writable without the sticky bit or owned by another user (root aside)
is not read: a :class:`UnsafeTokenFile` warning names it and the rule, and
the storage holds no record (the next save replaces the file with a private
one; into an unsafe folder nothing is saved -- :class:`AuthError`).  The
file is checked on the descriptor it is read from, so it cannot be swapped
between the check and the read; it is opened without waiting, so a FIFO
planted in its place is refused rather than blocking the client.  The lock file is opened with
``O_NOFOLLOW``: a symlink planted in its place is an error, never followed.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Any, Iterator, Protocol, runtime_checkable

from ._errors import AuthError

__all__ = ["TokenStorage", "MemoryTokenStorage", "FileTokenStorage", "UnsafeTokenFile",
           "storage_key", "user_token_path"]


class UnsafeTokenFile(UserWarning):
    """A token file was not read: another user could have written it (see the module)."""


def user_token_path() -> Path:
    """The user's token file: ``$XDG_CONFIG_HOME/mcp-client/tokens.json``
    (``~/.config/...`` when unset; ``%APPDATA%`` on Windows)."""
    base = os.environ.get("XDG_CONFIG_HOME") or (
        os.environ.get("APPDATA") if os.name == "nt" else None)
    folder = Path(base) if base else Path.home() / ".config"
    return folder / "mcp-client" / "tokens.json"


def storage_key(resource: str, client_id: str | None = None) -> str:
    """The key of the record for ``resource`` (a canonical URL) and a pre-registered client."""
    return resource if not client_id else f"{resource}#{client_id}"


@runtime_checkable
class TokenStorage(Protocol):
    """What :class:`~mcp_client.auth.OAuth` keeps its records in.

    Implementations must be safe to call from several threads at once.  A
    record is a dict of JSON values; ``load`` returns a copy the caller may
    change, or None when there is none.
    """

    def load(self, key: str) -> dict[str, Any] | None:
        """The record stored under ``key``, or None."""

    def save(self, key: str, data: dict[str, Any]) -> None:
        """Store ``data`` under ``key``, replacing what was there."""

    def delete(self, key: str) -> None:
        """Forget the record under ``key`` (no error when there is none)."""


def _copy(data: Any) -> Any:
    return json.loads(json.dumps(data))


class MemoryTokenStorage:
    """Records kept in this process only (the default)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: dict[str, dict[str, Any]] = {}

    def __repr__(self) -> str:
        return f"<MemoryTokenStorage records={len(self._records)}>"

    def load(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            found = self._records.get(key)
            return None if found is None else _copy(found)

    def save(self, key: str, data: dict[str, Any]) -> None:
        with self._lock:
            self._records[key] = _copy(data)

    def delete(self, key: str) -> None:
        with self._lock:
            self._records.pop(key, None)


class FileTokenStorage:
    """Records kept in one JSON file (mode 0600), shared by every process that opens it.

    Args:
        path: the file; its folder is created (mode 0700) when missing.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<FileTokenStorage {str(self.path)!r}>"

    def load(self, key: str) -> dict[str, Any] | None:
        with self._locked():
            found = self._read().get(key)
        return found if isinstance(found, dict) else None

    def save(self, key: str, data: dict[str, Any]) -> None:
        with self._locked():
            records = self._read()
            records[key] = _copy(data)
            self._write(records)

    def delete(self, key: str) -> None:
        with self._locked():
            records = self._read()
            if records.pop(key, None) is not None:
                self._write(records)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with self._lock:
            lock = f"{self.path}.lock"
            try:
                self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                # O_NOFOLLOW: a symlink planted as the lock file is refused (ELOOP),
                # never followed to create or open a file elsewhere.
                handle = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0),
                                 0o600)
            except OSError as exc:
                raise AuthError(f"cannot use the token file {self.path} (its lock file "
                                f"{lock}): {exc.strerror or exc}") from None
            try:
                try:
                    import fcntl
                except ImportError:   # Windows: threads in this process are still serialised
                    fcntl = None   # type: ignore[assignment]
                if fcntl is not None:
                    fcntl.flock(handle, fcntl.LOCK_EX)
                yield
            finally:
                os.close(handle)   # closing releases the flock

    def _folder_rule(self) -> str | None:
        """Why the file's folder is unsafe (None: it is not, or the platform has no owners)."""
        if not hasattr(os, "geteuid"):
            return None
        try:
            folder = os.stat(self.path.parent)
        except OSError:
            return None   # reading or writing says what is wrong
        if folder.st_mode & stat.S_IWOTH and not folder.st_mode & stat.S_ISVTX:
            return "it is in a world-writable folder without the sticky bit"
        if folder.st_uid not in (os.geteuid(), 0):
            return "it is in a folder owned by another user"
        return None

    @staticmethod
    def _file_rule(found: os.stat_result) -> str | None:
        """Why the file itself is unsafe (None: it is not, or the platform has no owners)."""
        if not hasattr(os, "geteuid"):
            return None
        if not stat.S_ISREG(found.st_mode):
            return "it is not a regular file"
        if found.st_uid != os.geteuid():
            return "it is owned by another user"
        if found.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return "it is writable by group or others"
        return None

    def _read(self) -> dict[str, Any]:
        try:
            # O_NONBLOCK: a FIFO planted as the file is opened (and refused below)
            # at once instead of waiting for a writer.
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            with os.fdopen(fd, encoding="utf-8") as handle:
                rule = self._file_rule(os.fstat(handle.fileno())) or self._folder_rule()
                if rule is not None:
                    warnings.warn(UnsafeTokenFile(
                        f"the token file {self.path} is not used: {rule} (another user could "
                        "have planted its records); make it yours, mode 0600, in a private "
                        "folder"), stacklevel=2)
                    return {}
                text = handle.read()
        except FileNotFoundError:
            return {}
        except UnicodeDecodeError:
            return {}   # damaged, as below
        except OSError as exc:
            raise AuthError(f"cannot read the token file {self.path}: "
                            f"{exc.strerror or exc}") from None
        try:
            data = json.loads(text)
        except ValueError:
            # A damaged file holds nothing usable; the next save replaces it.
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, records: dict[str, Any]) -> None:
        folder = self.path.parent
        rule = self._folder_rule()
        if rule is not None:
            raise AuthError(f"refusing to keep tokens in {folder}: {rule.replace('it is in ', '')}"
                            " (another user could replace the file)")
        try:
            # mkstemp creates the file with mode 0600, before anything is written to it.
            fd, temporary = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    json.dump(records, out, indent=1, sort_keys=True)
                    out.flush()
                    os.fsync(out.fileno())
                os.replace(temporary, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError as exc:
            raise AuthError(f"cannot write the token file {self.path}: "
                            f"{exc.strerror or exc}") from None
