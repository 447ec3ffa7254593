"""The shapes of what the API returns, as :class:`typing.TypedDict` classes.

Every result of :class:`~mcp_client.Client` (and of the providers that stack
over it) is a plain :class:`dict` decoded from the server's JSON; the classes
here tell a type checker which keys it has, so that ``result["content"]``
is known to be a list of content blocks and ``block["type"] == "text"``
narrows a block to :class:`TextContent`::

    from mcp_client import Client

    with Client.connect_stdio("my-server") as client:
        names = [tool["name"] for tool in client.list_tools()]
        result = client.call_tool("add", {"a": 1, "b": 2})
        for block in result["content"]:
            if block["type"] == "text":
                print(block["text"])

The shapes are those of the MCP schema (2025-11-25 and 2026-07-28): a key
the schema makes optional is ``NotRequired`` and is read with ``.get()`` or
after an ``in`` test.  A server may send keys that are not listed (a later
revision's, an extension's): they are kept in the dict, and ``.get()``
reads them (typed ``object``).  Protocol bookkeeping (``_meta`` of a result,
``resultType``, ``ttlMs``, ...) never reaches a caller and is not listed.

Three small functions read the text out of a result, so that a caller
need not narrow each block itself: :func:`text_of` (a tool result's text
blocks), :func:`block_text` (one block that must be text, such as a prompt
message's ``content``) and :func:`resource_text` (a read resource's text
entries)::

    from mcp_client.types import text_of

    print(text_of(client.call_tool("add", {"a": 1, "b": 2})))

This module is data only: it imports nothing of the package, and nothing at
run time but :mod:`typing`.  The classes are for type checkers: at run time
nothing is checked or converted, and ``__required_keys__`` is not to be
relied on.
"""

from __future__ import annotations

import sys
from typing import Any, Literal, TypedDict, Union, final

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing_extensions import NotRequired
elif sys.version_info >= (3, 11):   # so that typing.get_type_hints() resolves the keys
    from typing import NotRequired

__all__ = [
    "Role", "Annotations", "Icon",
    "TextContent", "ImageContent", "AudioContent", "ResourceLink", "EmbeddedResource",
    "ContentBlock", "TextResourceContents", "BlobResourceContents", "ResourceContents",
    "ToolAnnotations", "ToolExecution", "Tool", "Resource", "ResourceTemplate",
    "PromptArgument", "Prompt", "CallToolResult", "ReadResourceResult", "PromptMessage",
    "GetPromptResult", "Completion", "Implementation", "Notification", "Task",
    "FunctionDeclaration", "ToolDeclaration", "ToolMessage", "ChatToolMessage",
    "ToolCallFunction", "ToolCall",
    "ProviderEntry",
    "text_of", "block_text", "resource_text",
]

#: Who a message or an annotated block is for.
Role = Literal["user", "assistant"]


# -- pieces shared by many shapes ---------------------------------------------------------

class Annotations(TypedDict):
    """Hints about a content block or resource: ``audience``, ``priority``, ``lastModified``."""

    audience: NotRequired[list[Role]]
    priority: NotRequired[float]
    lastModified: NotRequired[str]


class Icon(TypedDict):
    """An icon of a tool, resource, prompt or server: ``src`` and optional details."""

    src: str
    mimeType: NotRequired[str]
    sizes: NotRequired[list[str]]
    theme: NotRequired[Literal["light", "dark"]]


# -- content blocks -----------------------------------------------------------------------

class TextContent(TypedDict):
    """A block of text: ``{"type": "text", "text": ...}``."""

    type: Literal["text"]
    text: str
    annotations: NotRequired[Annotations]
    _meta: NotRequired[dict[str, Any]]


class ImageContent(TypedDict):
    """An image: ``{"type": "image", "data": <base64>, "mimeType": ...}``."""

    type: Literal["image"]
    data: str
    mimeType: str
    annotations: NotRequired[Annotations]
    _meta: NotRequired[dict[str, Any]]


class AudioContent(TypedDict):
    """Audio: ``{"type": "audio", "data": <base64>, "mimeType": ...}``."""

    type: Literal["audio"]
    data: str
    mimeType: str
    annotations: NotRequired[Annotations]
    _meta: NotRequired[dict[str, Any]]


class ResourceLink(TypedDict):
    """A link to a resource the client may read: ``{"type": "resource_link", "uri", "name"}``."""

    type: Literal["resource_link"]
    uri: str
    name: str
    title: NotRequired[str]
    description: NotRequired[str]
    mimeType: NotRequired[str]
    size: NotRequired[int]
    icons: NotRequired[list[Icon]]
    annotations: NotRequired[Annotations]
    _meta: NotRequired[dict[str, Any]]


