"""``Intl.Collator#compare`` and ``String#localeCompare`` through ICU's collator.

As V8 makes it (``src/objects/js-collator.cc``): the resolved locale, with ``co`` set to
``search`` for ``usage: "search"`` or to the resolved collation; numeric ordering, case
first and punctuation handling from the resolved options; the strength from
``sensitivity`` when one was asked for (tertiary for sorting otherwise). The caller checks
the result against V8 on probe strings before using it (:mod:`.registry`).
"""

from __future__ import annotations

from typing import Any

from codemode.runtime.intl.values import Options, Slow


class Comparer:
    """``compare(a, b)`` of one collator: -1, 0 or 1, as V8 returns."""

    def __init__(self, options: Options) -> None:
        import icu

        resolved = options.resolved
        locale = icu.Locale.forLanguageTag(resolved["locale"])
        collation = "search" if resolved["usage"] == "search" else resolved["collation"]
        if collation != "default":
            locale.setKeywordValue("collation", collation)
        collator = icu.Collator.createInstance(locale)
        attribute, value = icu.UCollAttribute, icu.UCollAttributeValue
        collator.setAttribute(attribute.NUMERIC_COLLATION, value.ON if resolved["numeric"] else value.OFF)
        case_first = {"upper": value.UPPER_FIRST, "lower": value.LOWER_FIRST}.get(resolved["caseFirst"], value.OFF)
        collator.setAttribute(attribute.CASE_FIRST, case_first)
        shifted = value.SHIFTED if resolved["ignorePunctuation"] else value.NON_IGNORABLE
        collator.setAttribute(attribute.ALTERNATE_HANDLING, shifted)
        sensitivity = options.requested.get("sensitivity")
        if sensitivity is None and resolved["usage"] == "sort":
            sensitivity = "variant"
        if sensitivity is not None:
            strength = {"base": value.PRIMARY, "accent": value.SECONDARY, "case": value.PRIMARY}
            collator.setStrength(strength.get(sensitivity, value.TERTIARY))
            if sensitivity == "case":
                collator.setAttribute(attribute.CASE_LEVEL, value.ON)
        self._collator = collator

    def __call__(self, method: str, args: list[Any]) -> Any:
        if method != "compare" or len(args) != 2 or not all(isinstance(a, str) for a in args):
            raise Slow
        try:
            return int(self._collator.compare(args[0], args[1]))
        except UnicodeError as exc:  # a lone surrogate PyICU cannot convert
            raise Slow from exc
