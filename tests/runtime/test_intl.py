"""Intl in QuickJS cells gives V8's results (issue 11), checked against V8 itself.

Every expression runs in a cell on the real host and in mini-racer's V8 (V8 14.4 with ICU,
the engine Codex's results come from); both must give the same string, or throw the same
error name and message. What QuickJS cells do not offer throws a ``TypeError`` that names it
and points to ``engine = "v8"``.
"""

from __future__ import annotations

import json

import pytest
from py_mini_racer import MiniRacer
from rt_client import text_items

DATE = "new Date(Date.UTC(2024, 10, 23, 17, 5, 9, 123))"
LOCALES = ["en-US", "fr-FR", "de-DE", "ja-JP", "en-IN", "de-CH", "en-GB", "es-ES", "pt-BR", "zh-CN", "ko-KR", "ru-RU", "ar-EG", "hi-IN", "it-IT", "nl-NL", "sv-SE", "pl-PL", "tr-TR", "he-IL"]  # fmt: skip

PER_LOCALE = [
    "(1234567.891).toLocaleString({loc})",
    "(-0.5).toLocaleString({loc})",
    "new Intl.NumberFormat({loc}, {{style: 'currency', currency: 'EUR'}}).format(-1234.5)",
    "new Intl.NumberFormat({loc}, {{style: 'currency', currency: 'JPY', currencyDisplay: 'name'}}).format(2)",
    "new Intl.NumberFormat({loc}, {{style: 'percent', maximumFractionDigits: 1}}).format(0.12345)",
    "new Intl.NumberFormat({loc}, {{notation: 'compact'}}).format(1234567)",
    "new Intl.NumberFormat({loc}, {{notation: 'compact', compactDisplay: 'long'}}).format(98765)",
    "new Intl.NumberFormat({loc}, {{style: 'unit', unit: 'kilometer-per-hour', unitDisplay: 'long'}}).format(88)",
    "(12345678901234567890n).toLocaleString({loc})",
    "new Intl.DateTimeFormat({loc}, {{dateStyle: 'full', timeStyle: 'long', timeZone: 'UTC'}}).format(" + DATE + ")",
    "new Intl.DateTimeFormat({loc}, {{dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Tokyo'}}).format("
    + DATE
    + ")",
    DATE + ".toLocaleString({loc}, {{timeZone: 'America/New_York'}})",
    DATE + ".toLocaleDateString({loc}, {{timeZone: 'Asia/Kolkata', weekday: 'short', month: 'long', day: 'numeric'}})",
    DATE + ".toLocaleTimeString({loc}, {{timeZone: 'Europe/Berlin'}})",
    DATE + ".toLocaleDateString({loc}, {{timeZone: 'UTC'}})",
    "['b', 'a', 'ä', 'Z', 'z', 'ß', 'ss', 'é', 'e', 'ch', 'c', 'ı', 'i'].sort((x, y) => x.localeCompare(y, {loc})).join('|')",
    "new Intl.PluralRules({loc}).select(2) + ' ' + new Intl.PluralRules({loc}, {{type: 'ordinal'}}).select(3)",
    "new Intl.ListFormat({loc}).format(['x', 'y', 'z'])",
    "new Intl.RelativeTimeFormat({loc}, {{numeric: 'auto'}}).format(-1, 'day')",
    "new Intl.NumberFormat({loc}).resolvedOptions().locale",
]