@final   # so that ``"text" in entry`` tells a type checker which of the two it is
class TextResourceContents(TypedDict):
    """A resource's contents as text: ``{"uri", "text", "mimeType"?}``."""

    uri: str
    text: str
    mimeType: NotRequired[str]
    _meta: NotRequired[dict[str, Any]]


@final
class BlobResourceContents(TypedDict):
    """A resource's contents as base64 bytes: ``{"uri", "blob", "mimeType"?}``."""

    uri: str
    blob: str
    mimeType: NotRequired[str]
    _meta: NotRequired[dict[str, Any]]


#: One entry of ``contents``: text or a blob (test ``"text" in entry`` to tell).
ResourceContents = Union[TextResourceContents, BlobResourceContents]


class EmbeddedResource(TypedDict):
    """A resource's contents inside a result: ``{"type": "resource", "resource": ...}``."""

    type: Literal["resource"]
    resource: ResourceContents
    annotations: NotRequired[Annotations]
    _meta: NotRequired[dict[str, Any]]


#: Any content block; ``block["type"]`` tells which.
ContentBlock = Union[TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource]


# -- what the lists return ----------------------------------------------------------------

class ToolAnnotations(TypedDict):
    """What a server says about a tool (untrusted hints): ``readOnlyHint`` and the rest."""

    title: NotRequired[str]
    readOnlyHint: NotRequired[bool]
    destructiveHint: NotRequired[bool]
    idempotentHint: NotRequired[bool]
    openWorldHint: NotRequired[bool]


class ToolExecution(TypedDict):
    """How a tool runs: ``taskSupport`` (2025-11-25 tasks)."""

    taskSupport: NotRequired[Literal["forbidden", "optional", "required"]]


class Tool(TypedDict):
    """One entry of :meth:`Client.list_tools <mcp_client.Client.list_tools>`.

    ``inputSchema`` and ``outputSchema`` are JSON Schema objects.
    """

    name: str
    inputSchema: dict[str, Any]
    title: NotRequired[str]
    description: NotRequired[str]
    outputSchema: NotRequired[dict[str, Any]]
    annotations: NotRequired[ToolAnnotations]
    execution: NotRequired[ToolExecution]
    icons: NotRequired[list[Icon]]
    _meta: NotRequired[dict[str, Any]]


class Resource(TypedDict):
    """One entry of :meth:`Client.list_resources <mcp_client.Client.list_resources>`."""

    uri: str
    name: str
    title: NotRequired[str]
    description: NotRequired[str]
    mimeType: NotRequired[str]
    size: NotRequired[int]
    icons: NotRequired[list[Icon]]
    annotations: NotRequired[Annotations]
    _meta: NotRequired[dict[str, Any]]


class ResourceTemplate(TypedDict):
    """One entry of :meth:`Client.list_resource_templates
    <mcp_client.Client.list_resource_templates>`: ``uriTemplate`` is an RFC 6570 template."""

    uriTemplate: str
    name: str
    title: NotRequired[str]
    description: NotRequired[str]
    mimeType: NotRequired[str]
    icons: NotRequired[list[Icon]]
    annotations: NotRequired[Annotations]
    _meta: NotRequired[dict[str, Any]]


class PromptArgument(TypedDict):
    """One argument a prompt takes."""

    name: str
    title: NotRequired[str]
    description: NotRequired[str]
    required: NotRequired[bool]


class Prompt(TypedDict):
    """One entry of :meth:`Client.list_prompts <mcp_client.Client.list_prompts>`."""

    name: str
    title: NotRequired[str]
    description: NotRequired[str]
    arguments: NotRequired[list[PromptArgument]]
    icons: NotRequired[list[Icon]]
    _meta: NotRequired[dict[str, Any]]


# -- what calls, reads and prompts return -------------------------------------------------

class CallToolResult(TypedDict):
    """What :meth:`Client.call_tool <mcp_client.Client.call_tool>` returns.

    A tool that failed says ``isError: True`` here (it is not raised).
    ``structuredContent`` is the JSON value the tool's ``outputSchema``
    describes (an object under 2025-11-25).
    """

    content: list[ContentBlock]
    structuredContent: NotRequired[Any]
    isError: NotRequired[bool]


class ReadResourceResult(TypedDict):
    """What :meth:`Client.read_resource <mcp_client.Client.read_resource>` returns."""

    contents: list[ResourceContents]


