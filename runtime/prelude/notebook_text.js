// Notebook profile, part 1 of 3 (then notebook_inspect.js, notebook.js): the pieces of
// Node v20's util.inspect text that do not recurse: the built-ins captured for it, string
// quoting and escapes, primitives, the keys shown, constructor names and the base text of
// functions, classes, boxed primitives and errors (lib/internal/util/inspect.js:
// strEscape, formatPrimitive, getKeys, getConstructorName, getPrefix, getFunctionBase,
// getClassBase, getBoxedBase, formatError). What differs from Node: see notebook.js.

const __cm_nb_getter = function __cm_nb_getter(proto, key) {
  return __cm_uncurry(__cm_own_descriptor(proto, key).get);
};
const __cm_nb_typed_proto = __cm_get_prototype_of(Uint8Array.prototype);
const __cm_nb = {
  __proto__: null,
  map_size: __cm_nb_getter(Map.prototype, "size"),
  set_size: __cm_nb_getter(Set.prototype, "size"),
  map_for_each: __cm_uncurry(Map.prototype.forEach),
  set_for_each: __cm_uncurry(Set.prototype.forEach),
  typed_tag: __cm_nb_getter(__cm_nb_typed_proto, Symbol.toStringTag),
  typed_length: __cm_nb_getter(__cm_nb_typed_proto, "length"),
  buffer_length: __cm_nb_getter(ArrayBuffer.prototype, "byteLength"),
  view_length: __cm_nb_getter(DataView.prototype, "byteLength"),
  Uint8Array,
  date_time: __cm_uncurry(Date.prototype.getTime),
  date_iso: __cm_uncurry(Date.prototype.toISOString),
  date_string: __cm_uncurry(Date.prototype.toString),
  regexp_source: __cm_nb_getter(RegExp.prototype, "source"),
  regexp_string: __cm_uncurry(RegExp.prototype.toString),
  number_value: __cm_uncurry(Number.prototype.valueOf),
  string_value: __cm_uncurry(String.prototype.valueOf),
  boolean_value: __cm_uncurry(Boolean.prototype.valueOf),
  bigint_value: __cm_uncurry(BigInt.prototype.valueOf),
  symbol_value: __cm_uncurry(Symbol.prototype.valueOf),
  symbol_string: __cm_uncurry(Symbol.prototype.toString),
  number_string: __cm_uncurry(Number.prototype.toString),
  to_precision: __cm_uncurry(Number.prototype.toPrecision),
  BigInt,
  weak_map_has: __cm_uncurry(WeakMap.prototype.has),
  weak_set_has: __cm_uncurry(WeakSet.prototype.has),
  function_string: __cm_uncurry(Function.prototype.toString),
  error_string: __cm_uncurry(Error.prototype.toString),
  is_prototype_of: __cm_uncurry(Object.prototype.isPrototypeOf),
  repeat: __cm_uncurry(String.prototype.repeat),
  pad_start: __cm_uncurry(String.prototype.padStart),
  pad_end: __cm_uncurry(String.prototype.padEnd),
  normalize: __cm_uncurry(String.prototype.normalize),
  code_point_at: __cm_uncurry(String.prototype.codePointAt),
  from_code_point: String.fromCodePoint,
  sqrt: Math.sqrt, round: Math.round, floor: Math.floor, min: Math.min, max: Math.max, abs: Math.abs,
  parse_int: Number.parseInt,
  parse_float: Number.parseFloat,
  promise_proto: Promise.prototype,
  map_iterator_proto: __cm_get_prototype_of(new Map().entries()),
  set_iterator_proto: __cm_get_prototype_of(new Set().values()),
  async_proto: __cm_get_prototype_of(async function () {}),
  generator_proto: __cm_get_prototype_of(function* () {}),
  async_generator_proto: __cm_get_prototype_of(async function* () {}),
  tag_key: Symbol.toStringTag,
  // Node's builtInObjects: the global constructors whose prototypes' toString is built in.
  builtins: { __proto__: null },
};
{
  const names = __cm_own_keys(globalThis);
  for (let i = 0; i < names.length; i++) {
    const n = names[i];
    if (typeof n === "string" && __cm_test(/^[A-Z][a-zA-Z0-9]+$/, n)) __cm_nb.builtins[n] = true;
  }
}
// meta: Node's escape of each code below 160 that needs one ("" for none): \b \t \n \f \r
// \' \\, else \xHH in upper case for control characters and 0x7f-0x9f.
const __cm_nb_meta = __cm_list();
for (let i = 0; i < 160; i++) {
  const hex = "0123456789ABCDEF";
  __cm_push(__cm_nb_meta, i < 32 || i > 126 ? "\\x" + hex[(i >> 4) & 15] + hex[i & 15] : "");
}
__cm_nb_meta[8] = "\\b"; __cm_nb_meta[9] = "\\t"; __cm_nb_meta[10] = "\\n";
__cm_nb_meta[12] = "\\f"; __cm_nb_meta[13] = "\\r"; __cm_nb_meta[39] = "\\'"; __cm_nb_meta[92] = "\\\\";

