"""The code-mode host protocol's wire, shared by the client (``codemode``) and the host
(``codemode.runtime``): what a frame is and how its JSON is read and written, every message's
type and constructor, the host's serde-style decoding rules, tool naming, and the truncation
rules the host applies for a session opened with ``outputTruncation: "server"``.

Nothing here imports the client or the kernel, and nothing imports a third-party package at
module level (orjson loads only when a large frame is written), so the host starts fast.

- :mod:`codemode.wire.framing`: a frame is a 4-byte little-endian length and UTF-8 JSON, at most
  64 MiB;
- :mod:`codemode.wire.frame_json`: a payload's JSON text (json, or orjson once large);
- :mod:`codemode.wire.frame_writer`: the frames of one event-loop iteration leave in one write;
- :mod:`codemode.wire.raw_text`: ``codemode-raw-text-v1``, long strings in frames of their own;
- :mod:`codemode.wire.stored_values`: a stored value crosses in a frame of its own;
- :mod:`codemode.wire.messages`: every message (:mod:`~codemode.wire.handshake`,
  :mod:`~codemode.wire.client_messages`, :mod:`~codemode.wire.host_messages`,
  :mod:`~codemode.wire.results`, :mod:`~codemode.wire.session_bindings`);
- :mod:`codemode.wire.serde`: the texts serde gives when Codex's host refuses a message;
- :mod:`codemode.wire.tool_names`: a tool's JavaScript identifier and its Codex and MCP names;
- :mod:`codemode.wire.truncation`: Codex's token estimate and output truncation.
"""
