// Notebook profile, part 2 of 3: util.inspect's recursion (lib/internal/util/inspect.js:
// formatValue, formatRaw, formatArray, formatSpecialArray, formatTypedArray, formatSet,
// formatMap, formatArrayBuffer, formatProperty, reduceToSingleString, isBelowBreakLength,
// groupArrayElements) with its default options: depth 2, no colours, breakLength 80,
// compact 3, maxArrayLength 100, maxStringLength 10000.

// formatValue: a primitive, `[Circular *N]` for an object being formatted, else formatRaw.
function __cm_nb_value(ctx, value, recurseTimes, typedArray) {
  if (typeof value !== "object" && typeof value !== "function") return __cm_nb_primitive(value, ctx);
  if (value === null) return "null";
  if (__cm_nb_revoked(value)) return "<Revoked Proxy>";
  if (__cm_list_index_of(ctx.seen, value) >= 0) {
    if (ctx.circular === null) ctx.circular = __cm_list();
    let index = __cm_list_index_of(ctx.circular, value);
    if (index < 0) {
      __cm_push(ctx.circular, value);
      index = ctx.circular.length - 1;
    }
    return "[Circular *" + (index + 1) + "]";
  }
  return __cm_nb_raw(ctx, value, recurseTimes, typedArray);
}

// A revoked proxy (Array.isArray throws for it, and only for it).
function __cm_nb_revoked(value) {
  try { __cm_is_array(value); return false; } catch (e) { __cm_end_if_out_of_memory(e); return true; }
}