// A throw-free brand check: `fn(value)` does not throw.
function __cm_nb_is(fn, value) {
  try { fn(value); return true; } catch (e) { __cm_end_if_out_of_memory(e); return false; }
}

// An own property's descriptor that inherits nothing (its absent `get` never reaches
// Object.prototype), or undefined.
function __cm_nb_descriptor(obj, key) {
  const d = __cm_own_descriptor(obj, key);
  if (d !== undefined) __cm_set_prototype_of(d, null);
  return d;
}

// The options and state of one inspection (Node's ctx).
function __cm_nb_context(depth, showHidden) {
  const ctx = __cm_record();
  ctx.seen = __cm_list();
  ctx.circular = null;
  ctx.indentationLvl = 0;
  ctx.currentDepth = 0;
  ctx.depth = depth;
  ctx.showHidden = showHidden;
  ctx.breakLength = 80;
  ctx.compact = 3;
  return ctx;
}

// strEscape: the quotes Node picks and its escapes.
function __cm_nb_quote(str) {
  let quote = 39;
  if (__cm_index_of(str, "'") >= 0) {
    if (__cm_index_of(str, '"') < 0) quote = -2;
    else if (__cm_index_of(str, "`") < 0 && __cm_index_of(str, "${") < 0) quote = -1;
  }
  const body = __cm_nb_escape(str, quote);
  if (quote === -1) return "`" + body + "`";
  if (quote === -2) return '"' + body + '"';
  return "'" + body + "'";
}

// `str` with Node's escapes: control characters, the backslash, the quote character
// (code `quote`, 39 for the single quote) and lone surrogates.
function __cm_nb_escape(str, quote) {
  let result = "";
  let last = 0;
  for (let i = 0; i < str.length; i++) {
    const point = __cm_char_code_at(str, i);
    if (point === quote || point === 92 || point < 32 || (point > 126 && point < 160)) {
      result += __cm_slice(str, last, i) + __cm_nb_meta[point];
      last = i + 1;
    } else if (point >= 0xd800 && point <= 0xdfff) {
      if (point <= 0xdbff && i + 1 < str.length) {
        const next = __cm_char_code_at(str, i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) { i++; continue; }
      }
      result += __cm_slice(str, last, i) + "\\u" + __cm_nb.number_string(point, 16);
      last = i + 1;
    }
  }
  return last === 0 ? str : result + __cm_slice(str, last);
}