class PromptMessage(TypedDict):
    """One message of a rendered prompt: a ``role`` and one content block."""

    role: Role
    content: ContentBlock


class GetPromptResult(TypedDict):
    """What :meth:`Client.get_prompt <mcp_client.Client.get_prompt>` returns."""

    messages: list[PromptMessage]
    description: NotRequired[str]


class Completion(TypedDict):
    """What :meth:`Client.complete <mcp_client.Client.complete>` returns (checked)."""

    values: list[str]
    total: NotRequired[int]
    hasMore: NotRequired[bool]


class Implementation(TypedDict):
    """:attr:`Client.server_info <mcp_client.Client.server_info>`: empty if the server sent none."""

    name: NotRequired[str]
    version: NotRequired[str]
    title: NotRequired[str]
    description: NotRequired[str]
    websiteUrl: NotRequired[str]
    icons: NotRequired[list[Icon]]


class Notification(TypedDict):
    """One item of :attr:`Client.notifications <mcp_client.Client.notifications>`.

    The JSON-RPC message as it arrived: ``method`` (``notifications/...``)
    and, usually, ``params``.
    """

    jsonrpc: str
    method: str
    params: NotRequired[dict[str, Any]]


class Task(TypedDict):
    """A task's status as a 2025-11-25 server reports it (``tasks/get``)."""

    taskId: str
    status: Literal["working", "input_required", "completed", "failed", "cancelled"]
    statusMessage: NotRequired[str]
    createdAt: NotRequired[str]
    lastUpdatedAt: NotRequired[str]
    ttl: NotRequired[int | None]
    pollInterval: NotRequired[int]


# -- the LLM bridge -----------------------------------------------------------------------

class FunctionDeclaration(TypedDict):
    """The ``function`` of a :class:`ToolDeclaration`."""

    name: str
    description: str
    parameters: dict[str, Any]


class ToolDeclaration(TypedDict):
    """One entry of ``tools_for_llm()``: an OpenAI-style function declaration."""

    type: Literal["function"]
    function: FunctionDeclaration


class ToolMessage(TypedDict):
    """One entry of ``execute_tool_calls(calls)``: the answer to one call, for the model.

    ``content`` is the result's content flattened to text; ``structured_content``
    is there when the tool sent ``structuredContent``.
    """

    role: Literal["tool"]
    tool_call_id: Any
    content: str
    is_error: bool
    structured_content: NotRequired[Any]


class ChatToolMessage(TypedDict):
    """A tool message as the Chat Completions API documents it: these three keys, no more.

    What :func:`~mcp_client.provider.chat_messages` makes of a :class:`ToolMessage`.
    """

    role: Literal["tool"]
    tool_call_id: Any
    content: str


class ToolCallFunction(TypedDict):
    """The ``function`` of a :class:`ToolCall`: ``arguments`` as JSON text or an object."""

    name: str
    arguments: NotRequired[str | dict[str, Any]]


class ToolCall(TypedDict):
    """One tool call a model made, as ``execute_tool_calls`` reads it (OpenAI's shape).

    Objects with the same attributes (``call.id``, ``call.function.name``,
    ...) are read too.
    """

    id: str
    function: ToolCallFunction
    type: NotRequired[Literal["function"]]


class ProviderEntry(TypedDict):
    """One entry of :attr:`Registry.providers <mcp_client.registry.Registry.providers>`."""

    prefix: str
    provider: Any


# -- reading the text out of a result -----------------------------------------------------

def text_of(result: CallToolResult) -> str:
    """The text of a tool result: its text blocks' ``text``, joined with nothing between.

    Blocks of any other type (images, audio, links, embedded resources) are
    skipped; a result without text blocks gives ``""``.  Whether the tool
    failed is ``result.get("isError")``, not read here.
    """
    return "".join(block["text"] for block in result["content"] if block["type"] == "text")


def block_text(block: ContentBlock) -> str:
    """The ``text`` of one content block that must be a text block.

    For a block known to be text, such as a prompt message's ``content``
    (``block_text(prompt["messages"][0]["content"])``); raises
    :class:`ValueError`, naming the block's type, if it is not.
    """
    if block["type"] != "text":
        raise ValueError(f"a {block['type']!r} block has no text")
    return block["text"]


def resource_text(result: ReadResourceResult) -> str:
    """The text of a read resource: its text entries' ``text``, joined with nothing between.

    Blob entries (``{"blob": <base64>}``) are skipped; a resource of blobs
    only gives ``""``.
    """
    return "".join(entry["text"] for entry in result["contents"] if "text" in entry)
