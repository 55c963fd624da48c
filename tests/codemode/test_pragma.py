"""The `// @exec:` pragma: the texts and behaviour of Codex's ``parse_exec_source``."""

import pytest

from codemode.pragma import NOT_OBJECT_MESSAGE, ExecSource, PragmaError, parse_exec_source

pytestmark = pytest.mark.unit

FIELDS = "`yield_time_ms` and `max_output_tokens`"


def error_of(text: str) -> str:
    with pytest.raises(PragmaError) as info:
        parse_exec_source(text)
    return str(info.value)


def test_plain_source_is_returned_whole():
    assert parse_exec_source('text("hi")') == ExecSource('text("hi")', None, None)


def test_pragma_sets_fields_and_is_removed():
    parsed = parse_exec_source('// @exec: {"yield_time_ms": 200, "max_output_tokens": 5}\ntext(1)\n')
    assert parsed == ExecSource("text(1)\n", 200, 5)


def test_leading_whitespace_and_crlf_are_accepted():
    parsed = parse_exec_source('  \t// @exec: {"yield_time_ms": 1}\r\ntext(1)')
    assert parsed.yield_time_ms == 1
    assert parsed.source == "text(1)"


def test_null_means_default():
    assert parse_exec_source('// @exec: {"yield_time_ms": null}\nx').yield_time_ms is None


def test_comment_without_space_is_code():
    text = '//@exec: {"yield_time_ms": 1}\ntext(1)'
    assert parse_exec_source(text) == ExecSource(text)


@pytest.mark.parametrize("text", ["", "   ", "\n\t\n"])
def test_empty_input(text):
    assert error_of(text) == (
        "exec expects raw JavaScript source text (non-empty). Provide JS only, optionally with "
        'first-line `// @exec: {"yield_time_ms": 10000, "max_output_tokens": 1000}`.'
    )


@pytest.mark.parametrize("text", ['// @exec: {"yield_time_ms": 1}', "// @exec: {}\n   \n"])
def test_pragma_without_source(text):
    assert error_of(text) == "exec pragma must be followed by JavaScript source on subsequent lines"


@pytest.mark.parametrize("directive", ["", "[1]", "3", '"x"'])
def test_directive_not_an_object(directive):
    assert error_of(f"// @exec: {directive}\nx") == (
        f"exec pragma must be a JSON object with supported fields {FIELDS}"
    )


def test_invalid_json():
    assert error_of("// @exec: {nope\nx") == (
        f"exec pragma must be valid JSON with supported fields {FIELDS}: "
        "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
    )


def test_unknown_key():
    assert error_of('// @exec: {"timeout": 1}\nx') == (f"exec pragma only supports {FIELDS}; got `timeout`")


@pytest.mark.parametrize(
    "value, detail",
    [
        ("-1", "invalid value: integer `-1`, expected u64"),
        ("1.5", "invalid type: floating point `1.5`, expected u64"),
        ('"10"', 'invalid type: string "10", expected u64'),
        ("true", "invalid type: boolean `true`, expected u64"),
    ],
)
def test_wrong_type(value, detail):
    assert error_of(f'// @exec: {{"max_output_tokens": {value}}}\nx') == (
        f"exec pragma fields {FIELDS} must be non-negative safe integers: {detail}"
    )


@pytest.mark.parametrize("field", ["yield_time_ms", "max_output_tokens"])
def test_above_safe_integer(field):
    assert parse_exec_source(f'// @exec: {{"{field}": {2**53 - 1}}}\nx') is not None
    assert error_of(f'// @exec: {{"{field}": {2**53}}}\nx') == (
        f"exec pragma field `{field}` must be a non-negative safe integer"
    )


RECURSION = f"exec pragma must be valid JSON with supported fields {FIELDS}: recursion limit exceeded at line 1 column"


@pytest.mark.parametrize(
    ("directive", "column"),
    [
        ("[" * 100_000, 128),  # the input: RecursionError before
        ("[" * 100_000 + "]" * 100_000, 128),
        ("{" + '"a":{' * 200, 636),  # the 128th object opens at index 5 * 127
        ('  [ "[[[[", ' + "[" * 127, 137),  # brackets in a string do not count; leading blanks trimmed
        ("[" * 127 + "1" + "]" * 127, None),  # one below serde's limit: parsed (not an object)
    ],
)
def test_deep_nesting_is_serdes_recursion_error(directive, column):
    """serde_json (Codex's parser) stops at 128 levels; Python's json raised RecursionError."""
    expected = NOT_OBJECT_MESSAGE if column is None else f"{RECURSION} {column}"
    assert error_of(f"// @exec: {directive}\ntext(1)") == expected


@pytest.mark.parametrize(
    ("directive", "detail"),
    [
        ("[1 " + "[" * 200, "Expecting ',' delimiter: line 1 column 4 (char 3)"),
        ("{" + "[" * 200, "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
        ('{"a": 1} ' + "[" * 200, "Extra data: line 1 column 10 (char 9)"),
    ],
)
def test_a_syntax_error_before_the_limit_comes_first(directive, detail):
    assert error_of(f"// @exec: {directive}\ntext(1)") == (
        f"exec pragma must be valid JSON with supported fields {FIELDS}: {detail}"
    )