// A number as V8 writes it (-0 as "-0"). QuickJS writes some doubles with 17 significant
// digits where a shorter text reads back as the same double (2 ** -24:
// 5.9604644775390625e-8, V8 5.960464477539063e-8), and its toPrecision may round a tie
// down; the shortest text that reads back is used then (of the correctly rounded digits
// and their neighbours in the last place).
function __cm_nb_number(n) {
  if (n === 0 && 1 / n < 0) return "-0";
  const text = "" + n;
  const m = __cm_exec(__cm_nb_number_re, text);
  if (m === null || __cm_nb_trim_zeros(__cm_nb_digits(m[2], m[3]))[0].length < 17) return text;
  const abs = n < 0 ? -n : n;
  for (let p = 1; p < 17; p++) {
    const s = __cm_exec(__cm_nb_number_re, __cm_nb.to_precision(abs, p));
    const parts = __cm_nb_digits(s[2], s[3]);
    const scale = parts[1] - parts[0].length;  // the value is digits * 10 ** scale
    for (let delta = 0; delta < 3; delta++) {
      const digits = __cm_String(__cm_nb.BigInt(parts[0]) + (delta === 0 ? 0n : delta === 1 ? 1n : -1n));
      if (digits === "0") continue;
      const candidate = __cm_nb_number_text(__cm_nb_trim_zeros([digits, digits.length + scale]));
      if (__cm_Number(candidate) === abs) return m[1] + candidate;
    }
  }
  return text;
}

const __cm_nb_number_re = /^(-?)([0-9.]+)(?:e([-+][0-9]+))?$/;

// [significant digits, n] of decimal `mantissa` times 10 ** `exponent` (a string or
// undefined): the value is 0.digits * 10 ** n (Number::toString's digits and n).
function __cm_nb_digits(mantissa, exponent) {
  const point = __cm_index_of(mantissa, ".");
  let digits = point < 0 ? mantissa : __cm_slice(mantissa, 0, point) + __cm_slice(mantissa, point + 1);
  let n = (point < 0 ? mantissa.length : point) + (exponent === undefined ? 0 : __cm_Number(exponent));
  while (digits.length > 1 && digits[0] === "0") { digits = __cm_slice(digits, 1); n--; }
  return [digits, n];
}

function __cm_nb_trim_zeros(parts) {
  let digits = parts[0];
  while (digits.length > 1 && digits[digits.length - 1] === "0") digits = __cm_slice(digits, 0, -1);
  return [digits, parts[1]];
}

// Number::toString's layout of [digits, n] (a positive number).
function __cm_nb_number_text(parts) {
  const d = parts[0];
  const n = parts[1];
  const k = d.length;
  if (k <= n && n <= 21) return d + __cm_nb.repeat("0", n - k);
  if (0 < n && n <= 21) return __cm_slice(d, 0, n) + "." + __cm_slice(d, n);
  if (-6 < n && n <= 0) return "0." + __cm_nb.repeat("0", -n) + d;
  const e = n - 1;
  return (k === 1 ? d : d[0] + "." + __cm_slice(d, 1)) + "e" + (e < 0 ? "-" : "+") + __cm_nb.abs(e);
}

// formatPrimitive: a quoted string (a long one split after its newlines), a number, ...
function __cm_nb_primitive(value, ctx) {
  const t = typeof value;
  if (t === "string") {
    let trailer = "";
    if (value.length > 10000) {
      const remaining = value.length - 10000;
      value = __cm_slice(value, 0, 10000);
      trailer = "... " + remaining + " more character" + (remaining > 1 ? "s" : "");
    }
    if (value.length > 16 && value.length > ctx.breakLength - ctx.indentationLvl - 4) {
      const lines = __cm_list();
      let start = 0;
      for (;;) {
        const at = __cm_index_of(value, "\n", start);
        if (at < 0 || at === value.length - 1) break;
        __cm_push(lines, __cm_nb_quote(__cm_slice(value, start, at + 1)));
        start = at + 1;
      }
      __cm_push(lines, __cm_nb_quote(__cm_slice(value, start)));
      return __cm_join(lines, " +\n" + __cm_nb.repeat(" ", ctx.indentationLvl + 2)) + trailer;
    }
    return __cm_nb_quote(value) + trailer;
  }
  if (t === "number") return __cm_nb_number(value);
  if (t === "bigint") return __cm_String(value) + "n";
  if (t === "boolean" || t === "undefined") return "" + value;
  return __cm_nb.symbol_string(value);
}

// Own keys shown for `value`: enumerable strings then enumerable symbols (all with showHidden).
function __cm_nb_keys(value, showHidden, nonIndex) {
  const all = __cm_own_keys(value);
  const keys = __cm_list();
  for (let i = 0; i < all.length; i++) {
    const key = all[i];
    if (nonIndex && typeof key === "string" && __cm_nb_is_index(key)) continue;
    if (!showHidden) {
      const d = __cm_nb_descriptor(value, key);
      if (d === undefined || !d.enumerable) continue;
    }
    __cm_push(keys, key);
  }
  return keys;
}

