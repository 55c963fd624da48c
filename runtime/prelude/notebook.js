// Notebook profile: the text of a value as Node's util.inspect writes it with its default
// options, util.format (what console.log prints) and a value's display bundle. Pure
// functions (no host calls), named __cm_*, using the intrinsics captured before cell code
// ran (intrinsics.js) and those captured below, so a cell that replaces built-ins cannot
// steer them. Upstream: Node v20 lib/internal/util/inspect.js (formatValue, formatRaw,
// formatError, groupArrayElements, reduceToSingleString, formatWithOptionsInternal).
//
//   __cm_inspect(value) -> string   util.inspect(value): depth 2, no colours, breakLength 80,
//                                   compact 3, maxArrayLength 100, maxStringLength 10000
//   __cm_format(args) -> string     util.format(...args) for a list of arguments
//   __cm_bundle(value) -> record    {"text/plain", "application/json"?, "text/html"?}
//
// What plain JavaScript cannot see, and so differs from Node on both engines:
// - a promise's state: every promise shows as `Promise { <unknown> }` (Node:
//   `Promise { <pending> }`, `Promise { 1 }`, `Promise { <rejected> ... }`);
// - the entries of a Map or Set iterator without consuming it: `[Map Iterator] { <unknown> }`
//   (Node previews them); WeakMap / WeakSet show `{ <items unknown> }`, as Node does;
// - proxies are inspected as their target would be, through the proxy's traps (Node looks
//   through them); Symbol.for('nodejs.util.inspect.custom') methods are not called;
// - the class name V8 keeps for an object whose prototype chain has no constructor
//   (`Object <[Object: null prototype] {}>` in Node) is always taken to be "Object";
// - an async or generator function is recognised by its prototype (the built-in
//   AsyncFunction.prototype & co.), a bound function by its "bound " name;
// - errors: the stack is the engine's `error.stack` (V8's form once stack.js has run on
//   QuickJS); Node's trimming of node_modules / node:internal frames does not apply;
// - %o (showHidden) lists own non-enumerable properties but not Node's extra prototype
//   properties of user classes.
// A getter that throws, a toStringTag or `name` accessor that throws, or a failing
// JSON.stringify under %j propagates, as in Node.

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
  weak_map_has: __cm_uncurry(WeakMap.prototype.has),
  weak_set_has: __cm_uncurry(WeakSet.prototype.has),
  function_string: __cm_uncurry(Function.prototype.toString),
  error_string: __cm_uncurry(Error.prototype.toString),
  is_prototype_of: __cm_uncurry(Object.prototype.isPrototypeOf),
  repeat: __cm_uncurry(String.prototype.repeat),
  pad_start: __cm_uncurry(String.prototype.padStart),
  pad_end: __cm_uncurry(String.prototype.padEnd),
  sqrt: Math.sqrt, round: Math.round, floor: Math.floor, min: Math.min, max: Math.max,
  parse_int: Number.parseInt,
  parse_float: Number.parseFloat,
  promise_proto: Promise.prototype,
  map_iterator_proto: __cm_get_prototype_of(new Map().entries()),
  set_iterator_proto: __cm_get_prototype_of(new Set().values()),
  async_proto: __cm_get_prototype_of(async function () {}),
  generator_proto: __cm_get_prototype_of(function* () {}),
  async_generator_proto: __cm_get_prototype_of(async function* () {}),
  tag_key: Symbol.toStringTag,
  to_primitive_key: Symbol.toPrimitive,
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
const __cm_nb_meta = __cm_list();
for (let i = 0; i < 160; i++) {
  let m = "";
  if (i < 32 || i > 126) m = "\\x" + (i < 16 ? "0" : "") + __cm_nb.number_string(i, 16);
  __cm_push(__cm_nb_meta, m);
}
// Node writes these as \X, upper-case hex for the others.
__cm_nb_meta[8] = "\\b"; __cm_nb_meta[9] = "\\t"; __cm_nb_meta[10] = "\\n";
__cm_nb_meta[12] = "\\f"; __cm_nb_meta[13] = "\\r"; __cm_nb_meta[39] = "\\'"; __cm_nb_meta[92] = "\\\\";
for (let i = 0; i < 160; i++) {
  const m = __cm_nb_meta[i];
  if (__cm_starts_with(m, "\\x")) __cm_nb_meta[i] = "\\x" + __cm_nb_upper(__cm_slice(m, 2));
}

