"""Rendering JSON Schema as TypeScript, and the ``exec tool declaration`` of a tool.

The rules are those of Codex's ``render_json_schema_to_typescript`` and of its augmented tool
descriptions (``codex-rs/code-mode-protocol/src/description.rs``). The output is plain text used in
``ALL_TOOLS`` descriptions, ``%tools`` and kernel inspect.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from codemode.wire.tool_names import is_identifier

FENCE = "```"


def _literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _is_object_like(schema: dict[str, Any]) -> bool:
    return any(key in schema for key in ("properties", "additionalProperties", "required"))


def _is_array_like(schema: dict[str, Any]) -> bool:
    return "items" in schema or "prefixItems" in schema


def render_schema(schema: Any, indent: int = 0, root: Any = None) -> str:
    """Render one JSON Schema as a TypeScript type (Codex's rules, checked in order).

    ``indent`` is the nesting depth (two spaces per level) used by multi-line objects.
    ``true`` -> ``unknown``, ``false`` -> ``never``; ``const``, ``enum``, ``anyOf``/``oneOf``
    (`` | ``), ``allOf`` (`` & ``), then ``type``; an untyped schema with object or array keys
    renders as that; anything else is ``unknown``. Never raises.

    Beyond Codex's rules: a local ``$ref`` (``#/$defs/Point``, ``#/definitions/...``, any JSON pointer
    into ``root``, which defaults to ``schema``) renders as the schema it points to, so the
    pydantic-made schemas of MCP servers (``mcp-server-time``'s ``convert_time``) show their
    shape instead of ``unknown``. A reference back into a schema being expanded (recursion),
    or one that does not resolve or is not local, renders as ``unknown``.
    """
    return _render(schema, indent, _Refs(schema if root is None else root))


class _Refs:
    """The document local ``$ref`` pointers resolve against, and the refs being expanded."""

    def __init__(self, root: Any, active: frozenset[str] = frozenset()) -> None:
        self.root = root
        self.active = active

    def resolve(self, ref: Any) -> tuple[Any, _Refs] | None:
        if not isinstance(ref, str) or not ref.startswith("#") or ref in self.active:
            return None
        target = self.root
        pointer = unquote(ref[1:])
        if pointer:
            if not pointer.startswith("/"):
                return None
            for token in pointer[1:].split("/"):
                token = token.replace("~1", "/").replace("~0", "~")
                if isinstance(target, dict) and token in target:
                    target = target[token]
                elif isinstance(target, list) and token.isdigit() and int(token) < len(target):
                    target = target[int(token)]
                else:
                    return None
        return target, _Refs(self.root, self.active | {ref})


def _render(schema: Any, indent: int, refs: _Refs) -> str:
    if schema is True:
        return "unknown"
    if schema is False:
        return "never"
    if not isinstance(schema, dict):
        return "unknown"
    if "$ref" in schema:
        resolved = refs.resolve(schema["$ref"])
        if resolved is None:
            return "unknown"
        return _render(resolved[0], indent, resolved[1])
    if "const" in schema:
        return _literal(schema["const"])
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return " | ".join(_literal(v) for v in enum)
    for key in ("anyOf", "oneOf"):
        variants = schema.get(key)
        if isinstance(variants, list) and variants:
            return " | ".join(_render(v, indent, refs) for v in variants)
    variants = schema.get("allOf")
    if isinstance(variants, list) and variants:
        return " & ".join(_render(v, indent, refs) for v in variants)
    kind = schema.get("type")
    if isinstance(kind, list):
        if not kind:
            return "unknown"
        return " | ".join(_render_type(schema, k, indent, refs) for k in kind)
    if isinstance(kind, str):
        return _render_type(schema, kind, indent, refs)
    if _is_object_like(schema):
        return _render_object(schema, indent, refs)
    if _is_array_like(schema):
        return _render_array(schema, indent, refs)
    return "unknown"


def _render_type(schema: dict[str, Any], kind: Any, indent: int, refs: _Refs) -> str:
    if kind == "string":
        return "string"
    if kind in ("number", "integer"):
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind == "null":
        return "null"
    if kind == "array":
        return _render_array(schema, indent, refs)
    if kind == "object":
        return _render_object(schema, indent, refs)
    return "unknown"


def _render_array(schema: dict[str, Any], indent: int, refs: _Refs) -> str:
    if "items" in schema:
        return f"Array<{_render(schema['items'], indent, refs)}>"
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list):
        return "[" + ", ".join(_render(v, indent, refs) for v in prefix) + "]"
    return "unknown[]"


def _property_name(name: str) -> str:
    return name if is_identifier(name) else _literal(name)


def _render_object(schema: dict[str, Any], indent: int, refs: _Refs) -> str:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        properties = {}
    required = schema.get("required")
    required_set = set(required) if isinstance(required, list) else set()
    names = sorted(properties, key=lambda n: n.encode("utf-8", "surrogatepass"))
    multiline = any(
        isinstance(properties[n], dict)
        and isinstance(properties[n].get("description"), str)
        and properties[n]["description"].strip()
        for n in names
    )
    inner = indent + 1 if multiline else indent
    members: list[tuple[list[str], str]] = []
    for name in names:
        prop = properties[name]
        optional = "" if name in required_set else "?"
        rendered = f"{_property_name(name)}{optional}: {_render(prop, inner, refs)};"
        comments: list[str] = []
        if isinstance(prop, dict) and isinstance(prop.get("description"), str):
            comments = [line.strip() for line in prop["description"].splitlines() if line.strip()]
        members.append((comments, rendered))
    additional = schema.get("additionalProperties", None)
    if additional is True or ("additionalProperties" not in schema and not properties):
        members.append(([], "[key: string]: unknown;"))
    elif additional is not None and additional is not False:
        members.append(([], f"[key: string]: {_render(additional, inner, refs)};"))
    if not members:
        return "{}"
    if not multiline:
        return "{ " + " ".join(member for _, member in members) + " }"
    pad = "  " * (indent + 1)
    lines = ["{"]
    for comments, member in members:
        lines.extend(f"{pad}// {c}" for c in comments)
        lines.append(f"{pad}{member}")
    lines.append("  " * indent + "}")
    return "\n".join(lines)


def _matches(schema: Any, want: dict[str, Any]) -> bool:
    if not isinstance(schema, dict):
        return False
    for key, value in want.items():
        if isinstance(value, dict):
            if not _matches(schema.get(key), value):
                return False
        elif schema.get(key) != value:
            return False
    return True


def is_mcp_call_tool_result_schema(schema: Any) -> bool:
    """True when ``schema`` is MCP-shaped: its ``properties`` has ``content`` (array of
    objects), ``isError`` (boolean) and ``_meta`` (object)."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return False
    props = schema["properties"]
    return (
        _matches(props.get("content"), {"type": "array", "items": {"type": "object"}})
        and _matches(props.get("isError"), {"type": "boolean"})
        and _matches(props.get("_meta"), {"type": "object"})
    )


def mcp_output_schema(structured: dict[str, Any] | None) -> dict[str, Any]:
    """The MCP-shaped output schema of an MCP tool whose ``outputSchema`` is ``structured``."""
    properties: dict[str, Any] = {
        "content": {"type": "array", "items": {"type": "object"}},
        "isError": {"type": "boolean"},
        "_meta": {"type": "object"},
    }
    if structured is not None:
        properties["structuredContent"] = structured
    return {"type": "object", "properties": properties, "required": ["content"]}


def render_output_type(output_schema: Any) -> str:
    """``CallToolResult<S>`` for MCP-shaped schemas (plain ``CallToolResult`` when S is
    ``unknown``), otherwise the rendered schema; ``unknown`` without a schema."""
    if output_schema is None:
        return "unknown"
    if is_mcp_call_tool_result_schema(output_schema):
        structured = output_schema["properties"].get("structuredContent")
        rendered = "unknown" if structured is None else render_schema(structured)
        return "CallToolResult" if rendered == "unknown" else f"CallToolResult<{rendered}>"
    return render_schema(output_schema)


def render_declaration(js_name: str, kind: str, input_schema: Any, output_schema: Any) -> str:
    """The line ``declare const tools: { NAME(ARG: IN): Promise<OUT>; };``.

    ``kind`` is ``"function"`` (parameter ``args``; ``IN`` from the input schema, ``unknown``
    without one) or ``"freeform"`` (always ``input: string``).
    """
    if kind == "freeform":
        param = "input: string"
    else:
        rendered = "unknown" if input_schema is None else render_schema(input_schema)
        param = f"args: {rendered}"
    return f"declare const tools: {{ {js_name}({param}): Promise<{render_output_type(output_schema)}>; }};"


def augmented_description(description: str, declaration: str, namespace_description: str | None = None) -> str:
    """The ``ALL_TOOLS`` description: ``[<namespace description>\\n\\n]<description>\\n\\n
    exec tool declaration:\\n```ts\\n<declaration>\\n````."""
    text = f"{description}\n\nexec tool declaration:\n{FENCE}ts\n{declaration}\n{FENCE}"
    if namespace_description and namespace_description.strip():
        text = f"{namespace_description}\n\n{text}"
    return text
