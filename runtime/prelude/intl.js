// Intl, and the locale methods of Number, BigInt, Date, String and Array, as V8 gives them.
// QuickJS has no Intl: every call crosses to the host as one "intl" request of JSON data
// (runtime/intl/: V8 constructs the object and checks its options; ICU or V8 answers).
// An object is named by its key: the JSON text of its kind, locales and options snapshot.

const __cm_RangeError = RangeError;
const __cm_date_time = __cm_uncurry(Date.prototype.getTime);
const __cm_date_now = Date.now;
const __cm_number_value = __cm_uncurry(Number.prototype.valueOf);
const __cm_bigint_value = __cm_uncurry(BigInt.prototype.valueOf);
const __cm_upper_locale = __cm_uncurry(String.prototype.toLocaleUpperCase);
const __cm_lower_locale = __cm_uncurry(String.prototype.toLocaleLowerCase);
const __cm_to_string_tag = Symbol.toStringTag;
const __cm_intl_slots = new __cm_WeakMap();
const __cm_intl_errors = __cm_record();
__cm_intl_errors.TypeError = TypeError;
__cm_intl_errors.RangeError = RangeError;
__cm_intl_errors.SyntaxError = SyntaxError;
__cm_intl_errors.ReferenceError = ReferenceError;
const __cm_intl_max_locales = 10000;

function __cm_intl_request(request) {
  const reply = __cm_call("intl", __cm_json_stringify(request));
  if (__cm_has_own(reply, "error")) {
    const error = reply.error;
    const Ctor = __cm_has_own(__cm_intl_errors, error.name) ? __cm_intl_errors[error.name] : __cm_Error;
    throw new Ctor(error.message);
  }
  return reply.ok;
}

function __cm_intl_tag(name) {
  const tag = __cm_record();
  tag.$ = name;
  return tag;
}

// A primitive as it crosses (JSON, with tags for NaN, the infinities, -0, undefined and BigInts).
function __cm_intl_value(v) {
  const t = typeof v;
  if (t === "number") {
    if (v !== v) return __cm_intl_tag("NaN");
    if (v === Infinity || v === -Infinity) return __cm_intl_tag(v > 0 ? "Infinity" : "-Infinity");
    return v === 0 && 1 / v < 0 ? __cm_intl_tag("-0") : v;
  }
  if (t === "undefined") return __cm_intl_tag("undefined");
  if (t === "bigint") {
    const tag = __cm_record();
    tag.$bigint = __cm_String(v);
    return tag;
  }
  if (t === "symbol") throw new __cm_TypeError("Cannot convert a Symbol value to a string");
  if (t === "object" && v !== null || t === "function") return __cm_String(v);
  return v;
}

function __cm_intl_is_object(v) {
  return typeof v === "object" && v !== null || typeof v === "function";
}

// The options a constructor reads, as primitives; `specs` names them ("#" numbers, "?" booleans).
function __cm_intl_options(options, specs) {
  if (!__cm_intl_is_object(options)) return __cm_intl_value(options);
  const out = __cm_record();
  for (let i = 0; i < specs.length; i++) {
    let name = specs[i];
    const type = name[0] === "#" || name[0] === "?" ? name[0] : "";
    if (type !== "") name = __cm_slice(name, 1);
    const v = options[name];
    if (v === undefined) continue;
    if (!__cm_intl_is_object(v)) out[name] = __cm_intl_value(v);
    else out[name] = type === "#" ? __cm_intl_value(__cm_Number(v)) : type === "?" ? true : __cm_String(v);
  }
  return out;
}

function __cm_intl_locales(locales) {
  if (typeof locales === "string" || !__cm_intl_is_object(locales)) return __cm_intl_value(locales);
  const out = __cm_list();
  const length = __cm_Number(locales.length);
  const n = length > 0 ? __cm_trunc(length < __cm_intl_max_locales ? length : __cm_intl_max_locales) : 0;
  for (let i = 0; i < n; i++) {
    if (!(i in locales)) continue;
    const v = locales[i];
    __cm_push(out, __cm_intl_is_object(v) ? __cm_String(v) : __cm_intl_value(v));
  }
  return out;
}

