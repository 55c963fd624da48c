// The body of Intl for QuickJS cells, compiled on a cell's first Intl use (see prelude/intl.js,
// which hands in `__cm_env`, the intrinsics captured before cell code ran) and returning
// Intl's members and the built-in methods' implementations. Not part of the prelude's
// concatenation: the host sends this text. Rules, beyond intrinsics.js's: every function
// is named __cm_* (its frames never show), no global is read (a cell may have replaced
// it), and functions a cell sees are made by __cm_intl_native.
"use strict";
const {
  __cm_call, __cm_json_stringify, __cm_has_own, __cm_Error, __cm_record, __cm_list, __cm_push, __cm_String,
  __cm_Number, __cm_Object, __cm_slice, __cm_starts_with, __cm_trunc, __cm_array_from, __cm_is_array,
  __cm_list_index_of, __cm_WeakMap, __cm_weak_get, __cm_weak_set, __cm_define_value, __cm_define_property,
  __cm_object_create, __cm_get_prototype_of, __cm_constructor_name, __cm_end_if_out_of_memory, __cm_intl_native,
  __cm_intl_captured,
} = __cm_env;
const __cm_TypeError = __cm_intl_captured.TypeError;
const __cm_slots = new __cm_WeakMap();
const __cm_max_locales = 10000;
const __cm_errors = __cm_record();
__cm_errors.TypeError = __cm_intl_captured.TypeError;
__cm_errors.RangeError = __cm_intl_captured.RangeError;
__cm_errors.SyntaxError = __cm_intl_captured.SyntaxError;
__cm_errors.ReferenceError = __cm_intl_captured.ReferenceError;

function __cm_request(request) {
  const reply = __cm_call("intl", __cm_json_stringify(request));
  if (__cm_has_own(reply, "error")) {
    const error = reply.error;
    const Ctor = __cm_has_own(__cm_errors, error.name) ? __cm_errors[error.name] : __cm_Error;
    throw new Ctor(error.message);
  }
  return reply.ok;
}

// Argument `i` of an argument list (past its end: undefined, never Array.prototype's).
function __cm_at(args, i) {
  return i < args.length ? args[i] : undefined;
}

function __cm_tag(name) {
  const tag = __cm_record();
  tag.$ = name;
  return tag;
}

// A primitive as it crosses (JSON, with tags for NaN, the infinities, -0, undefined and BigInts).
function __cm_value(v) {
  const t = typeof v;
  if (t === "number") {
    if (v !== v) return __cm_tag("NaN");
    if (v === 1 / 0 || v === -1 / 0) return __cm_tag(v > 0 ? "Infinity" : "-Infinity");
    return v === 0 && 1 / v < 0 ? __cm_tag("-0") : v;
  }
  if (t === "undefined") return __cm_tag("undefined");
  if (t === "bigint") {
    const tag = __cm_record();
    tag.$bigint = __cm_String(v);
    return tag;
  }
  if (t === "symbol") throw new __cm_TypeError("Cannot convert a Symbol value to a string");
  if (t === "object" && v !== null || t === "function") return __cm_String(v);
  return v;
}

function __cm_is_object(v) {
  return typeof v === "object" && v !== null || typeof v === "function";
}

// The options a constructor reads, as primitives; `specs` names them ("#" numbers, "?" booleans).
function __cm_options(options, specs) {
  if (!__cm_is_object(options)) return __cm_value(options);
  const out = __cm_record();
  for (let i = 0; i < specs.length; i++) {
    let name = specs[i];
    const type = name[0] === "#" || name[0] === "?" ? name[0] : "";
    if (type !== "") name = __cm_slice(name, 1);
    const v = options[name];
    if (v === undefined) continue;
    if (!__cm_is_object(v)) out[name] = __cm_value(v);
    else out[name] = type === "#" ? __cm_value(__cm_Number(v)) : type === "?" ? true : __cm_String(v);
  }
  return out;
}