function __cm_nb_upper(hex) {
  let out = "";
  for (let i = 0; i < hex.length; i++) {
    const c = hex[i];
    const at = __cm_index_of("abcdef", c);
    out += at >= 0 ? "ABCDEF"[at] : c;
  }
  return out;
}

// A throw-free brand check: `fn(value)` does not throw.
function __cm_nb_is(fn, value) {
  try { fn(value); return true; } catch (e) { __cm_end_if_out_of_memory(e); return false; }
}

function __cm_nb_descriptor(obj, key) {
  const d = __cm_own_descriptor(obj, key);
  if (d !== undefined) __cm_set_prototype_of(d, null);
  return d;
}

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

function __cm_nb_number(n) {
  return n === 0 && 1 / n < 0 ? "-0" : "" + n;
}

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
function __cm_nb_constructor(obj, ctx, recurseTimes) {
  let first;
  let o = obj;
  while (o !== null && o !== undefined) {
    const d = __cm_nb_descriptor(o, "constructor");
    if (d !== undefined && typeof d.value === "function" && d.value.name !== "") {
      let instance = false;
      try { instance = __cm_has_instance(d.value, obj); } catch (e) { __cm_end_if_out_of_memory(e); }
      if (instance) return __cm_String(d.value.name);
    }
    o = __cm_get_prototype_of(o);
    if (first === undefined) first = o;
  }
  if (first === null) return null;
  if (recurseTimes > ctx.depth) return "Object <Complex prototype>";
  const inner = __cm_nb_constructor(first, ctx, recurseTimes + 1);
  if (inner === null) {
    const sub = __cm_nb_context(-1, false);
    return "Object <" + __cm_nb_value(sub, first, 0) + ">";
  }
  return "Object <" + inner + ">";
}

function __cm_nb_prefix(constructor, tag, fallback, size) {
  size = size === undefined ? "" : size;
  if (constructor === null) {
    if (tag !== "" && fallback !== tag) return "[" + fallback + size + ": null prototype] [" + tag + "] ";
    return "[" + fallback + size + ": null prototype] ";
  }
  if (tag !== "" && constructor !== tag) return constructor + size + " [" + tag + "] ";
  return constructor + size + " ";
}

function __cm_nb_value(ctx, value, recurseTimes) {
  if (typeof value !== "object" && typeof value !== "function") return __cm_nb_primitive(value, ctx);
  if (value === null) return "null";
  if (__cm_list_index_of(ctx.seen, value) >= 0) {
    if (ctx.circular === null) ctx.circular = __cm_list();
    let index = __cm_list_index_of(ctx.circular, value);
    if (index < 0) {
      __cm_push(ctx.circular, value);
      index = ctx.circular.length - 1;
    }
    return "[Circular *" + (index + 1) + "]";
  }
  return __cm_nb_raw(ctx, value, recurseTimes);
}