function __cm_nb_is_index(key) {
  return __cm_test(/^(?:0|[1-9][0-9]*)$/, key) && __cm_Number(key) < 4294967295;
}

// getConstructorName: the name of the first constructor on the chain that `obj` is an
// instance of, or null for a chain that ends without one.
function __cm_nb_constructor(obj, ctx, recurseTimes, protoProps) {
  let first;
  let o = obj;
  while (o !== null && o !== undefined) {
    const d = __cm_nb_descriptor(o, "constructor");
    if (d !== undefined && typeof d.value === "function" && d.value.name !== "") {
      let instance = false;
      try { instance = __cm_has_instance(d.value, obj); } catch (e) { __cm_end_if_out_of_memory(e); }
      if (instance) {
        if (protoProps !== null && protoProps !== undefined && (first !== o || __cm_nb.builtins[d.value.name] !== true)) {
          __cm_nb_proto_props(ctx, obj, first || obj, recurseTimes, protoProps);
        }
        return __cm_String(d.value.name);
      }
    }
    o = __cm_get_prototype_of(o);
    if (first === undefined) first = o;
  }
  if (first === null) return null;
  if (recurseTimes > ctx.depth) return "Object <Complex prototype>";
  const inner = __cm_nb_constructor(first, ctx, recurseTimes + 1, protoProps);
  if (inner === null) {
    const sub = __cm_nb_context(-1, false);
    return "Object <" + __cm_nb_value(sub, first, 0) + ">";
  }
  return "Object <" + inner + ">";
}

// getPrefix: `Name(size) [tag] ` before the braces, `[Name: null prototype] ` without a constructor.
function __cm_nb_prefix(constructor, tag, fallback, size) {
  size = size === undefined ? "" : size;
  if (constructor === null) {
    if (tag !== "" && fallback !== tag) return "[" + fallback + size + ": null prototype] [" + tag + "] ";
    return "[" + fallback + size + ": null prototype] ";
  }
  if (tag !== "" && constructor !== tag) return constructor + size + " [" + tag + "] ";
  return constructor + size + " ";
}

// getFunctionBase: `[Function: f]`, `[AsyncFunction: f]`, ... or a class's base.
function __cm_nb_function_base(value, constructor, tag) {
  let source = "";
  try { source = __cm_nb.function_string(value); } catch (e) { __cm_end_if_out_of_memory(e); }
  if (__cm_starts_with(source, "class") && __cm_ends_with(source, "}")) {
    const body = __cm_slice(source, 5, -1);
    if (__cm_nb_class_head(body) || (__cm_test(/^\s/, body) && __cm_nb_class_head(__cm_nb_strip_comments(body)))) {
      return __cm_nb_class_base(value, constructor, tag);
    }
  }
  const proto = __cm_get_prototype_of(value);
  const name = value.name;
  const bound = typeof name === "string" && __cm_starts_with(name, "bound ");
  let type = "Function";
  if (!bound && proto === __cm_nb.generator_proto) type = "GeneratorFunction";
  else if (!bound && proto === __cm_nb.async_proto) type = "AsyncFunction";
  else if (!bound && proto === __cm_nb.async_generator_proto) type = "AsyncGeneratorFunction";
  let base = "[" + type;
  if (constructor === null) base += " (null prototype)";
  base += name === "" ? " (anonymous)" : ": " + name;
  base += "]";
  if (constructor !== type && constructor !== null) base += " " + constructor;
  if (tag !== "" && constructor !== tag) base += " [" + tag + "]";
  return base;
}

// A class's source after `class`: a `{` with no `(` before it (`extends f(B)` is no class
// to Node).
function __cm_nb_class_head(body) {
  const brace = __cm_index_of(body, "{");
  return brace !== -1 && __cm_index_of(__cm_slice(body, 0, brace), "(") < 0;
}