function __cm_intl_key(kind, locales, options, specs) {
  const spec = __cm_record();
  spec.kind = kind;
  if (locales !== undefined) spec.locales = __cm_intl_locales(locales);
  if (options !== undefined) spec.options = __cm_intl_options(options, specs);
  return __cm_json_stringify(spec);
}

function __cm_intl_call(key, method, args) {
  const request = __cm_record();
  request.op = "call";
  request.key = key;
  request.method = method;
  request.args = args;
  return __cm_intl_request(request);
}

function __cm_intl_static(op, args, kind) {
  const request = __cm_record();
  request.op = op;
  request.args = args;
  if (kind !== undefined) request.kind = kind;
  return __cm_intl_request(request);
}

// Argument conversions, by letter: n number, d date (undefined: now), D date, s string,
// l list of strings, u duration record.
function __cm_intl_arg(letter, v) {
  if (letter === "s") return __cm_intl_value(__cm_String(v));
  if (letter === "d" || letter === "D") {
    if (v === undefined) return letter === "d" ? __cm_date_now() : __cm_intl_value(v);
    if (typeof v === "symbol") throw new __cm_TypeError("Cannot convert a Symbol value to a number");
    return __cm_intl_value(__cm_Number(v));
  }
  if (letter === "n") {
    if (typeof v === "symbol") throw new __cm_TypeError("Cannot convert a Symbol value to a number");
    return __cm_intl_value(__cm_intl_is_object(v) ? __cm_Number(v) : v);
  }
  if (letter === "l") {
    const out = __cm_list();
    if (v === undefined) return out;
    const items = __cm_array_from(v);
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (__cm_intl_is_object(item)) throw new __cm_TypeError("Iterable yielded " + __cm_String(item) + " which is not a string");
      __cm_push(out, __cm_intl_value(item));
    }
    return out;
  }
  if (!__cm_intl_is_object(v)) return __cm_intl_value(v);
  const out = __cm_record();
  const units = __cm_intl_duration_units;
  for (let i = 0; i < units.length; i++) {
    const x = v[units[i]];
    if (x !== undefined) out[units[i]] = __cm_intl_value(__cm_intl_is_object(x) ? __cm_Number(x) : x);
  }
  return out;
}

const __cm_intl_duration_units = ["years", "months", "weeks", "days", "hours", "minutes", "seconds",
  "milliseconds", "microseconds", "nanoseconds"];

function __cm_intl_args(letters, a, b) {
  const out = __cm_list();
  if (letters.length > 0) __cm_push(out, __cm_intl_arg(letters[0], a));
  if (letters.length > 1) __cm_push(out, __cm_intl_arg(letters[1], b));
  return out;
}

// A receiver as V8's messages show it.
function __cm_intl_shown(v) {
  if (typeof v === "function" || typeof v === "symbol" || !__cm_intl_is_object(v)) return __cm_String(v);
  if (__cm_is_array(v)) return "[object Array]";
  return __cm_get_prototype_of(v) === null ? "[object Object]" : "#<" + __cm_constructor_name(v) + ">";
}

// The object's slot; V8's TypeError for another receiver (the legacy NumberFormat and
// DateTimeFormat name their unwrapping step for an object that is none).
function __cm_intl_slot(obj, kind, method) {
  const slot = __cm_intl_is_object(obj) ? __cm_weak_get(__cm_intl_slots, obj) : undefined;
  if (slot !== undefined && slot.kind === kind) return slot;
  const getter = __cm_starts_with(method, "get ");
  const path = (getter ? "get " : "") + "Intl." + kind + ".prototype." + (getter ? __cm_slice(method, 4) : method);
  let text = "Method " + path + " called on incompatible receiver " + __cm_intl_shown(obj);
  const unwraps = (method === "resolvedOptions" || method === "get format") && (kind === "NumberFormat" || kind === "DateTimeFormat");
  if (unwraps && __cm_intl_is_object(obj)) {
    const shown = kind === "NumberFormat" ? "undefined" : __cm_intl_shown(obj);
    text = "Method Unwrap" + kind + " called on incompatible receiver " + shown;
  }
  throw new __cm_TypeError(text);
}