// The kind of a function (type "Function", "AsyncFunction", ...) and its class-ness.
function __cm_nb_function_base(value, constructor, tag) {
  let source = "";
  try { source = __cm_nb.function_string(value); } catch (e) { __cm_end_if_out_of_memory(e); }
  if (__cm_starts_with(source, "class") && __cm_ends_with(source, "}")) {
    const body = __cm_slice(source, 5, -1);
    const brace = __cm_index_of(body, "{");
    if (brace !== -1 && __cm_index_of(__cm_slice(body, 0, brace), "(") < 0) {
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

function __cm_nb_boxed_base(value, type, ctx, keys, constructor, tag) {
  const unbox = { __proto__: null, Number: __cm_nb.number_value, String: __cm_nb.string_value,
    Boolean: __cm_nb.boolean_value, BigInt: __cm_nb.bigint_value, Symbol: __cm_nb.symbol_value }[type];
  const primitive = unbox(value);
  if (type === "String") {
    // The index keys of a String object repeat its value.
    let drop = primitive.length;
    while (drop > 0 && keys.length > 0) { __cm_nb_shift(keys); drop--; }
  }
  let base = "[" + type;
  if (type !== constructor) base += constructor === null ? " (null prototype)" : " (" + constructor + ")";
  const sub = __cm_nb_context(ctx.depth, false);
  sub.indentationLvl = ctx.indentationLvl;
  base += ": " + __cm_nb_primitive(primitive, sub) + "]";
  if (tag !== "" && tag !== constructor) base += " [" + tag + "]";
  return base;
}

function __cm_nb_shift(list) {
  for (let i = 1; i < list.length; i++) list[i - 1] = list[i];
  list.length -= 1;
}

function __cm_nb_is_error(value) {
  if (__cm_object_to_string(value) === "[object Error]") return true;
  try { return __cm_has_instance(__cm_Error, value); } catch (e) { __cm_end_if_out_of_memory(e); return false; }
}

function __cm_nb_more(remaining, what) {
  return "... " + remaining + " more " + what + (remaining > 1 ? "s" : "");
}

// formatRaw: the braces, the base and the entries of an object, then one string.
function __cm_nb_raw(ctx, value, recurseTimes) {
  const constructor = __cm_nb_constructor(value, ctx, recurseTimes);
  let tag = value[__cm_nb.tag_key];
  if (typeof tag !== "string") tag = "";
  else if (tag !== "") {
    const own = __cm_nb_descriptor(value, __cm_nb.tag_key);
    if (own !== undefined && (ctx.showHidden || own.enumerable)) tag = "";
  }
  let base = "";
  let keys;
  let braces;
  let formatter = null;
  let extrasType = "object";
  const typedTag = __cm_nb.typed_tag(value);
  if (__cm_is_array(value)) {
    const prefix = constructor !== "Array" || tag !== "" ? __cm_nb_prefix(constructor, tag, "Array", "(" + value.length + ")") : "";
    keys = __cm_nb_keys(value, ctx.showHidden, true);
    braces = __cm_nb_pair(prefix + "[", "]");
    if (value.length === 0 && keys.length === 0) return braces[0] + "]";
    extrasType = "array";
    formatter = __cm_nb_array;
  } else if (__cm_nb_is(__cm_nb.set_size, value)) {
    const size = __cm_nb.set_size(value);
    const prefix = __cm_nb_prefix(constructor, tag, "Set", "(" + size + ")");
    keys = __cm_nb_keys(value, ctx.showHidden, false);
    formatter = __cm_nb_set;
    if (size === 0 && keys.length === 0) return prefix + "{}";
    braces = __cm_nb_pair(prefix + "{", "}");
  } else if (__cm_nb_is(__cm_nb.map_size, value)) {
    const size = __cm_nb.map_size(value);
    const prefix = __cm_nb_prefix(constructor, tag, "Map", "(" + size + ")");
    keys = __cm_nb_keys(value, ctx.showHidden, false);
    formatter = __cm_nb_map;
    if (size === 0 && keys.length === 0) return prefix + "{}";
    braces = __cm_nb_pair(prefix + "{", "}");
  } else if (typedTag !== undefined) {
    keys = __cm_nb_keys(value, ctx.showHidden, true);
    const size = __cm_nb.typed_length(value);
    const prefix = __cm_nb_prefix(constructor, tag, constructor === null ? typedTag : "", "(" + size + ")");
    braces = __cm_nb_pair(prefix + "[", "]");
    if (size === 0 && keys.length === 0 && !ctx.showHidden) return braces[0] + "]";
    formatter = __cm_nb_typed;
    extrasType = "array";
  } else if (__cm_nb.is_prototype_of(__cm_nb.map_iterator_proto, value) ||
      __cm_nb.is_prototype_of(__cm_nb.set_iterator_proto, value)) {
    keys = __cm_nb_keys(value, ctx.showHidden, false);
    const kind = __cm_nb.is_prototype_of(__cm_nb.map_iterator_proto, value) ? "Map" : "Set";
    braces = __cm_nb_pair("[" + kind + " Iterator] {", "}");
    formatter = __cm_nb_unknown;
  } else {
    keys = __cm_nb_keys(value, ctx.showHidden, false);
    braces = __cm_nb_pair("{", "}");
    let boxed;
    if (typeof value === "function") {
      base = __cm_nb_function_base(value, constructor, tag);
      if (keys.length === 0) return base;
    } else if (constructor === "Object") {
      if (__cm_object_to_string(value) === "[object Arguments]") braces[0] = "[Arguments] {";
      else if (tag !== "") braces[0] = __cm_nb_prefix(constructor, tag, "Object") + "{";
      if (keys.length === 0) return braces[0] + "}";
    } else if (__cm_nb_is(__cm_nb.regexp_source, value)) {
      base = __cm_nb.regexp_string(value);
      const prefix = __cm_nb_prefix(constructor, tag, "RegExp");
      if (prefix !== "RegExp ") base = prefix + base;
      if (keys.length === 0 || recurseTimes > ctx.depth) return base;
    } else if (__cm_nb_is(__cm_nb.date_time, value)) {
      const time = __cm_nb.date_time(value);
      base = time !== time ? __cm_nb.date_string(value) : __cm_nb.date_iso(value);
      const prefix = __cm_nb_prefix(constructor, tag, "Date");
      if (prefix !== "Date ") base = prefix + base;
      if (keys.length === 0) return base;
    } else if (__cm_nb_is_error(value)) {
      base = __cm_nb_error(value, constructor, tag, ctx, keys);
      if (keys.length === 0) return base;
    } else if (__cm_nb_is(__cm_nb.buffer_length, value)) {
      const prefix = __cm_nb_prefix(constructor, tag, "ArrayBuffer");
      formatter = __cm_nb_buffer;
      braces[0] = prefix + "{";
      __cm_nb_unshift(keys, "byteLength");
    } else if (__cm_nb_is(__cm_nb.view_length, value)) {
      braces[0] = __cm_nb_prefix(constructor, tag, "DataView") + "{";
      __cm_nb_unshift(keys, "buffer");
      __cm_nb_unshift(keys, "byteOffset");
      __cm_nb_unshift(keys, "byteLength");
    } else if (__cm_nb.is_prototype_of(__cm_nb.promise_proto, value)) {
      braces[0] = __cm_nb_prefix(constructor, tag, "Promise") + "{";
      formatter = __cm_nb_unknown;
    } else if (__cm_nb_is(function __cm_nb_weak_set_brand(v) { __cm_nb.weak_set_has(v, __cm_nb); }, value)) {
      braces[0] = __cm_nb_prefix(constructor, tag, "WeakSet") + "{";
      formatter = __cm_nb_weak;
    } else if (__cm_nb_is(function __cm_nb_weak_map_brand(v) { __cm_nb.weak_map_has(v, __cm_nb); }, value)) {
      braces[0] = __cm_nb_prefix(constructor, tag, "WeakMap") + "{";
      formatter = __cm_nb_weak;
    } else if ((boxed = __cm_nb_boxed(value)) !== null) {
      base = __cm_nb_boxed_base(value, boxed, ctx, keys, constructor, tag);
      if (keys.length === 0) return base;
    } else {
      if (keys.length === 0) return __cm_nb_prefix(constructor, tag, "Object") + "{}";
      braces[0] = __cm_nb_prefix(constructor, tag, "Object") + "{";
    }
  }
  if (recurseTimes > ctx.depth) {
    let name = __cm_slice(__cm_nb_prefix(constructor, tag, "Object"), 0, -1);
    if (constructor !== null) name = "[" + name + "]";
    return name;
  }
  recurseTimes += 1;
  __cm_push(ctx.seen, value);
  ctx.currentDepth = recurseTimes;
  const output = formatter === null ? __cm_list() : formatter(ctx, value, recurseTimes);
  for (let i = 0; i < keys.length; i++) __cm_push(output, __cm_nb_property(ctx, value, recurseTimes, keys[i], extrasType));
  if (ctx.circular !== null) {
    const index = __cm_list_index_of(ctx.circular, value);
    if (index >= 0) {
      const reference = "<ref *" + (index + 1) + ">";
      base = base === "" ? reference : reference + " " + base;
    }
  }
  ctx.seen.length -= 1;
  return __cm_nb_reduce(ctx, output, base, braces, extrasType, recurseTimes, value);
}

function __cm_nb_pair(open, close) {
  const pair = __cm_list();
  __cm_push(pair, open);
  __cm_push(pair, close);
  return pair;
}

function __cm_nb_unshift(list, item) {
  for (let i = list.length; i > 0; i--) list[i] = list[i - 1];
  list[0] = item;
}

function __cm_nb_array(ctx, value, recurseTimes) {
  const length = value.length;
  const shown = length < 100 ? length : 100;
  const output = __cm_list();
  for (let i = 0; i < shown; i++) {
    if (!__cm_has_own(value, i)) return __cm_nb_sparse(ctx, value, recurseTimes, shown, output, i);
    __cm_push(output, __cm_nb_property(ctx, value, recurseTimes, i, "item"));
  }
  if (length > shown) __cm_push(output, __cm_nb_more(length - shown, "item"));
  return output;
}

// formatSpecialArray: an array with holes, `<N empty items>` for each run of them.
function __cm_nb_sparse(ctx, value, recurseTimes, maxLength, output, i) {
  const keys = __cm_object_keys(value);
  let index = i;
  for (; i < keys.length && output.length < maxLength; i++) {
    const key = keys[i];
    const tmp = __cm_Number(key);
    if (tmp > 4294967294) break;
    if ("" + index !== key) {
      if (!__cm_test(/^(?:0|[1-9][0-9]*)$/, key)) break;
      const empty = tmp - index;
      __cm_push(output, "<" + empty + " empty item" + (empty > 1 ? "s" : "") + ">");
      index = tmp;
      if (output.length === maxLength) break;
    }
    __cm_push(output, __cm_nb_property(ctx, value, recurseTimes, key, "item"));
    index++;
  }
  const remaining = value.length - index;
  if (output.length !== maxLength) {
    if (remaining > 0) __cm_push(output, "<" + remaining + " empty item" + (remaining > 1 ? "s" : "") + ">");
  } else if (remaining > 0) {
    __cm_push(output, __cm_nb_more(remaining, "item"));
  }
  return output;
}

function __cm_nb_typed(ctx, value) {
  const length = __cm_nb.typed_length(value);
  const shown = length < 100 ? length : 100;
  const output = __cm_list();
  for (let i = 0; i < shown; i++) {
    const item = value[i];
    __cm_push(output, typeof item === "bigint" ? __cm_String(item) + "n" : __cm_nb_number(item));
  }
  if (length > shown) __cm_push(output, __cm_nb_more(length - shown, "item"));
  return output;
}

function __cm_nb_set(ctx, value, recurseTimes) {
  const size = __cm_nb.set_size(value);
  const output = __cm_list();
  ctx.indentationLvl += 2;
  __cm_nb.set_for_each(value, function __cm_nb_set_item(item) {
    if (output.length < 100) __cm_push(output, __cm_nb_value(ctx, item, recurseTimes));
  });
  if (size > 100) __cm_push(output, __cm_nb_more(size - 100, "item"));
  ctx.indentationLvl -= 2;
  return output;
}

function __cm_nb_map(ctx, value, recurseTimes) {
  const size = __cm_nb.map_size(value);
  const output = __cm_list();
  ctx.indentationLvl += 2;
  __cm_nb.map_for_each(value, function __cm_nb_map_item(v, k) {
    if (output.length < 100) {
      __cm_push(output, __cm_nb_value(ctx, k, recurseTimes) + " => " + __cm_nb_value(ctx, v, recurseTimes));
    }
  });
  if (size > 100) __cm_push(output, __cm_nb_more(size - 100, "item"));
  ctx.indentationLvl -= 2;
  return output;
}

function __cm_nb_buffer(ctx, value) {
  const bytes = new __cm_nb.Uint8Array(value);
  const shown = bytes.length < 100 ? bytes.length : 100;
  let text = "";
  for (let i = 0; i < shown; i++) {
    const b = bytes[i];
    text += (i > 0 ? " " : "") + (b < 16 ? "0" : "") + __cm_nb.number_string(b, 16);
  }
  if (bytes.length > shown) text += " " + __cm_nb_more(bytes.length - shown, "byte");
  const output = __cm_list();
  __cm_push(output, "[Uint8Contents]: <" + text + ">");
  return output;
}

function __cm_nb_unknown() {
  const output = __cm_list();
  __cm_push(output, "<unknown>");
  return output;
}

function __cm_nb_weak() {
  const output = __cm_list();
  __cm_push(output, "<items unknown>");
  return output;
}

// formatProperty: `key: value` of an object's entry, or the value alone in an array.
function __cm_nb_property(ctx, value, recurseTimes, key, type) {
  let desc = __cm_nb_descriptor(value, key);
  if (desc === undefined) {
    desc = __cm_record();
    desc.value = value[key];
    desc.enumerable = true;
  }
  let str;
  if (desc.value !== undefined) {
    ctx.indentationLvl += 2;
    str = __cm_nb_value(ctx, desc.value, recurseTimes);
    ctx.indentationLvl -= 2;
  } else if (desc.get !== undefined) {
    str = desc.set !== undefined ? "[Getter/Setter]" : "[Getter]";
  } else if (desc.set !== undefined) {
    str = "[Setter]";
  } else {
    str = "undefined";
  }
  if (type === "item") return str;
  let name;
  if (typeof key === "symbol") name = "[" + __cm_nb_escape(__cm_nb.symbol_string(key), 39) + "]";
  else if (key === "__proto__") name = "['__proto__']";
  else if (desc.enumerable === false) name = "[" + __cm_nb_escape(key, 39) + "]";
  else if (__cm_test(/^[a-zA-Z_][a-zA-Z_0-9]*$/, key)) name = key;
  else name = __cm_nb_quote(key);
  return name + ": " + str;
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

// reduceToSingleString: one line when the entries fit within breakLength and the object
// holds at most `compact` (3) inner levels, else one entry per line (short array items
// grouped in columns).
function __cm_nb_reduce(ctx, output, base, braces, extrasType, recurseTimes, value) {
  const entries = output.length;
  if (extrasType === "array" && entries > 6) output = __cm_nb_group(ctx, output, value);
  if (ctx.currentDepth - recurseTimes < ctx.compact && entries === output.length) {
    const start = output.length + ctx.indentationLvl + braces[0].length + base.length + 10;
    if (__cm_nb_below_break(ctx, output, start, base)) {
      const joined = __cm_join(output, ", ");
      if (__cm_index_of(joined, "\n") < 0) {
        return (base ? base + " " : "") + braces[0] + " " + joined + " " + braces[1];
      }
    }
  }
  const indentation = "\n" + __cm_nb.repeat(" ", ctx.indentationLvl);
  return (base ? base + " " : "") + braces[0] + indentation + "  " +
    __cm_join(output, "," + indentation + "  ") + indentation + braces[1];
}

function __cm_nb_below_break(ctx, output, start, base) {
  let total = output.length + start;
  if (total + output.length > ctx.breakLength) return false;
  for (let i = 0; i < output.length; i++) {
    total += output[i].length;
    if (total > ctx.breakLength) return false;
  }
  return base === "" || __cm_index_of(base, "\n") < 0;
}

// groupArrayElements: short entries of a long array in aligned columns.
function __cm_nb_group(ctx, output, value) {
  let totalLength = 0;
  let maxLength = 0;
  let outputLength = output.length;
  if (100 < output.length) outputLength--;
  const separatorSpace = 2;
  const dataLen = __cm_list();
  for (let i = 0; i < outputLength; i++) {
    const len = output[i].length;
    dataLen[i] = len;
    totalLength += len + separatorSpace;
    if (maxLength < len) maxLength = len;
  }
  const actualMax = maxLength + separatorSpace;
  if (actualMax * 3 + ctx.indentationLvl < ctx.breakLength &&
      (totalLength / actualMax > 5 || maxLength <= 6)) {
    const averageBias = __cm_nb.sqrt(actualMax - totalLength / output.length);
    const biasedMax = __cm_nb.max(actualMax - 3 - averageBias, 1);
    const columns = __cm_nb.min(
      __cm_nb.round(__cm_nb.sqrt(2.5 * biasedMax * outputLength) / biasedMax),
      __cm_nb.floor((ctx.breakLength - ctx.indentationLvl) / actualMax),
      ctx.compact * 4,
      15);
    if (columns <= 1) return output;
    const tmp = __cm_list();
    const maxLineLength = __cm_list();
    for (let i = 0; i < columns; i++) {
      let lineLength = 0;
      for (let j = i; j < output.length; j += columns) {
        if (dataLen[j] > lineLength) lineLength = dataLen[j];
      }
      __cm_push(maxLineLength, lineLength + separatorSpace);
    }
    let padStart = true;
    if (value !== undefined) {
      for (let i = 0; i < output.length; i++) {
        const item = __cm_is_array(value) ? __cm_nb_own_value(value, i) : value[i];
        if (typeof item !== "number" && typeof item !== "bigint") { padStart = false; break; }
      }
    }
    for (let i = 0; i < outputLength; i += columns) {
      const max = __cm_nb.min(i + columns, outputLength);
      let str = "";
      let j = i;
      for (; j < max - 1; j++) {
        const cell = output[j] + ", ";
        str += padStart ? __cm_nb.pad_start(cell, maxLineLength[j - i], " ") : __cm_nb.pad_end(cell, maxLineLength[j - i], " ");
      }
      str += padStart ? __cm_nb.pad_start(output[j], maxLineLength[j - i] - separatorSpace, " ") : output[j];
      __cm_push(tmp, str);
    }
    if (100 < output.length) __cm_push(tmp, output[outputLength]);
    output = tmp;
  }
  return output;
}

// value[i] of an array without running a getter (Node reads it, getters included).
function __cm_nb_own_value(value, i) {
  const d = __cm_nb_descriptor(value, i);
  return d === undefined ? value[i] : d.value;
}

function __cm_inspect(value) {
  return __cm_nb_value(__cm_nb_context(2, false), value, 0);
}

// hasBuiltInToString: whether %s shows `value` inspected (true) or String(value).
function __cm_nb_builtin_to_string(value) {
  if (typeof value.toString !== "function") return true;
  if (__cm_has_own(value, "toString")) return false;
  let pointer = value;
  do { pointer = __cm_get_prototype_of(pointer); } while (pointer !== null && !__cm_has_own(pointer, "toString"));
  if (pointer === null) return true;
  const d = __cm_nb_descriptor(pointer, "constructor");
  return d !== undefined && typeof d.value === "function" && __cm_nb.builtins[d.value.name] === true;
}

let __cm_nb_circular_message = null;

// The first line of an engine error's own message (V8 adds the path of a cycle below it).
function __cm_nb_first_line(e) {
  const message = __cm_String(__cm_own_message(e));
  const end = __cm_index_of(message, "\n");
  return end < 0 ? message : __cm_slice(message, 0, end);
}

// %j: JSON text, `[Circular]` for a cycle (the engine's own cycle message recognised).
function __cm_nb_json(value) {
  try {
    return __cm_json_stringify(value);
  } catch (e) {
    __cm_end_if_out_of_memory(e);
    if (__cm_nb_circular_message === null) {
      const probe = __cm_record();
      probe.a = probe;
      try { __cm_json_stringify(probe); } catch (c) { __cm_nb_circular_message = __cm_nb_first_line(c); }
    }
    if (__cm_has_instance(__cm_TypeError, e) && __cm_nb_first_line(e) === __cm_nb_circular_message) return "[Circular]";
    throw e;
  }
}

// The text of one %-directive with argument `arg` (%s %d %i %f %j %o %O).
function __cm_nb_directive(c, arg) {
  if (c === "s") {
    if (typeof arg === "number") return __cm_nb_number(arg);
    if (typeof arg === "bigint") return __cm_String(arg) + "n";
    if (typeof arg !== "object" || arg === null || !__cm_nb_builtin_to_string(arg)) return __cm_String(arg);
    return __cm_nb_value(__cm_nb_context(0, false), arg, 0);
  }
  if (c === "j") return "" + __cm_nb_json(arg);
  if (c === "d" || c === "i" || c === "f") {
    if (typeof arg === "bigint" && c !== "f") return __cm_String(arg) + "n";
    if (typeof arg === "symbol") return "NaN";
    if (c === "d") return __cm_nb_number(__cm_Number(arg));
    return __cm_nb_number(c === "i" ? __cm_nb.parse_int(arg) : __cm_nb.parse_float(arg));
  }
  if (c === "O") return __cm_inspect(arg);
  return __cm_nb_value(__cm_nb_context(4, true), arg, 0);
}

function __cm_format(args) {
  const count = args.length;
  const first = args[0];
  let a = 0;
  let str = "";
  let join = "";
  if (typeof first === "string") {
    if (count === 1) return first;
    let lastPos = 0;
    for (let i = 0; i < first.length - 1; i++) {
      if (first[i] !== "%") continue;
      const c = first[++i];
      if (a + 1 !== count) {
        let text;
        if (c === "%") {
          str += __cm_slice(first, lastPos, i);
          lastPos = i + 1;
          continue;
        } else if (c === "c") {
          a += 1;
          text = "";
        } else if (__cm_index_of("sjdOoif", c) >= 0) {
          text = __cm_nb_directive(c, args[++a]);
        } else {
          continue;
        }
        if (lastPos !== i - 1) str += __cm_slice(first, lastPos, i - 1);
        str += text;
        lastPos = i + 1;
      } else if (c === "%") {
        str += __cm_slice(first, lastPos, i);
        lastPos = i + 1;
      }
    }
    if (lastPos !== 0) {
      a++;
      join = " ";
      if (lastPos < first.length) str += __cm_slice(first, lastPos);
    }
  }
  while (a < count) {
    const value = args[a];
    str += join + (typeof value !== "string" ? __cm_inspect(value) : value);
    join = " ";
    a++;
  }
  return str;
}

// ---- bundles ------------------------------------------------------------------------

const __cm_nb_row_limit = 1000;

// A plain object: its prototype is Object.prototype or null, and it is no array.
function __cm_nb_plain(value) {
  if (value === null || typeof value !== "object" || __cm_is_array(value)) return false;
  const proto = __cm_get_prototype_of(value);
  return proto === __cm_object_prototype || proto === null;
}

// A copy of `value` that JSON holds exactly (records and lists inheriting nothing), or
// undefined: only plain objects (own enumerable string-keyed data properties), dense
// arrays with no other own properties, strings, finite numbers other than -0, booleans
// and null; no cycles.
function __cm_nb_json_copy(value, path) {
  const t = typeof value;
  if (t === "string" || t === "boolean" || value === null) return value;
  if (t === "number") return __cm_is_finite(value) && !(value === 0 && 1 / value < 0) ? value : undefined;
  if (t !== "object") return undefined;
  if (__cm_list_index_of(path, value) >= 0) return undefined;
  const array = __cm_is_array(value);
  if (array ? __cm_get_prototype_of(value) !== __cm_array_prototype : !__cm_nb_plain(value)) return undefined;
  const keys = __cm_own_keys(value);
  const copy = array ? __cm_list() : __cm_record();
  __cm_push(path, value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const d = __cm_nb_descriptor(value, key);
    if (array && key === "length") continue;
    if (typeof key !== "string" || !__cm_has_own(d, "value")) return undefined;
    if (array && key !== "" + i) return undefined;
    if (!d.enumerable) {
      if (array) return undefined;
      continue;
    }
    const item = __cm_nb_json_copy(d.value, path);
    if (item === undefined) return undefined;
    __cm_define_value(copy, key, item, true, true, true);
  }
  path.length -= 1;
  if (array && copy.length !== value.length) return undefined;  // trailing holes
  return copy;
}

function __cm_nb_html_escape(text) {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "&") out += "&amp;";
    else if (c === "<") out += "&lt;";
    else if (c === ">") out += "&gt;";
    else if (c === '"') out += "&quot;";
    else if (c === "'") out += "&#39;";
    else out += c;
  }
  return out;
}

// A cell of the table: a string as it is, anything else as its inspect text.
function __cm_nb_cell(d) {
  if (__cm_has_own(d, "get") || __cm_has_own(d, "set")) {
    return d.get !== undefined ? (d.set !== undefined ? "[Getter/Setter]" : "[Getter]") : "[Setter]";
  }
  return typeof d.value === "string" ? d.value : __cm_inspect(d.value);
}

// The <table> of a non-empty array of plain objects, or undefined.
function __cm_nb_table(value) {
  if (!__cm_is_array(value) || value.length === 0) return undefined;
  const shown = value.length < __cm_nb_row_limit ? value.length : __cm_nb_row_limit;
  const columns = __cm_list();
  const seen = __cm_record();
  for (let i = 0; i < value.length; i++) {
    const d = __cm_nb_descriptor(value, i);
    if (d === undefined || !__cm_nb_plain(d.value)) return undefined;
    if (i >= shown) continue;
    const keys = __cm_nb_keys(d.value, false, false);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k];
      if (typeof key === "string" && seen[key] !== true) {
        seen[key] = true;
        __cm_push(columns, key);
      }
    }
  }
  let html = "<table>\n<thead>\n<tr>";
  for (let k = 0; k < columns.length; k++) html += "<th>" + __cm_nb_html_escape(columns[k]) + "</th>";
  html += "</tr>\n</thead>\n<tbody>\n";
  for (let i = 0; i < shown; i++) {
    const row = __cm_nb_descriptor(value, i).value;
    html += "<tr>";
    for (let k = 0; k < columns.length; k++) {
      const d = __cm_nb_descriptor(row, columns[k]);
      html += "<td>" + (d === undefined || !d.enumerable ? "" : __cm_nb_html_escape(__cm_nb_cell(d))) + "</td>";
    }
    html += "</tr>\n";
  }
  if (value.length > shown) {
    const left = value.length - shown;
    html += '<tr><td colspan="' + (columns.length > 0 ? columns.length : 1) + '">... ' + left + " more row" +
      (left > 1 ? "s" : "") + "</td></tr>\n";
  }
  return html + "</tbody>\n</table>";
}

// The display bundle of `value`: text/plain always, application/json for a plain object
// or array JSON holds exactly, text/html for a non-empty array of plain objects.
function __cm_bundle(value) {
  const bundle = __cm_record();
  bundle["text/plain"] = __cm_inspect(value);
  if (value !== null && typeof value === "object" && (__cm_is_array(value) || __cm_nb_plain(value))) {
    let copy;
    try {
      copy = __cm_nb_json_copy(value, __cm_list());
    } catch (e) {
      __cm_end_if_out_of_memory(e);
      copy = undefined;  // nesting deeper than the stack allows
    }
    if (copy !== undefined) bundle["application/json"] = copy;
  }
  const table = __cm_nb_table(value);
  if (table !== undefined) bundle["text/html"] = table;
  return bundle;
}
