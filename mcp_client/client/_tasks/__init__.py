"""Tools run as tasks, in both eras; the client holds one :class:`~.calls.Tasks`.

* :mod:`.calls`: which tool calls run as tasks, running them, and the
  handles of :meth:`Client.call_tool_task <mcp_client.client.Client.call_tool_task>`;
  the object a :class:`~mcp_client.client.Client` holds;
* :mod:`.capability_2025_11_25`: the 2025-11-25 experimental ``tasks``
  capability (core: ``tools/call`` with a ``task`` field, ``tasks/result``);
* :mod:`.extension_2026_07_28`: the 2026-07-28 ``io.modelcontextprotocol/tasks``
  extension (SEP-2663: ``resultType: "task"``, ``tasks/update``);
* :mod:`.shared`: what both wires share (the poll's pauses, ``tasks/cancel``);
* :mod:`.handle`: :class:`~.handle.TaskHandle`, a
  :class:`concurrent.futures.Future` (imported on first use).
* :mod:`.methods`: :class:`~.methods.TaskMethods`, the client's
  ``call_tool_task`` and ``resume_task`` (a mixin of the client);
* :mod:`.durable`: a task recorded in a fleet store, so that another process
  can resume it (the server's identity, the arguments' digest, the record
  kept up to date).

Nothing is imported here: each module is loaded by whoever needs it.
"""

__all__: list[str] = []