EN_US = [
    "(1234.5).toLocaleString()",
    "(1234.5).toLocaleString('en-US', {style: 'currency', currency: 'USD'})",
    "(1234.5).toLocaleString('en-US', {style: 'currency', currency: 'EUR', currencyDisplay: 'code'})",
    "(1234.5).toLocaleString('en-US', {style: 'currency', currency: 'CAD', currencyDisplay: 'narrowSymbol'})",
    "(-5).toLocaleString('en-US', {style: 'currency', currency: 'USD', currencySign: 'accounting'})",
    "(0.256).toLocaleString('en-US', {style: 'percent'})",
    "(1234567.891).toLocaleString('en-US', {maximumFractionDigits: 0})",
    "(2.5).toLocaleString('en-US', {maximumFractionDigits: 0})",
    "(1.005).toLocaleString('en-US', {maximumFractionDigits: 2})",
    "(42).toLocaleString('en-US', {minimumFractionDigits: 2})",
    "(1234.5).toLocaleString('en-US', {useGrouping: false})",
    "(1234.5).toLocaleString('en-US', {useGrouping: 'min2'})",
    "(5).toLocaleString('en-US', {minimumIntegerDigits: 3})",
    "(123456).toLocaleString('en-US', {maximumSignificantDigits: 2})",
    "(3).toLocaleString('en-US', {signDisplay: 'always'})",
    "(1e21).toLocaleString('en-US')",
    "NaN.toLocaleString('en-US') + ' ' + (-Infinity).toLocaleString('en-US')",
    "new Intl.NumberFormat('en-US', {notation: 'scientific'}).format(123456)",
    "new Intl.NumberFormat('en-US', {style: 'unit', unit: 'megabyte'}).format(512)",
    "new Intl.NumberFormat('en-US').format('1234567890.123456789')",
    "JSON.stringify(new Intl.NumberFormat('en-US', {style: 'currency', currency: 'USD'}).formatToParts(-1234.5))",
    "new Intl.NumberFormat('en-US').formatRange(3, 5)",
    DATE + ".toLocaleString('en-US', {timeZone: 'UTC'})",
    DATE + ".toLocaleString('en-US', {timeZone: 'UTC', hour12: false})",
    DATE + ".toLocaleTimeString('en-US', {timeZone: 'UTC', hour: '2-digit', minute: '2-digit'})",
    DATE + ".toLocaleTimeString('en-US', {timeZone: 'UTC', hourCycle: 'h23', timeStyle: 'short'})",
    DATE + ".toLocaleDateString('en-US', {timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric'})",
    DATE + ".toLocaleDateString('en-US', {timeZone: 'UTC', dateStyle: 'full'})",
    DATE + ".toLocaleString('en-US', {timeZone: 'America/Los_Angeles', timeZoneName: 'short'})",
    DATE + ".toLocaleString('en-US', {timeZone: '+05:30'})",
    "new Intl.DateTimeFormat('en-US', {timeZone: 'UTC', hour: 'numeric', minute: '2-digit', fractionalSecondDigits: 3, second: 'numeric'}).format("
    + DATE
    + ")",
    "new Intl.DateTimeFormat('en-US', {timeZone: 'UTC', era: 'short', year: 'numeric'}).format(new Date(-62198755200000))",
    "new Intl.DateTimeFormat('en-US', {timeZone: 'UTC'}).format(-12219292800000)",
    "new Date(NaN).toLocaleString('en-US')",
    "new Date(0).toLocaleString()",
    "JSON.stringify(new Intl.DateTimeFormat('en-US', {timeZone: 'UTC', dateStyle: 'short'}).formatToParts(0))",
    "new Intl.DateTimeFormat('en-US', {timeZone: 'UTC', dateStyle: 'medium'}).formatRange(0, 86400000 * 3)",
    "JSON.stringify(new Intl.DateTimeFormat('en-US', {timeZone: 'Europe/Paris', hour: 'numeric'}).resolvedOptions())",
    "['a10', 'a2', 'A1', 'a1'].sort(new Intl.Collator('en', {numeric: true}).compare).join()",
    "['résumé', 'resume', 'Resume'].sort(new Intl.Collator('en', {sensitivity: 'base'}).compare).join()",
    "'a'.localeCompare('A') + ' ' + 'a'.localeCompare('á', 'en', {sensitivity: 'base'}) + ' ' + 'a'.localeCompare('b')",
    "['z', 'ä', 'a'].sort(new Intl.Collator('sv').compare).join() + ' ' + ['z', 'ä', 'a'].sort(new Intl.Collator('de').compare).join()",
    "JSON.stringify(new Intl.Collator('de', {usage: 'search', sensitivity: 'base'}).resolvedOptions())",
    "[1234.5, new Date(0), null, 'x'].toLocaleString('de-DE', {timeZone: 'UTC'})",
    "'istanbul'.toLocaleUpperCase('tr-TR') + ' ' + 'İ'.toLocaleLowerCase('en-US').length",
    "Intl.getCanonicalLocales(['EN-us', 'zh-hant-tw']).join()",
    "Intl.supportedValuesOf('currency').length > 100",
    "Intl.NumberFormat.supportedLocalesOf(['fr-FR', 'xx-XX']).join()",
    "new Intl.DisplayNames(['en'], {type: 'region'}).of('DE')",
    "new Intl.DurationFormat('en', {style: 'long'}).format({hours: 1, minutes: 46})",
    "new Intl.PluralRules('en-US', {minimumFractionDigits: 1}).select(1)",
    "JSON.stringify(new Intl.ListFormat('en', {type: 'disjunction'}).formatToParts(['a', 'b']))",
    "new Intl.RelativeTimeFormat('en', {style: 'short'}).format(3, 'hours')",
    "Intl.NumberFormat('en-US').format(7) + ' ' + (Intl.NumberFormat() instanceof Intl.NumberFormat)",
    "Object.prototype.toString.call(new Intl.Collator()) + ' ' + String(Intl)",
    "Object.getOwnPropertyNames(Intl).join()",
    "(() => { const d = Object.getOwnPropertyDescriptor(Intl, 'NumberFormat'); return [typeof d.value, d.writable, d.enumerable, d.configurable].join(); })()",
    "Function.prototype.toString.call(Intl.NumberFormat).replace(/\\s+/g, ' ')",
    "Object.getOwnPropertyNames(Intl.NumberFormat).sort().join() + ' ' + Object.getOwnPropertyNames(Intl.NumberFormat.prototype).sort().join()",
    "Object.getOwnPropertyNames(Number.prototype.toLocaleString).sort().join() + Number.prototype.toLocaleString.name",
    "(() => { class Money extends Intl.NumberFormat { constructor() { super('en-US', {style: 'currency', currency: 'USD'}); } } const m = new Money(); return [m instanceof Money, m instanceof Intl.NumberFormat, m.format(3)].join(); })()",
    "Intl.NumberFormat.name + Intl.NumberFormat.length + Intl.NumberFormat.prototype.resolvedOptions.name",
    "(() => { const f = new Intl.NumberFormat('en-US'); return [f.format === f.format, f.format.name, f.format.length, [1e3, 2e3].map(f.format).join(' ')].join(); })()",
    # errors: same name and message as V8
    "new Intl.NumberFormat('en', {style: 'bogus'})",
    "new Intl.NumberFormat('en', {style: 'currency'})",
    "new Intl.NumberFormat('en', {style: 'currency', currency: 'US'})",
    "new Intl.NumberFormat('en', {maximumFractionDigits: 200})",
    "new Intl.DateTimeFormat('en', {timeZone: 'Mars/Olympus'})",
    "new Intl.DateTimeFormat('en', {dateStyle: 'full', hour: 'numeric'})",
    "new Intl.DateTimeFormat('en').format(NaN)",
    "new Date().toLocaleDateString('en', {timeStyle: 'short'})",
    "new Intl.Collator('not a locale!')",
    "Intl.PluralRules('en')",
    "new Intl.ListFormat('en').format(['a', 1])",
    "Number.prototype.toLocaleString.call('x')",
    "Intl.NumberFormat.prototype.resolvedOptions.call({})",
    "Intl.NumberFormat.prototype.formatToParts.call(1)",
    "Object.getOwnPropertyDescriptor(Intl.DateTimeFormat.prototype, 'format').get.call(new Map())",
    "Object.getOwnPropertyDescriptor(Intl.Collator.prototype, 'compare').get.call([])",
    "Intl.PluralRules.prototype.select.call(new (class Foo {})())",
    "(0).toLocaleString('en-US', {style: 'unit'})",
    "(0n).toLocaleString('en-US', {style: 'currency'})",
    "'a'.localeCompare('b', 'en', {sensitivity: 'bogus'})",
    "new Date(0).toLocaleTimeString('en', {dateStyle: 'short'})",
]