// formatRaw: the braces, the base and the entries of an object, then one string.
function __cm_nb_raw(ctx, value, recurseTimes, typedArray) {
  // %o: the accessors and values a user class's prototypes hold, formatted now.
  let protoProps = ctx.showHidden && recurseTimes <= ctx.depth ? __cm_list() : null;
  const constructor = __cm_nb_constructor(value, ctx, recurseTimes, protoProps);
  if (protoProps !== null && protoProps.length === 0) protoProps = null;
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
    if (value.length === 0 && keys.length === 0 && protoProps === null) return braces[0] + "]";
    extrasType = "array";
    formatter = __cm_nb_array;
  } else if (__cm_nb_is(__cm_nb.set_size, value) || __cm_nb_is(__cm_nb.map_size, value)) {
    const isMap = __cm_nb_is(__cm_nb.map_size, value);
    const size = isMap ? __cm_nb.map_size(value) : __cm_nb.set_size(value);
    const prefix = __cm_nb_prefix(constructor, tag, isMap ? "Map" : "Set", "(" + size + ")");
    keys = __cm_nb_keys(value, ctx.showHidden, false);
    formatter = isMap ? __cm_nb_map : __cm_nb_set;
    if (size === 0 && keys.length === 0 && protoProps === null) return prefix + "{}";
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
      if (keys.length === 0 && protoProps === null) return base;
    } else if (constructor === "Object") {
      if (__cm_object_to_string(value) === "[object Arguments]") braces[0] = "[Arguments] {";
      else if (tag !== "") braces[0] = __cm_nb_prefix(constructor, tag, "Object") + "{";
      if (keys.length === 0 && protoProps === null) return braces[0] + "}";
    } else if (__cm_nb_is(__cm_nb.regexp_source, value)) {
      base = __cm_nb.regexp_string(value);
      const prefix = __cm_nb_prefix(constructor, tag, "RegExp");
      if (prefix !== "RegExp ") base = prefix + base;
      if (keys.length === 0 && protoProps === null || recurseTimes > ctx.depth) return base;
    } else if (__cm_nb_is(__cm_nb.date_time, value)) {
      const time = __cm_nb.date_time(value);
      base = time !== time ? __cm_nb.date_string(value) : __cm_nb.date_iso(value);
      const prefix = __cm_nb_prefix(constructor, tag, "Date");
      if (prefix !== "Date ") base = prefix + base;
      if (keys.length === 0 && protoProps === null) return base;
    } else if (__cm_nb_is_error(value)) {
      base = __cm_nb_error(value, constructor, tag, ctx, keys);
      if (keys.length === 0 && protoProps === null) return base;
    } else if (__cm_nb_is(__cm_nb.buffer_length, value)) {
      const prefix = __cm_nb_prefix(constructor, tag, "ArrayBuffer");
      if (typedArray !== true) formatter = __cm_nb_buffer;
      else if (keys.length === 0 && protoProps === null) return prefix + "{ byteLength: " + __cm_nb_number(__cm_nb.buffer_length(value)) + " }";
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
      if (keys.length === 0 && protoProps === null) return base;
    } else {
      if (keys.length === 0 && protoProps === null) return __cm_nb_prefix(constructor, tag, "Object") + "{}";
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
  if (protoProps !== null) for (let i = 0; i < protoProps.length; i++) __cm_push(output, protoProps[i]);
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

// formatArray: the first 100 items.
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

// formatTypedArray: the first 100 elements (and, for %o, the hidden fields).
function __cm_nb_typed(ctx, value, recurseTimes) {
  const length = __cm_nb.typed_length(value);
  const shown = length < 100 ? length : 100;
  const output = __cm_list();
  for (let i = 0; i < shown; i++) {
    const item = value[i];
    __cm_push(output, typeof item === "bigint" ? __cm_String(item) + "n" : __cm_nb_number(item));
  }
  if (length > shown) __cm_push(output, __cm_nb_more(length - shown, "item"));
  if (ctx.showHidden) {
    // %o: the typed array's own data, as Node lists it (the buffer last).
    ctx.indentationLvl += 2;
    const hidden = ["BYTES_PER_ELEMENT", "length", "byteLength", "byteOffset", "buffer"];
    for (let i = 0; i < hidden.length; i++) {
      __cm_push(output, "[" + hidden[i] + "]: " + __cm_nb_value(ctx, value[hidden[i]], recurseTimes, true));
    }
    ctx.indentationLvl -= 2;
  }
  return output;
}

// formatSet / formatMap: the first 100 entries (`key => value` for a Map).
function __cm_nb_entries(ctx, value, recurseTimes, isMap) {
  const size = isMap ? __cm_nb.map_size(value) : __cm_nb.set_size(value);
  const output = __cm_list();
  ctx.indentationLvl += 2;
  const each = function __cm_nb_entry(v, k) {
    if (output.length >= 100) return;
    const item = __cm_nb_value(ctx, isMap ? k : v, recurseTimes);
    __cm_push(output, isMap ? item + " => " + __cm_nb_value(ctx, v, recurseTimes) : item);
  };
  if (isMap) __cm_nb.map_for_each(value, each);
  else __cm_nb.set_for_each(value, each);
  if (size > 100) __cm_push(output, __cm_nb_more(size - 100, "item"));
  ctx.indentationLvl -= 2;
  return output;
}

function __cm_nb_set(ctx, value, recurseTimes) {
  return __cm_nb_entries(ctx, value, recurseTimes, false);
}

function __cm_nb_map(ctx, value, recurseTimes) {
  return __cm_nb_entries(ctx, value, recurseTimes, true);
}

// formatArrayBuffer: `[Uint8Contents]: <00 ff>`.
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
function __cm_nb_property(ctx, value, recurseTimes, key, type, given) {
  let desc = given !== undefined ? given : __cm_nb_descriptor(value, key);
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
    const len = __cm_nb_width(output[i]);
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
        const padding = maxLineLength[j - i] + output[j].length - dataLen[j];
        str += padStart ? __cm_nb.pad_start(cell, padding, " ") : __cm_nb.pad_end(cell, padding, " ");
      }
      const padding = maxLineLength[j - i] + output[j].length - dataLen[j] - separatorSpace;
      str += padStart ? __cm_nb.pad_start(output[j], padding, " ") : output[j];
      __cm_push(tmp, str);
    }
    if (100 < output.length) __cm_push(tmp, output[outputLength]);
    output = tmp;
  }
  return output;
}

