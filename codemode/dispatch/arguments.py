"""Checking a tool call's arguments against the tool's input schema.

Python's ``jsonschema`` decides, and its first error (``best_match``) words the message the
cell sees. It takes about 12 µs for the arguments of a small object schema, which a cell of a
thousand parallel calls pays a thousand times on the kernel's event loop. ``jsonschema-rs`` (a
Rust implementation of the same drafts) answers the same question in about 0.2 µs, so it is
asked first, and only its *yes* is taken: arguments it finds invalid, or cannot take, go to
``jsonschema`` as before, so every rejection keeps ``jsonschema``'s wording.

That is sound only where a *yes* of ``jsonschema-rs`` is a *yes* of ``jsonschema``: for the
drafts 6, 7, 2019-09 and 2020-12, and schemas made only of the keywords in
:data:`FAST_KEYWORDS`, with local ``$ref`` only. Other schemas (``pattern``, whose regular
expression dialects differ; ``multipleOf``, whose float arithmetic differs; remote references;
draft 4, where ``1.0`` is not an integer) are checked by ``jsonschema`` alone. Formats are
annotations on both sides (no format checker runs). ``tests/dispatch/test_arguments.py``
compares the two on generated schemas and arguments.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from codemode.schema import ValidationError, best_match, jsonschema

FAST_KEYWORDS = frozenset(
    {
        # assertions both implementations evaluate alike
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "$ref",
        "$defs",
        "definitions",
        # annotations
        "$schema",
        "$comment",
        "title",
        "description",
        "default",
        "examples",
        "format",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)
"""The keywords a schema may use for ``jsonschema-rs`` to be asked first."""

_SUBSCHEMA = ("additionalProperties", "items", "not")
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions")
_FAST_DRAFTS = {
    jsonschema.Draft6Validator: "Draft6Validator",
    jsonschema.Draft7Validator: "Draft7Validator",
    jsonschema.Draft201909Validator: "Draft201909Validator",
    jsonschema.Draft202012Validator: "Draft202012Validator",
}
"""``jsonschema``'s validator classes whose drafts ``jsonschema-rs`` is asked for, with the
name of its class for the same draft."""
_REF_SIBLINGS_IGNORED = ("Draft6Validator", "Draft7Validator")


class ArgumentSchema:
    """A tool's input schema, ready to check arguments.

    Build it with :meth:`build`; :meth:`first_error` gives ``jsonschema``'s best error for
    arguments (a JSON value as decoded by ``json``), or None when they are valid.
    """

    def __init__(self, checker: Any, fast: Any | None) -> None:
        self._checker = checker
        self._fast = fast

    @classmethod
    def build(cls, schema: dict[str, Any]) -> ArgumentSchema:
        """Raises ``jsonschema.SchemaError`` for a schema that is not valid for its draft, and
        whatever ``jsonschema`` raises for one it cannot read."""
        checker_class = jsonschema.validators.validator_for(schema)
        checker_class.check_schema(schema)
        return cls(checker_class(schema), _fast_validator(schema, checker_class))

    @property
    def fast(self) -> bool:
        """Whether ``jsonschema-rs`` is asked first for this schema."""
        return self._fast is not None

    def first_error(self, arguments: Any) -> ValidationError | None:
        """``jsonschema``'s ``best_match`` error for ``arguments``, or None. Raises what
        ``jsonschema`` raises for a schema it cannot apply (an unresolvable ``$ref``)."""
        if self._fast is not None:
            try:
                if self._fast.is_valid(arguments):
                    return None
            except Exception:  # noqa: BLE001 - a value it cannot take (a lone surrogate): jsonschema decides
                pass
        return best_match(self._checker.iter_errors(arguments))


def _fast_validator(schema: dict[str, Any], checker_class: Any) -> Any | None:
    """A ``jsonschema-rs`` validator of the same draft for ``schema`` when its *yes* can be
    trusted (see the module docstring), else None."""
    draft = _FAST_DRAFTS.get(checker_class)
    if draft is None or not all(_fast_node(node, draft) for node in _schema_nodes(schema)):
        return None
    import jsonschema_rs  # a compiled extension: imported at the first schema, not at start-up

    try:
        return getattr(jsonschema_rs, draft)(schema, validate_formats=False, retriever=_no_retrieval)
    except Exception:  # noqa: BLE001 - a schema it reads otherwise: jsonschema alone
        return None


def _no_retrieval(uri: str) -> Any:
    raise LookupError(f"{uri} is not fetched")


def _fast_node(node: Any, draft: str) -> bool:
    if isinstance(node, bool):
        return True
    if not isinstance(node, dict) or not FAST_KEYWORDS.issuperset(node):
        return False
    ref = node.get("$ref")
    if ref is None:
        return True
    if not isinstance(ref, str) or not ref.startswith("#"):
        return False
    # Before 2019-09 a $ref's siblings are ignored; keep the simple case where it has none.
    return draft not in _REF_SIBLINGS_IGNORED or len(node) == 1


def _schema_nodes(schema: Any) -> Iterator[Any]:
    """``schema`` and every subschema under the keywords of :data:`FAST_KEYWORDS`."""
    stack = [schema]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, dict):
            continue
        for key in _SUBSCHEMA:
            value = node.get(key)
            if isinstance(value, (dict, bool)):
                stack.append(value)
        for key in _SUBSCHEMA_LISTS:
            value = node.get(key)
            if isinstance(value, list):
                stack.extend(value)
        for key in _SUBSCHEMA_MAPS:
            value = node.get(key)
            if isinstance(value, dict):
                stack.extend(value.values())
