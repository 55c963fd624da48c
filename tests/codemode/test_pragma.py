"""The `// @exec:` pragma: the texts and behaviour of Codex's ``parse_exec_source``."""

import pytest

from codemode.pragma import ExecSource, PragmaError, parse_exec_source

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