// `text` without its `// ...\n` and `/* ... */` comments.
function __cm_nb_strip_comments(text) {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const line = __cm_starts_with(text, "//", i) ? __cm_index_of(text, "\n", i) : -1;
    const block = __cm_starts_with(text, "/*", i) ? __cm_index_of(text, "*/", i + 2) : -1;
    if (line !== -1) i = line + 1;
    else if (block !== -1) i = block + 2;
    else out += text[i++];
  }
  return out;
}

// getClassBase: `[class C extends B]`.
function __cm_nb_class_base(value, constructor, tag) {
  const name = (__cm_has_own(value, "name") && value.name) || "(anonymous)";
  let base = "class " + name;
  if (constructor !== "Function" && constructor !== null) base += " [" + constructor + "]";
  if (tag !== "" && constructor !== tag) base += " [" + tag + "]";
  if (constructor !== null) {
    const superName = __cm_get_prototype_of(value).name;
    if (superName) base += " extends " + superName;
  } else {
    base += " extends [null prototype]";
  }
  return "[" + base + "]";
}

// The brand of a boxed primitive, or null.
function __cm_nb_boxed(value) {
  if (__cm_nb_is(__cm_nb.number_value, value)) return "Number";
  if (__cm_nb_is(__cm_nb.string_value, value)) return "String";
  if (__cm_nb_is(__cm_nb.boolean_value, value)) return "Boolean";
  if (__cm_nb_is(__cm_nb.bigint_value, value)) return "BigInt";
  if (__cm_nb_is(__cm_nb.symbol_value, value)) return "Symbol";
  return null;
}

// getBoxedBase: `[Number: 3]`, `[String: 'abc']`, ...
function __cm_nb_boxed_base(value, type, ctx, keys, constructor, tag) {
  const unbox = { __proto__: null, Number: __cm_nb.number_value, String: __cm_nb.string_value,
    Boolean: __cm_nb.boolean_value, BigInt: __cm_nb.bigint_value, Symbol: __cm_nb.symbol_value }[type];
  const primitive = unbox(value);
  if (type === "String") {
    // The index keys of a String object repeat its value: drop them, in one pass.
    __cm_nb_drop_first(keys, primitive.length);
  }
  let base = "[" + type;
  if (type !== constructor) base += constructor === null ? " (null prototype)" : " (" + constructor + ")";
  const sub = __cm_nb_context(ctx.depth, false);
  sub.indentationLvl = ctx.indentationLvl;
  base += ": " + __cm_nb_primitive(primitive, sub) + "]";
  if (tag !== "" && tag !== constructor) base += " [" + tag + "]";
  return base;
}

function __cm_nb_drop_first(list, count) {
  const drop = count < list.length ? count : list.length;
  if (drop <= 0) return;
  for (let i = drop; i < list.length; i++) list[i - drop] = list[i];
  list.length -= drop;
}

// isError: an error object (its brand, or Error.prototype on its chain).
function __cm_nb_is_error(value) {
  if (__cm_object_to_string(value) === "[object Error]") return true;
  try { return __cm_has_instance(__cm_Error, value); } catch (e) { __cm_end_if_out_of_memory(e); return false; }
}

// `... N more items` and its kin.
function __cm_nb_more(remaining, what) {
  return "... " + remaining + " more " + what + (remaining > 1 ? "s" : "");
}