def expressions_program(expressions: list[str]) -> str:
    """JS that evaluates each expression and leaves ``__out``: its String, or ``Name: message``."""
    cases = ",\n".join(f"() => ({e})" for e in expressions)
    return (
        f"const __cases = [\n{cases}\n];\nconst __out = [];\n"
        "for (const f of __cases) {\n"
        "  try { __out.push(String(f())); } catch (e) { __out.push(e.name + ': ' + e.message); }\n"
        "}\n"
    )


def in_v8(expressions: list[str]) -> list[str]:
    """Each expression's result in mini-racer's V8."""
    with MiniRacer() as v8:
        return json.loads(v8.eval(expressions_program(expressions) + "JSON.stringify(__out)"))


async def in_quickjs(host, expressions: list[str]) -> list[str]:
    """Each expression's result in a QuickJS cell on the host."""
    response = await host.run(expressions_program(expressions) + "text(JSON.stringify(__out));")
    (body,) = response.values()
    assert body.get("error_text") is None, body["error_text"]
    return json.loads(text_items(response)[0])


def assert_same(expressions: list[str], ours: list[str], v8: list[str]) -> None:
    differing = [(e, o, v) for e, o, v in zip(expressions, ours, v8, strict=True) if o != v]
    assert differing == [], "\n".join(f"{e}\n  QuickJS: {o!r}\n  V8:      {v!r}" for e, o, v in differing)