// A function as built-ins show it: `name`, `length`, no enumerable keys.
function __cm_intl_named(fn, name, length) {
  __cm_define_value(fn, "length", length, false, false, true);
  __cm_define_value(fn, "name", name, false, false, true);
  return fn;
}

function __cm_intl_method(proto, kind, name, length, letters) {
  const fn = function () {
    const slot = __cm_intl_slot(this, kind, name);
    if (name === "resolvedOptions") return __cm_intl_call(slot.key, name, __cm_list());
    return __cm_intl_call(slot.key, name, __cm_intl_args(letters, arguments[0], arguments[1]));
  };
  __cm_define_value(proto, name, __cm_intl_named(fn, name, length), true, false, true);
}

// `format` / `compare`: an accessor returning a function bound to the object, made once.
function __cm_intl_bound(proto, kind, name, length, letters) {
  const get = function () {
    const slot = __cm_intl_slot(this, kind, "get " + name);
    if (slot.bound === undefined) {
      const key = slot.key;
      slot.bound = __cm_intl_named(function (a, b) {
        return __cm_intl_call(key, name, __cm_intl_args(letters, a, b));
      }, "", length);
    }
    return slot.bound;
  };
  __cm_define_property(proto, name, {
    __proto__: null, get: __cm_intl_named(get, "get " + name, 0), enumerable: false, configurable: true,
  });
}

// `methods`: [name, length, argument letters] (a name starting with "get " is an accessor).
function __cm_intl_class(kind, specs, legacy, methods) {
  const proto = {};
  const ctor = function (locales, options) {
    if (new.target === undefined && !legacy) throw new __cm_TypeError("Constructor Intl." + kind + " requires 'new'");
    const key = __cm_intl_key(kind, locales, options, specs);
    const request = __cm_record();
    request.op = "new";
    request.key = key;
    __cm_intl_request(request);
    let prototype = proto;
    if (new.target !== undefined && new.target !== ctor && __cm_intl_is_object(new.target.prototype)) {
      prototype = new.target.prototype;
    }
    const obj = __cm_object_create(prototype);
    const slot = __cm_record();
    slot.kind = kind;
    slot.key = key;
    __cm_weak_set(__cm_intl_slots, obj, slot);
    return obj;
  };
  __cm_intl_named(ctor, kind, 0);
  __cm_define_value(ctor, "prototype", proto, false, false, false);
  __cm_define_value(proto, "constructor", ctor, true, false, true);
  __cm_define_value(proto, __cm_to_string_tag, "Intl." + kind, false, false, true);
  for (let i = 0; i < methods.length; i++) {
    const m = methods[i];
    if (__cm_starts_with(m[0], "get ")) __cm_intl_bound(proto, kind, __cm_slice(m[0], 4), m[1], m[2]);
    else __cm_intl_method(proto, kind, m[0], m[1], m[2]);
  }
  __cm_define_value(ctor, "supportedLocalesOf", __cm_intl_named(function (locales, options) {
    const args = __cm_list();
    __cm_push(args, locales === undefined ? __cm_intl_value(undefined) : __cm_intl_locales(locales));
    __cm_push(args, __cm_intl_options(options, ["localeMatcher"]));
    return __cm_intl_static("supportedLocalesOf", args, kind);
  }, "supportedLocalesOf", 1), true, false, true);
  return ctor;
}

function __cm_intl_unsupported(kind) {
  return __cm_intl_named(function () {
    throw new __cm_TypeError("Intl." + kind + ' is not supported by the QuickJS engine; use engine = "v8"');
  }, kind, 0);
}

const __cm_intl_digits = ["#minimumIntegerDigits", "#minimumFractionDigits", "#maximumFractionDigits",
  "#minimumSignificantDigits", "#maximumSignificantDigits", "#roundingIncrement", "roundingMode",
  "roundingPriority", "trailingZeroDisplay"];
const __cm_nf_specs = ["localeMatcher", "numberingSystem", "style", "currency", "currencyDisplay", "currencySign",
  "unit", "unitDisplay", "notation", "compactDisplay", "useGrouping", "signDisplay", ...__cm_intl_digits];