function __cm_locales(locales) {
  if (typeof locales === "string" || !__cm_is_object(locales)) return __cm_value(locales);
  const out = __cm_list();
  const length = __cm_Number(locales.length);
  const n = length > 0 ? __cm_trunc(length < __cm_max_locales ? length : __cm_max_locales) : 0;
  for (let i = 0; i < n; i++) {
    if (!(i in locales)) continue;
    const v = locales[i];
    __cm_push(out, __cm_is_object(v) ? __cm_String(v) : __cm_value(v));
  }
  return out;
}

// An object's key: the JSON text of its kind, locales and options snapshot (made once
// per kind when both are undefined, as in `a.localeCompare(b)`).
const __cm_plain_keys = __cm_record();
function __cm_key(kind, locales, options, specs) {
  if (locales === undefined && options === undefined && __cm_has_own(__cm_plain_keys, kind)) return __cm_plain_keys[kind];
  const spec = __cm_record();
  spec.kind = kind;
  if (locales !== undefined) spec.locales = __cm_locales(locales);
  if (options !== undefined) spec.options = __cm_options(options, specs);
  const key = __cm_json_stringify(spec);
  if (locales === undefined && options === undefined) __cm_plain_keys[kind] = key;
  return key;
}

function __cm_run(key, method, args) {
  const request = __cm_record();
  request.op = "call";
  request.key = key;
  request.method = method;
  request.args = args;
  return __cm_request(request);
}

function __cm_static(op, args, kind) {
  const request = __cm_record();
  request.op = op;
  request.args = args;
  if (kind !== undefined) request.kind = kind;
  return __cm_request(request);
}

const __cm_duration_units = ["years", "months", "weeks", "days", "hours", "minutes", "seconds",
  "milliseconds", "microseconds", "nanoseconds"];

// Argument conversions, by letter: n number, d date (undefined: now), D date, s string,
// l list of strings, u duration record.
function __cm_arg(letter, v) {
  if (letter === "s") return __cm_value(__cm_String(v));
  if (letter === "d" || letter === "D") {
    if (v === undefined) return letter === "d" ? __cm_intl_captured.date_now() : __cm_value(v);
    if (typeof v === "symbol") throw new __cm_TypeError("Cannot convert a Symbol value to a number");
    return __cm_value(__cm_Number(v));
  }
  if (letter === "n") {
    if (typeof v === "symbol") throw new __cm_TypeError("Cannot convert a Symbol value to a number");
    return __cm_value(__cm_is_object(v) ? __cm_Number(v) : v);
  }
  if (letter === "l") {
    const out = __cm_list();
    if (v === undefined) return out;
    const items = __cm_array_from(v);
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (__cm_is_object(item)) throw new __cm_TypeError("Iterable yielded " + __cm_String(item) + " which is not a string");
      __cm_push(out, __cm_value(item));
    }
    return out;
  }
  if (!__cm_is_object(v)) return __cm_value(v);
  const out = __cm_record();
  for (let i = 0; i < __cm_duration_units.length; i++) {
    const x = v[__cm_duration_units[i]];
    if (x !== undefined) out[__cm_duration_units[i]] = __cm_value(__cm_is_object(x) ? __cm_Number(x) : x);
  }
  return out;
}

function __cm_args(letters, args) {
  const out = __cm_list();
  for (let i = 0; i < letters.length; i++) __cm_push(out, __cm_arg(letters[i], __cm_at(args, i)));
  return out;
}

// A receiver as V8's messages show it.
function __cm_shown(v) {
  if (typeof v === "function" || typeof v === "symbol" || !__cm_is_object(v)) return __cm_String(v);
  if (__cm_is_array(v)) return "[object Array]";
  return __cm_get_prototype_of(v) === null ? "[object Object]" : "#<" + __cm_constructor_name(v) + ">";
}

// The object's slot; V8's TypeError for another receiver (the legacy NumberFormat and
// DateTimeFormat name their unwrapping step for an object that is none).
function __cm_slot(obj, kind, method) {
  const slot = __cm_is_object(obj) ? __cm_weak_get(__cm_slots, obj) : undefined;
  if (slot !== undefined && slot.kind === kind) return slot;
  const getter = __cm_starts_with(method, "get ");
  const path = (getter ? "get " : "") + "Intl." + kind + ".prototype." + (getter ? __cm_slice(method, 4) : method);
  let text = "Method " + path + " called on incompatible receiver " + __cm_shown(obj);
  const unwraps = (method === "resolvedOptions" || method === "get format") && (kind === "NumberFormat" || kind === "DateTimeFormat");
  if (unwraps && __cm_is_object(obj)) {
    text = "Method Unwrap" + kind + " called on incompatible receiver " + (kind === "NumberFormat" ? "undefined" : __cm_shown(obj));
  }
  throw new __cm_TypeError(text);
}

