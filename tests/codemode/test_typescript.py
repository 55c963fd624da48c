"""JSON Schema -> TypeScript: the rules of Codex's ``render_json_schema_to_typescript``."""

import pytest

from codemode.tools.typescript import (
    augmented_description,
    is_mcp_call_tool_result_schema,
    mcp_output_schema,
    render_declaration,
    render_schema,
)

pytestmark = pytest.mark.unit


def obj(props, required=(), **extra):
    return {"type": "object", "properties": props, "required": list(required), **extra}


def test_pinned_hidden_dynamic_tool():
    assert (
        render_declaration(
            "hidden_dynamic_tool",
            "function",
            obj({"city": {"type": "string"}}, ["city"]),
            obj({"ok": {"type": "boolean"}}, ["ok"]),
        )
        == "declare const tools: { hidden_dynamic_tool(args: { city: string; }): Promise<{ ok: boolean; }>; };"
    )


def test_pinned_mcp_alpha():
    empty = {"type": "object", "properties": {}, "additionalProperties": False}
    assert render_declaration("mcp__sample__alpha", "function", empty, mcp_output_schema(empty)) == (
        "declare const tools: { mcp__sample__alpha(args: {}): Promise<CallToolResult<{}>>; };"
    )


def test_pinned_rmcp_echo():
    assert render_declaration(
        "mcp__rmcp__echo",
        "function",
        obj({"message": {"type": "string"}, "env_var": {"type": "string"}}, ["message"]),
        mcp_output_schema(obj({"echo": {"type": "string"}, "env": {"type": ["string", "null"]}}, ["echo", "env"])),
    ) == (
        "declare const tools: { mcp__rmcp__echo(args: { env_var?: string; message: string; }): "
        "Promise<CallToolResult<{ echo: string; env: string | null; }>>; };"
    )


def test_pinned_view_image_multiline():
    decl = render_declaration(
        "view_image",
        "function",
        obj({"path": {"type": "string", "description": "Local filesystem path to an image file."}}, ["path"]),
        obj(
            {
                "detail": {"enum": ["high", "original"], "description": "Image detail hint returned by view_image."},
                "image_url": {"type": "string", "description": "Data URL for the loaded image."},
            },
            ["detail", "image_url"],
        ),
    )
    assert decl.split("\n") == [
        "declare const tools: { view_image(args: {",
        "  // Local filesystem path to an image file.",
        "  path: string;",
        "}): Promise<{",
        "  // Image detail hint returned by view_image.",
        '  detail: "high" | "original";',
        "  // Data URL for the loaded image.",
        "  image_url: string;",
        "}>; };",
    ]


def test_pinned_weather_nested_inline_under_comment():
    rendered = render_schema(
        obj(
            {
                "weather": {
                    "type": "array",
                    "description": "look up weather for a list of places",
                    "items": obj({"location": {"type": "string"}}, ["location"]),
                }
            },
            ["weather"],
        )
    )
    assert rendered == "{\n  // look up weather for a list of places\n  weather: Array<{ location: string; }>;\n}"


def test_freeform_and_schemaless():
    assert render_declaration("editor__apply_patch", "freeform", None, None) == (
        "declare const tools: { editor__apply_patch(input: string): Promise<unknown>; };"
    )
    assert render_declaration("x", "function", None, None) == (
        "declare const tools: { x(args: unknown): Promise<unknown>; };"
    )


