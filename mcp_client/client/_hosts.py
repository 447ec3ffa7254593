"""The seams between the connection and the parts that work through it.

Each :class:`~typing.Protocol` here is what one module needs of a connection,
and all it may use: :mod:`._writer` and :mod:`._dispatch` read its state,
:mod:`._requests` also revives it, :mod:`._flights` sends and finishes
pipelined calls through :class:`~._requests.Requests`, and :mod:`._watch`
keeps its listen request.  The modules are typed against these, never
against the classes that implement them, so none of them imports
:mod:`._connection` (and the connection may import them all).
"""

from __future__ import annotations

from typing import Protocol

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping, Sequence

    from ..correlator import Pending
    from ..exceptions import MCPClientError
    from ..protocol import Shaped
    from ._era import EraInfo
    from ._progress import Ticket

__all__ = ["FlightsHost", "RequestWriter", "RequestsHost", "SenderHost", "WatchHost",
           "WireState"]


class WireState(Protocol):
    """A connection's state, as those who must not change it see it."""

    #: ``"open"``, ``"dead"`` or ``"closed"`` (see :mod:`._connection`).
    state: str

    def failure(self) -> MCPClientError:
        """What a request made now raises (the state is not ``"open"``)."""


class RequestsHost(WireState, Protocol):
    """What :class:`~._requests.Requests` needs of its connection: its state, and its revival."""

    def revive(self) -> None:
        """dead -> open, if the connection restarts a dead wire (``restart="on-failure"``)."""


class RequestWriter(Protocol):
    """How requests registered already are written to the wire (:class:`~._writer.Writer`)."""

    def post(self, pending: Pending, params: Mapping[str, Any], meta: dict[str, Any] | None,
             *, headers: Mapping[str, str] | None = None, pipelined: bool = False,
             led: bool = False) -> None:
        """Send one request; abandoned and raised if the send fails."""

    def post_all(self, pendings: Sequence[Pending], params: Sequence[dict[str, Any]],
                 metas: Sequence[dict[str, Any] | None]) -> None:
        """Send requests together; never raises (each failure fails its own cell)."""


class SenderHost(Protocol):
    """What sending a request of one's own and giving it up needs."""

    @property
    def writer(self) -> RequestWriter:
        """Writes the requests."""

    @property
    def era_info(self) -> EraInfo | None:
        """What negotiation found, or None before it finished."""

    def budget(self, timeout: float | None) -> float | None:
        """A request's budget in seconds (None: ``request_timeout``); None for no budget."""

    def meta(self, info: EraInfo, progress_token: str | int | None) -> dict[str, Any] | None:
        """A request's ``_meta``."""

    def register(self, method: str, then: Callable[[Pending], None] | None = None,
                 *, standing: bool = False) -> Pending:
        """A fresh request id for ``method``; raises if no request can be sent now."""

    def abandon(self, pending: Pending) -> bool:
        """Stop waiting for ``pending``; False if its answer won the race."""

    def cancel(self, ident: int | str, reason: str) -> None:
        """Tell the server a request was given up."""


class FlightsHost(SenderHost, Protocol):
    """What pipelined calls (:mod:`._flights`) need of their connection."""

    @property
    def mints_progress(self) -> bool:
        """Whether every call gets a progress token of the client's (``on_progress``)."""

    def revive(self) -> None:
        """dead -> open, if the connection restarts a dead wire (``restart="on-failure"``)."""

    def flight_terms(self, timeout: float | None, progress_token: str | int | None,
                     tool_call_id: str | None
                     ) -> tuple[EraInfo, float | None, Ticket | None, dict[str, Any] | None]:
        """The era, budget, progress ticket (opened) and ``_meta`` of one pipelined call."""

    def open_ticket(self, token: str | int | None, tool_call_id: str | None) -> Ticket | None:
        """Start tracking a call's progress."""

    def close_ticket(self, ticket: Ticket | None) -> None:
        """Stop tracking a call's progress."""

    def register_many(self, method: str, count: int) -> list[Pending]:
        """``count`` fresh request ids for ``method``."""

    def give_up_call(self, pending: Pending) -> bool:
        """Give up a call's request from any thread (``cancel_tool_calls``): its cell
        fails with :class:`~mcp_client.exceptions.Cancelled` and the server is told."""

    def lead(self, done: Callable[[], bool], timeout: float | None,
             first: Callable[[], None] | None = None) -> float | None:
        """Read the wire on this thread until ``done()``."""

    def shaped(self, info: EraInfo, method: str, answer: dict[str, Any],
               tasks: bool = False) -> Shaped:
        """An answer message as a shaped result; an error answer is raised."""

    def more_rounds(self, info: EraInfo, method: str, params: Mapping[str, Any],
                    meta: dict[str, Any] | None, budget: float | None, cancelled: Any,
                    ticket: Ticket | None, headers: Mapping[str, str] | None,
                    shaped: Shaped, tasks: bool = False) -> Shaped:
        """Complete a multi round-trip request through the hooks."""

    def hard_deadline(self, start: float) -> float | None:
        """The ``max_total_timeout`` instant for a request started at ``start``."""

    def stretched(self, ticket: Ticket | None, timeout: float | None, hard: float | None,
                  now: float) -> float | None:
        """A new deadline if progress may stretch the request's; None: it timed out."""


class WatchHost(SenderHost, WireState, Protocol):
    """What the listen request (:mod:`._watch`) needs of its connection."""

    def ensure_era(self, budget: float | None = None, cancelled: Any = None,
                   method: str = "server/discover") -> EraInfo:
        """The era, negotiating it first if nobody has."""

    def discovered(self) -> EraInfo:
        """The era info, with a discover sent once if it never was."""

    def request(self, method: str, params: Mapping[str, Any], *, timeout: float | None,
                cancelled: Any, progress_token: str | int | None = None,
                tool_call_id: str | None = None, refresh: bool = False,
                headers: Mapping[str, str] | None = None,
                tasks: bool = False) -> dict[str, Any]:
        """Send a request in the negotiated era; the caller's view of its result."""