function __cm_method(proto, kind, name, length, letters) {
  const call = function __cm_method_call(self, args) {
    const slot = __cm_slot(self, kind, name);
    return __cm_run(slot.key, name, __cm_args(letters, args));
  };
  __cm_define_value(proto, name, __cm_intl_native(name, length, call), true, false, true);
}

// `format` / `compare`: an accessor returning a function bound to the object, made once.
function __cm_bound(proto, kind, name, length, letters) {
  const get = function __cm_bound_get(self) {
    const slot = __cm_slot(self, kind, "get " + name);
    if (slot.bound === undefined) {
      const key = slot.key;
      slot.bound = __cm_intl_native("", length, function __cm_bound_call(ignored, args) {
        return __cm_run(key, name, __cm_args(letters, args));
      });
    }
    return slot.bound;
  };
  __cm_define_property(proto, name, {
    __proto__: null, get: __cm_intl_native("get " + name, 0, get), enumerable: false, configurable: true,
  });
}

// `methods`: [name, length, argument letters] (a name starting with "get " is an accessor).
function __cm_class(kind, specs, legacy, methods) {
  const proto = {};
  const make = function __cm_make(args, newTarget) {
    const key = __cm_key(kind, __cm_at(args, 0), __cm_at(args, 1), specs);
    const request = __cm_record();
    request.op = "new";
    request.key = key;
    __cm_request(request);
    let prototype = proto;
    if (newTarget !== undefined && newTarget !== ctor && __cm_is_object(newTarget.prototype)) prototype = newTarget.prototype;
    const obj = __cm_object_create(prototype);
    const slot = __cm_record();
    slot.kind = kind;
    slot.key = key;
    __cm_weak_set(__cm_slots, obj, slot);
    return obj;
  };
  const call = function __cm_class_call(self, args) {
    if (!legacy) throw new __cm_TypeError("Constructor Intl." + kind + " requires 'new'");
    return make(args, undefined);
  };
  const ctor = __cm_intl_native(kind, 0, call, make);
  __cm_define_value(ctor, "prototype", proto, false, false, false);
  __cm_define_value(proto, "constructor", ctor, true, false, true);
  __cm_define_value(proto, __cm_intl_captured.to_string_tag, "Intl." + kind, false, false, true);
  for (let i = 0; i < methods.length; i++) {
    const m = methods[i];
    if (__cm_starts_with(m[0], "get ")) __cm_bound(proto, kind, __cm_slice(m[0], 4), m[1], m[2]);
    else __cm_method(proto, kind, m[0], m[1], m[2]);
  }
  const supported = function __cm_supported_locales_of(self, args) {
    const list = __cm_list();
    __cm_push(list, __cm_at(args, 0) === undefined ? __cm_value(undefined) : __cm_locales(__cm_at(args, 0)));
    __cm_push(list, __cm_options(__cm_at(args, 1), ["localeMatcher"]));
    return __cm_static("supportedLocalesOf", list, kind);
  };
  __cm_define_value(ctor, "supportedLocalesOf", __cm_intl_native("supportedLocalesOf", 1, supported), true, false, true);
  return ctor;
}

function __cm_unsupported(kind) {
  const refuse = function __cm_refuse() {
    throw new __cm_TypeError("Intl." + kind + ' is not supported by the QuickJS engine; use engine = "v8"');
  };
  return __cm_intl_native(kind, 0, refuse, refuse);
}

function __cm_concat(a, b) {
  const out = __cm_list();
  for (let i = 0; i < a.length; i++) __cm_push(out, a[i]);
  for (let i = 0; i < b.length; i++) __cm_push(out, b[i]);
  return out;
}