const __cm_dtf_specs = ["localeMatcher", "calendar", "numberingSystem", "?hour12", "hourCycle", "timeZone",
  "weekday", "era", "year", "month", "day", "dayPeriod", "hour", "minute", "second", "#fractionalSecondDigits",
  "timeZoneName", "formatMatcher", "dateStyle", "timeStyle"];
const __cm_collator_specs = ["usage", "localeMatcher", "collation", "?numeric", "caseFirst", "sensitivity",
  "?ignorePunctuation"];
const __cm_duration_specs = ["localeMatcher", "numberingSystem", "style", "#fractionalDigits"];
for (let i = 0; i < __cm_intl_duration_units.length; i++) {
  __cm_push(__cm_duration_specs, __cm_intl_duration_units[i]);
  __cm_push(__cm_duration_specs, __cm_intl_duration_units[i] + "Display");
}

const __cm_intl = {};
const __cm_intl_classes = [
  ["DateTimeFormat", __cm_dtf_specs, true, [["get format", 1, "d"], ["formatToParts", 1, "d"],
    ["formatRange", 2, "DD"], ["formatRangeToParts", 2, "DD"], ["resolvedOptions", 0, ""]]],
  ["NumberFormat", __cm_nf_specs, true, [["get format", 1, "n"], ["formatToParts", 1, "n"],
    ["formatRange", 2, "nn"], ["formatRangeToParts", 2, "nn"], ["resolvedOptions", 0, ""]]],
  ["Collator", __cm_collator_specs, true, [["get compare", 2, "ss"], ["resolvedOptions", 0, ""]]],
  ["PluralRules", ["localeMatcher", "type", ...__cm_intl_digits], false,
    [["select", 1, "n"], ["selectRange", 2, "nn"], ["resolvedOptions", 0, ""]]],
  ["RelativeTimeFormat", ["localeMatcher", "numberingSystem", "style", "numeric"], false,
    [["format", 2, "ns"], ["formatToParts", 2, "ns"], ["resolvedOptions", 0, ""]]],
  ["ListFormat", ["localeMatcher", "type", "style"], false,
    [["format", 1, "l"], ["formatToParts", 1, "l"], ["resolvedOptions", 0, ""]]],
  ["DisplayNames", ["localeMatcher", "style", "type", "fallback", "languageDisplay"], false,
    [["of", 1, "s"], ["resolvedOptions", 0, ""]]],
  ["DurationFormat", __cm_duration_specs, false,
    [["format", 1, "u"], ["formatToParts", 1, "u"], ["resolvedOptions", 0, ""]]],
];
__cm_define_value(__cm_intl, "getCanonicalLocales", __cm_intl_named(function (locales) {
  const args = __cm_list();
  __cm_push(args, locales === undefined ? __cm_intl_value(undefined) : __cm_intl_locales(locales));
  return __cm_intl_static("getCanonicalLocales", args);
}, "getCanonicalLocales", 1), true, false, true);
__cm_define_value(__cm_intl, "supportedValuesOf", __cm_intl_named(function (key) {
  const args = __cm_list();
  __cm_push(args, __cm_intl_value(__cm_String(key)));
  return __cm_intl_static("supportedValuesOf", args);
}, "supportedValuesOf", 1), true, false, true);
for (let i = 0; i < __cm_intl_classes.length; i++) {
  const c = __cm_intl_classes[i];
  if (c[0] === "PluralRules") {
    __cm_define_value(__cm_intl, "v8BreakIterator", __cm_intl_unsupported("v8BreakIterator"), true, false, true);
  }
  __cm_define_value(__cm_intl, c[0], __cm_intl_class(c[0], c[1], c[2], c[3]), true, false, true);
  if (c[0] === "ListFormat") __cm_define_value(__cm_intl, "Locale", __cm_intl_unsupported("Locale"), true, false, true);
  if (c[0] === "DisplayNames") __cm_define_value(__cm_intl, "Segmenter", __cm_intl_unsupported("Segmenter"), true, false, true);
}
__cm_define_value(__cm_intl, __cm_to_string_tag, "Intl", false, false, true);
__cm_define_value(globalThis, "Intl", __cm_intl, true, false, true);

