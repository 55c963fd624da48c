"""Tool arguments are checked by jsonschema, with jsonschema-rs asked first only where its
*yes* is jsonschema's: the two are compared on generated schemas and arguments, and the
schemas outside that subset are shown to be left to jsonschema."""

from __future__ import annotations

import jsonschema_rs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemode.dispatch.arguments import ArgumentSchema
from codemode.schema import jsonschema
from codemode.tools.builtins import builtin_tools

DRAFTS = {
    "https://json-schema.org/draft/2020-12/schema": jsonschema.Draft202012Validator,
    "https://json-schema.org/draft/2019-09/schema": jsonschema.Draft201909Validator,
    "http://json-schema.org/draft-07/schema#": jsonschema.Draft7Validator,
    "http://json-schema.org/draft-06/schema#": jsonschema.Draft6Validator,
}

numbers = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, 1, -1, 1.0, 0.5, 2**53 + 1, 1e308]),
    st.floats(allow_nan=False, allow_infinity=False),
)
strings = st.one_of(st.sampled_from(["", "a", "ab", "é", "😀", "a😀"]), st.text(max_size=4))
scalars = st.one_of(st.none(), st.booleans(), numbers, strings)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)
    ),
    max_leaves=10,
)
names = st.sampled_from(["a", "b", "c"])
types = st.sampled_from(["null", "boolean", "integer", "number", "string", "array", "object"])
bounds = st.one_of(st.integers(-3, 3), st.sampled_from([0.5, 1.0, 2**64, -(2**64)]))
counts = st.integers(0, 3)


def leaf_schemas():
    return st.one_of(
        st.builds(lambda t: {"type": t}, st.one_of(types, st.lists(types, min_size=1, max_size=3, unique=True))),
        st.builds(lambda v: {"enum": v}, st.lists(scalars, min_size=1, max_size=3)),
        st.builds(lambda v: {"const": v}, json_values),
        st.builds(
            lambda k, n: {k: n}, st.sampled_from(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]), bounds
        ),
        st.builds(
            lambda k, n: {k: n},
            st.sampled_from(["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"]),
            counts,
        ),
        st.builds(lambda u: {"uniqueItems": u}, st.booleans()),
        st.builds(lambda r: {"required": r}, st.lists(names, max_size=3, unique=True)),
        st.just({"format": "email", "description": "annotations only"}),
        st.booleans(),
    )


def _merged(a, b):
    """Both schemas' keywords in one (a ``$ref`` stays alone: before 2019-09 its siblings are
    ignored, and such schemas are left to jsonschema)."""
    if isinstance(a, dict) and isinstance(b, dict) and "$ref" not in a and "$ref" not in b:
        return {**a, **b}
    return a


def schemas():
    """Schemas of the shared subset; ``{"$ref": "#/$defs/d"}`` points at the root's ``$defs``."""
    return st.recursive(
        st.one_of(leaf_schemas(), st.just({"$ref": "#/$defs/d"})),
        lambda inner: st.one_of(
            st.builds(lambda p: {"properties": p}, st.dictionaries(names, inner, max_size=3)),
            st.builds(lambda s: {"additionalProperties": s}, inner),
            st.builds(lambda s: {"items": s}, inner),
            st.builds(lambda s: {"prefixItems": s}, st.lists(inner, min_size=1, max_size=2)),
            st.builds(
                lambda k, s: {k: s},
                st.sampled_from(["allOf", "anyOf", "oneOf"]),
                st.lists(inner, min_size=1, max_size=3),
            ),
            st.builds(lambda s: {"not": s}, inner),
            st.builds(_merged, inner, inner),
        ),
        max_leaves=6,
    )


def _valid_for(draft, schema):
    try:
        draft.check_schema(schema)
    except jsonschema.SchemaError:
        return False
    return True


@pytest.mark.slow
@pytest.mark.parametrize("dialect", sorted(DRAFTS))
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=schemas(), definition=leaf_schemas(), instances=st.lists(json_values, min_size=1, max_size=8))
def test_a_yes_of_jsonschema_rs_is_a_yes_of_jsonschema(dialect, body, definition, instances):
    schema = {"$schema": dialect, "$defs": {"d": definition}, "allOf": [body]}
    draft = DRAFTS[dialect]
    if not _valid_for(draft, schema):
        return
    checker = draft(schema)
    fast = ArgumentSchema.build(schema)
    assert fast.fast
    for instance in instances:
        assert (fast.first_error(instance) is None) == checker.is_valid(instance), (schema, instance)


@pytest.mark.unit
@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"ms": {"type": "integer", "minimum": 0}}, "required": ["ms"]},
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {"a": {"$ref": "#/definitions/x"}},
            "definitions": {"x": {"type": "string", "maxLength": 3}},
        },
        {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}},
    ],
)
def test_schemas_of_the_shared_subset_are_answered_by_jsonschema_rs_first(schema):
    assert ArgumentSchema.build(schema).fast


@pytest.mark.unit
@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"id": {"type": "string", "pattern": "^[a-z]+$"}}},
        {"type": "object", "properties": {"step": {"type": "number", "multipleOf": 0.1}}},
        {"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"},
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$ref": "#/definitions/x",
            "type": "object",
            "definitions": {"x": {"type": "string"}},
        },
        {"properties": {"a": {"$ref": "https://example.com/remote.json"}}},
        {"type": "object", "dependentRequired": {"a": ["b"]}},
    ],
)
def test_schemas_outside_the_shared_subset_are_left_to_jsonschema(schema):
    assert not ArgumentSchema.build(schema).fast


@pytest.mark.unit
def test_the_builtin_tools_schemas_take_the_fast_path():
    """The speed-up reaches the everyday calls (a thousand parallel sleeps in a cell)."""
    tools = {tool.js_name: tool for tool in builtin_tools()}
    assert ArgumentSchema.build(tools["sleep"].input_schema).fast


@pytest.mark.unit
def test_arguments_jsonschema_rs_cannot_take_are_decided_by_jsonschema():
    schema = {"type": "string", "maxLength": 1}  # the value of a tool that takes any input
    with pytest.raises(UnicodeEncodeError):  # a Rust string holds no lone surrogate
        jsonschema_rs.validator_for(schema).is_valid("\ud800")
    argument_schema = ArgumentSchema.build(schema)
    assert argument_schema.fast
    assert argument_schema.first_error("\ud800") is None
    error = argument_schema.first_error("\ud800\ud800")
    assert (error.validator, error.message) == ("maxLength", "'\\ud800\\ud800' is too long")