const __cm_digits = ["#minimumIntegerDigits", "#minimumFractionDigits", "#maximumFractionDigits",
  "#minimumSignificantDigits", "#maximumSignificantDigits", "#roundingIncrement", "roundingMode",
  "roundingPriority", "trailingZeroDisplay"];
const __cm_nf_specs = __cm_concat(["localeMatcher", "numberingSystem", "style", "currency", "currencyDisplay",
  "currencySign", "unit", "unitDisplay", "notation", "compactDisplay", "useGrouping", "signDisplay"], __cm_digits);
const __cm_dtf_specs = ["localeMatcher", "calendar", "numberingSystem", "?hour12", "hourCycle", "timeZone",
  "weekday", "era", "year", "month", "day", "dayPeriod", "hour", "minute", "second", "#fractionalSecondDigits",
  "timeZoneName", "formatMatcher", "dateStyle", "timeStyle"];
const __cm_collator_specs = ["usage", "localeMatcher", "collation", "?numeric", "caseFirst", "sensitivity",
  "?ignorePunctuation"];
const __cm_duration_specs = __cm_concat(["localeMatcher", "numberingSystem", "style", "#fractionalDigits"], []);
for (let i = 0; i < __cm_duration_units.length; i++) {
  __cm_push(__cm_duration_specs, __cm_duration_units[i]);
  __cm_push(__cm_duration_specs, __cm_duration_units[i] + "Display");
}

const __cm_members = __cm_record();
__cm_members.getCanonicalLocales = __cm_intl_native("getCanonicalLocales", 1, function __cm_canonical(self, args) {
  const list = __cm_list();
  __cm_push(list, __cm_at(args, 0) === undefined ? __cm_value(undefined) : __cm_locales(__cm_at(args, 0)));
  return __cm_static("getCanonicalLocales", list);
});
__cm_members.supportedValuesOf = __cm_intl_native("supportedValuesOf", 1, function __cm_values_of(self, args) {
  const list = __cm_list();
  __cm_push(list, __cm_value(__cm_String(__cm_at(args, 0))));
  return __cm_static("supportedValuesOf", list);
});
__cm_members.DateTimeFormat = __cm_class("DateTimeFormat", __cm_dtf_specs, true, [["get format", 1, "d"],
  ["formatToParts", 1, "d"], ["formatRange", 2, "DD"], ["formatRangeToParts", 2, "DD"], ["resolvedOptions", 0, ""]]);
__cm_members.NumberFormat = __cm_class("NumberFormat", __cm_nf_specs, true, [["get format", 1, "n"],
  ["formatToParts", 1, "n"], ["formatRange", 2, "nn"], ["formatRangeToParts", 2, "nn"], ["resolvedOptions", 0, ""]]);
__cm_members.Collator = __cm_class("Collator", __cm_collator_specs, true, [["get compare", 2, "ss"], ["resolvedOptions", 0, ""]]);
__cm_members.v8BreakIterator = __cm_unsupported("v8BreakIterator");
__cm_members.PluralRules = __cm_class("PluralRules", __cm_concat(["localeMatcher", "type"], __cm_digits), false,
  [["select", 1, "n"], ["selectRange", 2, "nn"], ["resolvedOptions", 0, ""]]);
__cm_members.RelativeTimeFormat = __cm_class("RelativeTimeFormat", ["localeMatcher", "numberingSystem", "style", "numeric"],
  false, [["format", 2, "ns"], ["formatToParts", 2, "ns"], ["resolvedOptions", 0, ""]]);
__cm_members.ListFormat = __cm_class("ListFormat", ["localeMatcher", "type", "style"], false,
  [["format", 1, "l"], ["formatToParts", 1, "l"], ["resolvedOptions", 0, ""]]);
__cm_members.Locale = __cm_unsupported("Locale");
__cm_members.DisplayNames = __cm_class("DisplayNames", ["localeMatcher", "style", "type", "fallback", "languageDisplay"],
  false, [["of", 1, "s"], ["resolvedOptions", 0, ""]]);
__cm_members.Segmenter = __cm_unsupported("Segmenter");
__cm_members.DurationFormat = __cm_class("DurationFormat", __cm_duration_specs, false,
  [["format", 1, "u"], ["formatToParts", 1, "u"], ["resolvedOptions", 0, ""]]);

