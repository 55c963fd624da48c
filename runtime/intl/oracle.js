// The V8 side of Intl for QuickJS cells (runtime/intl/oracle.py evaluates it once in a
// MiniRacer context). Only data crosses: a request is JSON text naming a constructor,
// its locales and options, a method and its arguments; the reply is JSON text
// {"ok": value} or {"error": {"name", "message"}}. No cell code ever runs here.
//
// Encoded values (what JSON cannot hold): {"$": "NaN" | "Infinity" | "-Infinity" | "-0" |
// "undefined"} and {"$bigint": "<digits>"}.
"use strict";
(function () {
  const KINDS = new Set(["NumberFormat", "DateTimeFormat", "Collator", "PluralRules", "ListFormat",
    "RelativeTimeFormat", "DisplayNames", "DurationFormat"]);
  // Built-in methods that format through an Intl object: "<Builtin>:<method>" -> the
  // constructor, the method itself (V8's checks and errors name it), a value it accepts,
  // and for the Date methods ECMA-402 CreateDateTimeFormat's `required` and `defaults`.
  const toLocaleNumber = (x, l, o) =>
    (typeof x === "bigint" ? BigInt : Number).prototype.toLocaleString.call(x, l, o);
  const BUILTINS = {
    "Number:toLocaleString": ["NumberFormat", toLocaleNumber, [0]],
    "BigInt:toLocaleString": ["NumberFormat", toLocaleNumber, [0n]],
    "String:localeCompare": ["Collator", (a, b, l, o) => String.prototype.localeCompare.call(a, b, l, o), ["", ""]],
    "Date:toLocaleString": ["DateTimeFormat", null, [0], "any", "all"],
    "Date:toLocaleDateString": ["DateTimeFormat", null, [0], "date", "date"],
    "Date:toLocaleTimeString": ["DateTimeFormat", null, [0], "time", "time"],
  };
  const DATE_FIELDS = ["weekday", "year", "month", "day"];
  const TIME_FIELDS = ["dayPeriod", "hour", "minute", "second", "fractionalSecondDigits"];
  const SPECIAL = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity, "-0": -0, undefined: undefined };
  const LIMIT = 256;
  const objects = new Map();

  function decode(v) {
    if (Array.isArray(v)) return v.map(decode);
    if (v !== null && typeof v === "object") {
      if (typeof v.$ === "string" && Object.hasOwn(SPECIAL, v.$)) return SPECIAL[v.$];
      if (typeof v.$bigint === "string") return BigInt(v.$bigint);
      const out = {};
      for (const k of Object.keys(v)) out[k] = decode(v[k]);
      return out;
    }
    return v;
  }

  // The options a Date method hands to its DateTimeFormat, its defaults made explicit.
  function dateBasis(options, required, defaults) {
    const o = options !== null && typeof options === "object" ? Object.assign({}, options) : {};
    if (o.dateStyle !== undefined || o.timeStyle !== undefined) return o;
    const has = (k) => o[k] !== undefined;
    let need = true;
    if (required !== "time" && DATE_FIELDS.some(has)) need = false;
    if (required !== "date" && TIME_FIELDS.some(has)) need = false;
    if (need && defaults !== "time") o.year = o.month = o.day = "numeric";
    if (need && defaults !== "date") o.hour = o.minute = o.second = "numeric";
    return o;
  }

  function make(key) {
    const spec = JSON.parse(key);
    const locales = decode(spec.locales);
    const options = decode(spec.options);
    const builtin = Object.hasOwn(BUILTINS, spec.kind) ? BUILTINS[spec.kind] : null;
    const kind = builtin === null ? spec.kind : builtin[0];
    if (!KINDS.has(kind)) throw new TypeError("Intl." + kind + " is not supported");
    let run = null;
    if (builtin !== null && builtin[1] !== null) {
      run = (args) => builtin[1](...args, locales, options);
    } else if (builtin !== null) {
      const method = spec.kind.slice(5);
      run = (args) => Date.prototype[method].call(new Date(args[0]), locales, options);
    }
    if (run !== null) run(builtin[2]); // V8's own checks of the locales and options, its wording
    const basis = kind !== "DateTimeFormat" ? options
      : builtin === null ? dateBasis(options, "any", "date") : dateBasis(options, builtin[3], builtin[4]);
    const object = new Intl[kind](locales, builtin !== null && kind === "DateTimeFormat" ? basis : options);
    const call = run !== null ? (name, args) => run(args) : (name, args) => object[name](...args);
    return { resolved: object.resolvedOptions(), basis, call };
  }

  function entry(key) {
    let found = objects.get(key);
    if (found === undefined) {
      found = make(key);
      if (objects.size >= LIMIT) objects.clear();
      objects.set(key, found);
    }
    return found;
  }

  function probe(found, method, args) {
    try {
      return found.call(method, decode(args));
    } catch (e) {
      return null;
    }
  }

  function run(r) {
    if (r.op === "new") {
      const found = entry(r.key);
      const out = { resolved: found.resolved, basis: found.basis };
      if (Array.isArray(r.probe)) out.probe = r.probe.map((args) => probe(found, r.probeMethod, args));
      return out;
    }
    if (r.op === "call") return entry(r.key).call(r.method, decode(r.args));
    const args = decode(r.args);
    if (r.op === "getCanonicalLocales") return Intl.getCanonicalLocales(...args);
    if (r.op === "supportedValuesOf") return Intl.supportedValuesOf(...args);
    if (r.op === "supportedLocalesOf" && KINDS.has(r.kind)) return Intl[r.kind].supportedLocalesOf(...args);
    if (r.op === "toLocaleUpperCase") return String.prototype.toLocaleUpperCase.call(args[0], args[1]);
    if (r.op === "toLocaleLowerCase") return String.prototype.toLocaleLowerCase.call(args[0], args[1]);
    throw new TypeError("unknown Intl request " + r.op);
  }

  globalThis.__codemode_intl = function (text) {
    try {
      const value = run(JSON.parse(text));
      return JSON.stringify({ ok: value === undefined ? null : value });
    } catch (e) {
      const name = e !== null && typeof e === "object" && typeof e.name === "string" ? e.name : "Error";
      const message = e !== null && typeof e === "object" ? String(e.message) : String(e);
      return JSON.stringify({ error: { name, message } });
    }
  };
})();
