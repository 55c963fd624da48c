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
  // Date.prototype methods: ECMA-402 CreateDateTimeFormat's `required` and `defaults`.
  const DATE_METHODS = {
    toLocaleString: ["any", "all"],
    toLocaleDateString: ["date", "date"],
    toLocaleTimeString: ["time", "time"],
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
    const kind = spec.kind;
    if (kind.startsWith("Date:")) {
      const method = kind.slice(5);
      const [required, defaults] = DATE_METHODS[method];
      const run = (t) => Date.prototype[method].call(new Date(t), locales, options);
      run(0); // V8's own checks of the locales and options, and its errors
      const basis = dateBasis(options, required, defaults);
      const resolved = new Intl.DateTimeFormat(locales, basis).resolvedOptions();
      return { resolved, basis, call(name, args) { if (name !== "format") throw new TypeError(name); return run(args[0]); } };
    }
    if (!KINDS.has(kind)) throw new TypeError("Intl." + kind + " is not supported");
    const object = new Intl[kind](locales, options);
    const basis = kind === "DateTimeFormat" ? dateBasis(options, "any", "date") : options;
    return { resolved: object.resolvedOptions(), basis, call(name, args) { return object[name](...args); } };
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
