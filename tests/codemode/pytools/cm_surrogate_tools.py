"""Python tools whose results hold lone UTF-16 surrogates (tests/codemode/test_surrogates.py)."""

import codemode


@codemode.tool
def lone_surrogate() -> str:
    """Returns a string with a lone high surrogate."""
    return "a\ud800b"


@codemode.tool
def surrogate_object() -> dict:
    """Returns an object whose values hold lone low surrogates and a pair stored as two code points."""
    return {"k": ["x\udc00", "\ud83d\ude00"], "v": "\udfff"}