// ---- the locale methods of the built-ins -------------------------------------------------

function __cm_intl_replace(target, name, length, fn) {
  __cm_define_value(target, name, __cm_intl_named(fn, name, length), true, false, true);
}

function __cm_intl_one(value) {
  const args = __cm_list();
  __cm_push(args, value);
  return args;
}

function __cm_intl_this_value(read, value, what) {
  try {
    return read(value);
  } catch (e) {
    __cm_end_if_out_of_memory(e);
    throw new __cm_TypeError(what);
  }
}

__cm_intl_replace(Number.prototype, "toLocaleString", 0, function () {
  const x = __cm_intl_this_value(__cm_number_value, this, "Number.prototype.toLocaleString requires that 'this' be a Number");
  const key = __cm_intl_key("Number:toLocaleString", arguments[0], arguments[1], __cm_nf_specs);
  return __cm_intl_call(key, "format", __cm_intl_one(__cm_intl_value(x)));
});

__cm_intl_replace(BigInt.prototype, "toLocaleString", 0, function () {
  const x = __cm_intl_this_value(__cm_bigint_value, this, "BigInt.prototype.toLocaleString requires that 'this' be a BigInt");
  const key = __cm_intl_key("BigInt:toLocaleString", arguments[0], arguments[1], __cm_nf_specs);
  return __cm_intl_call(key, "format", __cm_intl_one(__cm_intl_value(x)));
});

function __cm_intl_date_method(name) {
  __cm_intl_replace(Date.prototype, name, 0, function () {
    const t = __cm_intl_this_value(__cm_date_time, this, "this is not a Date object.");
    if (t !== t) return "Invalid Date";
    const key = __cm_intl_key("Date:" + name, arguments[0], arguments[1], __cm_dtf_specs);
    return __cm_intl_call(key, "format", __cm_intl_one(t));
  });
}
__cm_intl_date_method("toLocaleString");
__cm_intl_date_method("toLocaleDateString");
__cm_intl_date_method("toLocaleTimeString");

__cm_intl_replace(String.prototype, "localeCompare", 1, function (that) {
  if (this === undefined || this === null) {
    throw new __cm_TypeError("String.prototype.localeCompare called on null or undefined");
  }
  const args = __cm_list();
  __cm_push(args, __cm_String(this));
  __cm_push(args, __cm_String(that));
  return __cm_intl_call(__cm_intl_key("String:localeCompare", arguments[1], arguments[2], __cm_collator_specs), "compare", args);
});

function __cm_intl_case_method(name, plain) {
  __cm_intl_replace(String.prototype, name, 0, function () {
    if (this === undefined || this === null) throw new __cm_TypeError("String.prototype." + name + " called on null or undefined");
    const text = __cm_String(this);
    if (arguments[0] === undefined) return plain(text);
    const args = __cm_list();
    __cm_push(args, text);
    __cm_push(args, __cm_intl_locales(arguments[0]));
    return __cm_intl_static(name, args);
  });
}
__cm_intl_case_method("toLocaleUpperCase", __cm_upper_locale);
__cm_intl_case_method("toLocaleLowerCase", __cm_lower_locale);

// ECMA-402's Array.prototype.toLocaleString: each element's own toLocaleString(locales,
// options), joined with ","; an array met again inside itself gives "" (as V8 does).
const __cm_intl_joining = __cm_list();
__cm_intl_replace(Array.prototype, "toLocaleString", 0, function () {
  const array = __cm_Object(this);
  if (__cm_list_index_of(__cm_intl_joining, array) >= 0) return "";
  __cm_push(__cm_intl_joining, array);
  try {
    const length = __cm_Number(array.length);
    const n = length > 0 ? __cm_trunc(length) : 0;
    let out = "";
    for (let i = 0; i < n; i++) {
      if (i > 0) out += ",";
      const item = array[i];
      if (item !== undefined && item !== null) out += __cm_String(item.toLocaleString(arguments[0], arguments[1]));
    }
    return out;
  } finally {
    __cm_intl_joining.length = __cm_intl_joining.length - 1;
  }
});