// ---- the locale methods of the built-ins: (self, args) -> value ---------------------------

function __cm_one(value) {
  const args = __cm_list();
  __cm_push(args, value);
  return args;
}

function __cm_this_value(read, value, what) {
  try {
    return read(value);
  } catch (e) {
    __cm_end_if_out_of_memory(e);
    throw new __cm_TypeError(what);
  }
}

function __cm_number_method(kind, read, what) {
  return function __cm_number_to_locale_string(self, args) {
    const x = __cm_this_value(read, self, what);
    return __cm_run(__cm_key(kind, __cm_at(args, 0), __cm_at(args, 1), __cm_nf_specs), "format", __cm_one(__cm_value(x)));
  };
}

function __cm_date_method(name) {
  return function __cm_date_to_locale(self, args) {
    const t = __cm_this_value(__cm_intl_captured.date_time, self, "this is not a Date object.");
    if (t !== t) return "Invalid Date";
    return __cm_run(__cm_key("Date:" + name, __cm_at(args, 0), __cm_at(args, 1), __cm_dtf_specs), "format", __cm_one(t));
  };
}

function __cm_case_method(name, plain) {
  return function __cm_case(self, args) {
    if (self === undefined || self === null) throw new __cm_TypeError("String.prototype." + name + " called on null or undefined");
    const text = __cm_String(self);
    if (__cm_at(args, 0) === undefined) return plain(text);
    const list = __cm_list();
    __cm_push(list, text);
    __cm_push(list, __cm_locales(__cm_at(args, 0)));
    return __cm_static(name, list);
  };
}

// ECMA-402's Array.prototype.toLocaleString: each element's own toLocaleString(locales,
// options), joined with ","; an array met again inside itself gives "" (as V8 does).
const __cm_joining = __cm_list();
function __cm_array_to_locale_string(self, args) {
  const array = __cm_Object(self);
  if (__cm_list_index_of(__cm_joining, array) >= 0) return "";
  __cm_push(__cm_joining, array);
  try {
    const length = __cm_Number(array.length);
    const n = length > 0 ? __cm_trunc(length) : 0;
    let out = "";
    for (let i = 0; i < n; i++) {
      if (i > 0) out += ",";
      const item = array[i];
      if (item !== undefined && item !== null) out += __cm_String(item.toLocaleString(__cm_at(args, 0), __cm_at(args, 1)));
    }
    return out;
  } finally {
    __cm_joining.length = __cm_joining.length - 1;
  }
}

function __cm_locale_compare(self, args) {
  if (self === undefined || self === null) throw new __cm_TypeError("String.prototype.localeCompare called on null or undefined");
  const list = __cm_list();
  __cm_push(list, __cm_String(self));
  __cm_push(list, __cm_String(__cm_at(args, 0)));
  return __cm_run(__cm_key("String:localeCompare", __cm_at(args, 1), __cm_at(args, 2), __cm_collator_specs), "compare", list);
}

const __cm_objects = __cm_record();
__cm_objects.members = __cm_members;
__cm_objects.numberToLocaleString = __cm_number_method("Number:toLocaleString", __cm_intl_captured.number_value,
  "Number.prototype.toLocaleString requires that 'this' be a Number");
__cm_objects.bigintToLocaleString = __cm_number_method("BigInt:toLocaleString", __cm_intl_captured.bigint_value,
  "BigInt.prototype.toLocaleString requires that 'this' be a BigInt");
__cm_objects.dateToLocaleString = __cm_date_method("toLocaleString");
__cm_objects.dateToLocaleDateString = __cm_date_method("toLocaleDateString");
__cm_objects.dateToLocaleTimeString = __cm_date_method("toLocaleTimeString");
__cm_objects.localeCompare = __cm_locale_compare;
__cm_objects.toLocaleUpperCase = __cm_case_method("toLocaleUpperCase", __cm_intl_captured.upper_locale);
__cm_objects.toLocaleLowerCase = __cm_case_method("toLocaleLowerCase", __cm_intl_captured.lower_locale);
__cm_objects.arrayToLocaleString = __cm_array_to_locale_string;
return __cm_objects;
