"""Hypothesis strategies for the JSON values code-mode messages carry."""

from __future__ import annotations

from hypothesis import strategies as st


def json_values(largest_integer: int, max_leaves: int) -> st.SearchStrategy:
    """JSON values: null, booleans, integers from ``-2**63`` to ``largest_integer``, finite
    floats (the numbers JSON has), short strings, and lists and objects of them."""
    leaves = (
        st.none()
        | st.booleans()
        | st.integers(-(2**63), largest_integer)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=12)
    )
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=max_leaves,
    )