@pytest.mark.parametrize(
    "schema, ts",
    [
        (True, "unknown"),
        (False, "never"),
        (3, "unknown"),
        ({}, "unknown"),
        ({"const": "a"}, '"a"'),
        ({"const": 1}, "1"),
        ({"enum": ["a", 2, True]}, '"a" | 2 | true'),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, "string | null"),
        ({"oneOf": [{"type": "integer"}, {"type": "boolean"}]}, "number | boolean"),
        (
            {"allOf": [obj({"a": {"type": "string"}}, ["a"]), obj({"b": {"type": "number"}})]},
            "{ a: string; } & { b?: number; }",
        ),
        ({"type": ["string", "null"]}, "string | null"),
        ({"type": "array", "items": {"type": "string"}}, "Array<string>"),
        ({"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]}, "[string, number]"),
        ({"type": "array"}, "unknown[]"),
        ({"type": "object"}, "{ [key: string]: unknown; }"),
        ({"type": "object", "properties": {"a-b": {"type": "string"}}}, '{ "a-b"?: string; }'),
        ({"type": "object", "additionalProperties": {"type": "number"}}, "{ [key: string]: number; }"),
        (
            {"type": "object", "properties": {"a": {}}, "additionalProperties": True},
            "{ a?: unknown; [key: string]: unknown; }",
        ),
        (
            {"type": "object", "properties": {"b": {}, "a": {}}, "additionalProperties": False},
            "{ a?: unknown; b?: unknown; }",
        ),
        ({"required": ["z"]}, "{ [key: string]: unknown; }"),
        ({"items": {"type": "boolean"}}, "Array<boolean>"),
        ({"type": "frobnicate"}, "unknown"),
    ],
)
def test_rules(schema, ts):
    assert render_schema(schema) == ts


def test_multiline_description_lines_become_comments():
    rendered = render_schema(obj({"a": {"type": "string", "description": " first \n\n second "}}))
    assert rendered == "{\n  // first\n  // second\n  a?: string;\n}"


def test_mcp_shape_detection():
    assert is_mcp_call_tool_result_schema(mcp_output_schema(None))
    assert not is_mcp_call_tool_result_schema(obj({"content": {"type": "array"}}))


def test_augmented_description():
    text = augmented_description(
        "Echo it.", "declare const tools: { e(args: unknown): Promise<unknown>; };", "Server tools."
    )
    assert text == (
        "Server tools.\n\nEcho it.\n\nexec tool declaration:\n```ts\n"
        "declare const tools: { e(args: unknown): Promise<unknown>; };\n```"
    )


# -- local $ref / $defs (beyond Codex's rules: resolved so MCP servers' pydantic schemas show a shape) --
POINT = obj({"x": {"type": "integer"}, "y": {"type": "integer"}}, ["x", "y"])


def test_defs_refs_render_as_their_target():
    schema = obj(
        {"a": {"$ref": "#/$defs/Point"}, "b": {"$ref": "#/definitions/Point"}},
        ["a"],
        **{"$defs": {"Point": POINT}, "definitions": {"Point": POINT}},
    )
    assert render_schema(schema) == "{ a: { x: number; y: number; }; b?: { x: number; y: number; }; }"


def test_refs_inside_unions_arrays_and_escaped_pointers():
    schema = {
        "type": "array",
        "items": {"anyOf": [{"$ref": "#/$defs/a~1b"}, {"type": "null"}]},
        "$defs": {"a/b": {"enum": ["x", "y"]}},
    }
    assert render_schema(schema) == 'Array<"x" | "y" | null>'


def test_recursive_unresolvable_and_remote_refs_render_unknown():
    tree = obj({"children": {"type": "array", "items": {"$ref": "#"}}, "name": {"type": "string"}}, ["name"])
    assert render_schema(tree) == "{ children?: Array<{ children?: Array<unknown>; name: string; }>; name: string; }"
    assert render_schema(obj({"a": {"$ref": "#/$defs/Missing"}})) == "{ a?: unknown; }"
    assert render_schema(obj({"a": {"$ref": "https://example.org/s.json"}})) == "{ a?: unknown; }"


def test_structured_content_refs_resolve_against_the_tools_output_schema():
    structured = {
        "type": "object",
        "properties": {"start": {"$ref": "#/$defs/Point"}},
        "required": ["start"],
        "$defs": {"Point": POINT},
    }
    assert render_declaration("mcp__s__seg", "function", None, mcp_output_schema(structured)) == (
        "declare const tools: { mcp__s__seg(args: unknown): Promise<CallToolResult<{ start: { x: number; y: number; }; }>>; };"
    )