// addPrototypeProperties (%o): the non-function properties of up to three prototypes of
// `main` below the first built-in one, those `main` or a nearer prototype has left out.
function __cm_nb_proto_props(ctx, main, obj, recurseTimes, output) {
  let keys = null;
  const shadowed = __cm_list();
  for (let depth = 0; depth < 3; depth++) {
    if (depth !== 0 || main === obj) {
      obj = __cm_get_prototype_of(obj);
      if (obj === null) return;
      const d = __cm_nb_descriptor(obj, "constructor");
      if (d !== undefined && typeof d.value === "function" && __cm_nb.builtins[d.value.name] === true) return;
    }
    if (keys !== null) for (let i = 0; i < keys.length; i++) __cm_push(shadowed, keys[i]);
    keys = __cm_own_keys(obj);
    __cm_push(ctx.seen, main);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (key === "constructor" || __cm_has_own(main, key) || (depth !== 0 && __cm_list_index_of(shadowed, key) >= 0)) continue;
      const desc = __cm_nb_descriptor(obj, key);
      if (typeof desc.value === "function") continue;
      __cm_push(output, __cm_nb_property(ctx, obj, recurseTimes, key, "object", desc));
    }
    ctx.seen.length -= 1;
  }
}

// getStringWidth: the columns a text takes in a terminal, as Node (with ICU) counts them:
// 0 for marks, format and control characters, 2 for East Asian wide and full-width ones
// and emoji shown as emoji, else 1. Plain JavaScript has no East Asian Width property:
// the wide ranges are those of Node's own table for builds without ICU.
function __cm_nb_width(text) {
  let width = 0;
  let i = 0;
  while (i < text.length && __cm_char_code_at(text, i) < 127) {
    if (__cm_char_code_at(text, i) >= 32) width++;
    i++;
  }
  if (i === text.length) return width;
  const rest = __cm_nb.normalize(__cm_slice(text, i), "NFC");
  for (let k = 0; k < rest.length; k++) {
    const code = __cm_nb.code_point_at(rest, k);
    if (code > 0xffff) k++;
    const c = __cm_nb.from_code_point(code);
    if (code !== 0xad && __cm_test(__cm_nb_zero_width_re, c)) continue;
    width += __cm_nb_wide(code) || __cm_test(__cm_nb_emoji_re, c) ? 2 : 1;
  }
  return width;
}

const __cm_nb_zero_width_re = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}\p{Emoji_Modifier}]$/u;
const __cm_nb_emoji_re = /^\p{Emoji_Presentation}$/u;

function __cm_nb_wide(code) {
  return code >= 0x1100 && (code <= 0x115f || code === 0x2329 || code === 0x232a ||
    (code >= 0x2e80 && code <= 0x3247 && code !== 0x303f) || (code >= 0x3250 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0xa4c6) || (code >= 0xa960 && code <= 0xa97c) ||
    (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe10 && code <= 0xfe19) || (code >= 0xfe30 && code <= 0xfe6b) ||
    (code >= 0xff01 && code <= 0xff60) || (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1b000 && code <= 0x1b001) || (code >= 0x1f200 && code <= 0x1f251) ||
    (code >= 0x1f300 && code <= 0x1f64f) || (code >= 0x20000 && code <= 0x3fffd));
}

// value[i] of an array without running a getter (Node reads it, getters included).
function __cm_nb_own_value(value, i) {
  const d = __cm_nb_descriptor(value, i);
  return d === undefined ? value[i] : d.value;
}

// util.inspect(value) with Node's default options -> string.
function __cm_inspect(value) {
  return __cm_nb_value(__cm_nb_context(2, false), value, 0);
}