@pytest.mark.parametrize("locale", LOCALES)
async def test_each_locale_formats_as_v8(host, locale):
    """Numbers, currencies, dates, collation, plurals, lists and relative times in 20 locales."""
    expressions = [template.format(loc=json.dumps(locale)) for template in PER_LOCALE]
    assert_same(expressions, await in_quickjs(host, expressions), in_v8(expressions))


async def test_en_us_options_and_errors_equal_v8(host):
    """The option bags models use, the other Intl services and V8's error texts, in en-US."""
    assert_same(EN_US, await in_quickjs(host, EN_US), in_v8(EN_US))


async def test_known_values_in_en_us(host):
    """Pinned strings, so a V8 that changed with mini-racer cannot move both sides unnoticed."""
    expressions = [
        "(1234567.891).toLocaleString('en-US')",
        DATE + ".toLocaleString('en-US', {timeZone: 'UTC'})",
        "new Intl.DateTimeFormat('fr-FR', {dateStyle: 'full', timeZone: 'UTC'}).format(" + DATE + ")",
        "(1234.5).toLocaleString('de-DE', {style: 'currency', currency: 'EUR'})",
        "['b', 'a', 'C', 'ä'].sort((x, y) => x.localeCompare(y)).join()",
    ]
    assert await in_quickjs(host, expressions) == [
        "1,234,567.891",
        "11/23/2024, 5:05:09 PM",
        "samedi 23 novembre 2024",
        "1.234,50\xa0€",
        "a,ä,b,C",
    ]


@pytest.mark.parametrize("name", ["Segmenter", "Locale", "v8BreakIterator"])
async def test_what_quickjs_lacks_is_a_typeerror_naming_it(host, name):
    """Never a misleading message: the error names the missing part and the V8 engine."""
    response = await host.run(f"try {{ new Intl.{name}('en'); }} catch (e) {{ text(e.name + ': ' + e.message); }}")
    assert text_items(response) == [f'TypeError: Intl.{name} is not supported by the QuickJS engine; use engine = "v8"']


async def test_a_cell_replacing_builtins_does_not_steer_intl(host):
    """The prelude's Intl uses intrinsics captured before the cell ran."""
    source = (
        "JSON.stringify = () => 'tampered'; JSON.parse = () => ({ok: 'tampered'});\n"
        "Object.defineProperty(Object.prototype, 'error', {get() { return {name: 'Error', message: 'tampered'}; }});\n"
        "Array.prototype.push = () => { throw new Error('tampered'); };\n"
        "String.prototype.slice = () => 'tampered';\n"
        "text((1234.5).toLocaleString('de-DE'));\n"
        "text(new Intl.NumberFormat('en-US', {style: 'percent'}).format(0.5));\n"
        "text(['b', 'a'].sort((x, y) => x.localeCompare(y)).join());\n"
    )
    assert text_items(await host.run(source)) == ["1.234,5", "50%", "a,b"]


async def test_intl_members_can_be_replaced_before_first_use(host):
    """Intl's members are writable data properties, also before anything loaded them."""
    source = (
        "Intl.NumberFormat = 5;\n"
        "text(String(Intl.NumberFormat) + ' ' + typeof Intl.Collator);\n"
        "const d = Object.getOwnPropertyDescriptor(Intl, 'NumberFormat');\n"
        "text([d.value, d.writable, d.enumerable, d.configurable].join());\n"
    )
    assert text_items(await host.run(source)) == ["5 function", "5,true,false,true"]


async def test_intl_errors_show_only_the_cells_frames(host):
    """The runtime's own functions never appear in a stack (they are all ``__cm_*`` or proxies)."""
    source = (
        "try { new Intl.NumberFormat('en', {style: 'x'}); } catch (e) { text(e.stack); }\n"
        "try { Intl.PluralRules.prototype.select.call({}); } catch (e) { text(e.stack); }\n"
        "try { new Intl.NumberFormat('en').format(Symbol()); } catch (e) { text(e.stack); }\n"
    )
    assert text_items(await host.run(source)) == [
        "RangeError: Value x out of range for Intl.NumberFormat options property style\n    at exec_main.mjs:1:7",
        "TypeError: Method Intl.PluralRules.prototype.select called on incompatible receiver #<Object>\n    at exec_main.mjs:2:41",
        "TypeError: Cannot convert a Symbol value to a number\n    at exec_main.mjs:3:42",
    ]