// formatError: the error's stack (or `[Name: message]` without frames), its name made
// to agree with its constructor, `cause` and `errors` listed.
function __cm_nb_error(err, constructor, tag, ctx, keys) {
  const name = err.name !== null && err.name !== undefined ? __cm_String(err.name) : "Error";
  let stack = __cm_nb_stack_of(err);
  if (!ctx.showHidden && keys.length !== 0) {
    const names = ["name", "message", "stack"];
    for (let n = 0; n < 3; n++) {
      const index = __cm_list_index_of(keys, names[n]);
      if (index !== -1 && __cm_index_of(stack, __cm_String(err[names[n]])) >= 0) {
        for (let i = index + 1; i < keys.length; i++) keys[i - 1] = keys[i];
        keys.length -= 1;
      }
    }
  }
  if ("cause" in err && (keys.length === 0 || __cm_list_index_of(keys, "cause") < 0)) __cm_push(keys, "cause");
  const errors = err.errors;
  if (__cm_is_array(errors) && (keys.length === 0 || __cm_list_index_of(keys, "errors") < 0)) __cm_push(keys, "errors");
  stack = __cm_nb_improve_stack(stack, constructor, name, tag);
  const message = err.message;
  let pos = (message && __cm_index_of(stack, message)) || -1;
  if (pos !== -1) pos += message.length;
  const stackStart = __cm_index_of(stack, "\n    at", pos);
  if (stackStart === -1) {
    stack = "[" + stack + "]";
  } else {
    const frames = __cm_nb_frames(err, __cm_slice(stack, stackStart + 1));
    stack = __cm_slice(stack, 0, stackStart) + "\n" + __cm_join(frames, "\n");
  }
  if (ctx.indentationLvl !== 0) {
    stack = __cm_join(__cm_split(stack, "\n"), "\n" + __cm_nb.repeat(" ", ctx.indentationLvl));
  }
  return stack;
}

function __cm_nb_stack_of(err) {
  const stack = err.stack;
  return stack ? __cm_String(stack) : __cm_nb.error_string(err);
}

function __cm_nb_improve_stack(stack, constructor, name, tag) {
  let len = name.length;
  if (constructor === null || (__cm_ends_with(name, "Error") && __cm_starts_with(stack, name) &&
      (stack.length === len || stack[len] === ":" || stack[len] === "\n"))) {
    let fallback = "Error";
    if (constructor === null) {
      const start = __cm_exec(/^([A-Z][a-z_ A-Z0-9[\]()-]+)(?::|\n\s+at)/, stack) ||
        __cm_exec(/^([a-z_A-Z0-9-]*Error)$/, stack);
      fallback = (start && start[1]) || "";
      len = fallback.length;
      fallback = fallback || "Error";
    }
    const prefix = __cm_slice(__cm_nb_prefix(constructor, tag, fallback), 0, -1);
    if (name !== prefix) {
      if (__cm_index_of(prefix, name) >= 0) {
        stack = len === 0 ? prefix + ": " + stack : prefix + __cm_slice(stack, len);
      } else {
        stack = prefix + " [" + name + "]" + __cm_slice(stack, len);
      }
    }
  }
  return stack;
}

// The frame lines, those that repeat the cause's frames folded into one line.
function __cm_nb_frames(err, text) {
  const frames = __cm_split(text, "\n");
  let cause;
  try { cause = err.cause; } catch (e) { __cm_end_if_out_of_memory(e); }
  if (cause !== null && cause !== undefined && typeof cause === "object" && __cm_nb_is_error(cause)) {
    const causeStack = __cm_nb_stack_of(cause);
    const start = __cm_index_of(causeStack, "\n    at");
    if (start !== -1) {
      const causeFrames = __cm_split(__cm_slice(causeStack, start + 1), "\n");
      const range = __cm_nb_identical(frames, causeFrames);
      if (range[0] > 0) {
        const skipped = range[0] - 2;
        const out = __cm_list();
        for (let i = 0; i <= range[1]; i++) __cm_push(out, frames[i]);
        __cm_push(out, "    ... " + skipped + " lines matching cause stack trace ...");
        for (let i = range[1] + 1 + skipped; i < frames.length; i++) __cm_push(out, frames[i]);
        return out;
      }
    }
  }
  return frames;
}

// identicalSequenceRange: [length, offset in a] of the first run of over 3 lines of a in b.
function __cm_nb_identical(a, b) {
  for (let i = 0; i < a.length - 3; i++) {
    const pos = __cm_list_index_of(b, a[i]);
    if (pos !== -1) {
      const rest = b.length - pos;
      if (rest > 3) {
        let len = 1;
        const maxLen = __cm_nb.min(a.length - i, rest);
        while (maxLen > len && a[i + len] === b[pos + len]) len++;
        if (len > 3) return [len, i];
      }
    }
  }
  return [0, 0];
}
