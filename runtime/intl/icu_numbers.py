"""``Intl.NumberFormat`` formatting through ICU: an ICU number skeleton from V8's resolved options.

V8 (``src/objects/js-number-format.cc``) builds an ``icu::number::LocalizedNumberFormatter``
from the options and reports ``resolvedOptions()`` from it; this module goes the other way,
from ``resolvedOptions()`` to the same formatter, written as an ICU number skeleton (ICU's
"Number Skeletons" user guide names every stem used here). The caller checks the result
against V8 on probe values before using it (:mod:`.registry`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from codemode.runtime.intl.values import BigIntValue, Options, Slow

ROUNDING_MODES = {
    "ceil": "rounding-mode-ceiling",
    "floor": "rounding-mode-floor",
    "expand": "rounding-mode-up",
    "trunc": "rounding-mode-down",
    "halfCeil": "rounding-mode-half-ceiling",
    "halfFloor": "rounding-mode-half-floor",
    "halfExpand": "rounding-mode-half-up",
    "halfTrunc": "rounding-mode-half-down",
    "halfEven": "rounding-mode-half-even",
}
SIGNS = {
    "auto": "sign-auto",
    "always": "sign-always",
    "never": "sign-never",
    "exceptZero": "sign-except-zero",
    "negative": "sign-negative",
}
ACCOUNTING_SIGNS = {
    "auto": "sign-accounting",
    "always": "sign-accounting-always",
    "never": "sign-never",
    "exceptZero": "sign-accounting-except-zero",
    "negative": "sign-accounting-negative",
}
GROUPING = {"auto": "group-auto", "always": "group-on-aligned", "min2": "group-min2", False: "group-off"}
CURRENCY_WIDTHS = {
    "symbol": None,
    "narrowSymbol": "unit-width-narrow",
    "code": "unit-width-iso-code",
    "name": "unit-width-full-name",
}
UNIT_WIDTHS = {"short": None, "narrow": "unit-width-narrow", "long": "unit-width-full-name"}
NOTATIONS = {"standard": None, "scientific": "scientific", "engineering": "engineering"}


def _precision(r: dict[str, Any], priority: str) -> str:
    """The precision stem: fraction digits, significant digits, both (rounding priority), or an increment."""
    fraction = sig = ""
    if "maximumFractionDigits" in r:
        lo, hi = r["minimumFractionDigits"], r["maximumFractionDigits"]
        fraction = "precision-integer" if hi == 0 else "." + "0" * lo + "#" * (hi - lo)
    if "maximumSignificantDigits" in r:
        lo, hi = r["minimumSignificantDigits"], r["maximumSignificantDigits"]
        sig = "@" * lo + "#" * (hi - lo)
    increment = r.get("roundingIncrement", 1)
    if increment != 1:
        digits = r["maximumFractionDigits"]
        stem = "precision-increment/" + format(Decimal(increment).scaleb(-digits), f".{digits}f")
    elif fraction and sig:
        base = "." + fraction[1:] if fraction != "precision-integer" else "."
        stem = base + "/" + sig + ("r" if priority == "morePrecision" else "s")
    else:
        stem = fraction or sig
    if r.get("trailingZeroDisplay") == "stripIfInteger":
        stem += "/w"
    return stem


def skeleton(r: dict[str, Any], requested: dict[str, Any] | None = None) -> str:
    """The ICU number skeleton of resolved options ``r`` (``Intl.NumberFormat#resolvedOptions()``).

    A ``morePrecision`` or ``lessPrecision`` the cell asked for wins over the resolved
    ``roundingPriority`` (V8 14.4 reports ``"auto"`` when ``trailingZeroDisplay:
    "stripIfInteger"`` comes with it).
    """
    stems: list[str | None] = []
    style = r["style"]
    if style == "currency":
        stems += ["currency/" + r["currency"], CURRENCY_WIDTHS[r["currencyDisplay"]]]
    elif style == "percent":
        stems += ["percent", "scale/100"]
    elif style == "unit":
        stems += ["unit/" + r["unit"], UNIT_WIDTHS[r["unitDisplay"]]]
    notation = r["notation"]
    if notation == "compact":
        stems.append("compact-long" if r["compactDisplay"] == "long" else "compact-short")
    else:
        stems.append(NOTATIONS[notation])
    asked = (requested or {}).get("roundingPriority")
    stems.append(_precision(r, asked if asked in ("morePrecision", "lessPrecision") else r["roundingPriority"]))
    stems.append(ROUNDING_MODES[r["roundingMode"]])
    if r["minimumIntegerDigits"] > 1:
        stems.append("integer-width/*" + "0" * r["minimumIntegerDigits"])
    stems.append(GROUPING[r["useGrouping"]])
    signs = ACCOUNTING_SIGNS if r.get("currencySign") == "accounting" else SIGNS
    stems.append(signs[r["signDisplay"]])
    stems.append("numbering-system/" + r["numberingSystem"])
    return " ".join(s for s in stems if s)


class NumberFormatter:
    """``format`` of one ``Intl.NumberFormat``: numbers (doubles) and BigInts; other values go to V8."""

    def __init__(self, options: Options) -> None:
        import icu

        locale = icu.Locale.forLanguageTag(options.resolved["locale"])
        self._formatter = icu.NumberFormatter.forSkeleton(skeleton(options.resolved, options.requested)).locale(locale)

    def __call__(self, method: str, args: list[Any]) -> Any:
        if method != "format" or not args:
            raise Slow
        value = args[0]
        if isinstance(value, BigIntValue):
            return str(self._formatter.formatDecimal(value.digits.encode("ascii")))
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise Slow
        return str(self._formatter.formatDouble(float(value)))
