// Notebook profile, part 3 of 3 (after notebook_text.js and notebook_inspect.js): the text
// of a value as Node's util.inspect writes it with its default options, util.format (what
// console.log prints) and a value's display bundle. Pure functions (no host calls), named
// __cm_*, using the intrinsics captured before cell code ran (intrinsics.js and the top of
// notebook_text.js), so a cell that replaces built-ins cannot steer them. Upstream: Node
// v20 lib/internal/util/inspect.js (inspect, formatWithOptionsInternal, hasBuiltInToString).
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
// - a proxy is inspected through its traps (Node reads its target directly, so traps that
//   lie or throw change the text here only); a revoked one shows `<Revoked Proxy>` as in
//   Node; Symbol.for('nodejs.util.inspect.custom') methods are not called;
// - the class name V8 keeps for an object whose prototype chain has no constructor
//   (`Object <[Object: null prototype] {}>` in Node) is always taken to be "Object";
// - an async or generator function is recognised by its prototype (the built-in
//   AsyncFunction.prototype & co.), a bound function by its "bound " name; QuickJS gives
//   a bound function Function.prototype as prototype (V8 and the specification: the
//   target's), so a bound async function there shows `[Function: bound f]`, not
//   `[Function: bound f] AsyncFunction`;
// - errors: the stack is the engine's `error.stack` (V8's form once stack.js has run on
//   QuickJS); Node's trimming of node_modules / node:internal frames does not apply;
// - %o shows what the engine keeps: V8 14 makes an error's `stack` an own accessor
//   (`[stack]: [Getter/Setter]`), QuickJS keeps it on Error.prototype.
// Numbers are written as V8 writes them on both engines (__cm_nb_number, for QuickJS). The
// columns of grouped array items are counted as Node's ICU counts them, but East Asian wide
// characters come from a fixed table (__cm_nb_width). A bundle and its JSON copy are
// records and lists that inherit nothing, so a toJSON a cell put on Object.prototype does
// not reach them (serialise them with the intrinsic JSON.stringify).
// A getter that throws, a toStringTag or `name` accessor that throws, or a failing
// JSON.stringify under %j propagates, as in Node.

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

// util.format(...args) -> string, for a list of arguments (what console.log prints).
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

// `text` safe in HTML text and attribute values.
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

// The table or JSON part of `value`'s bundle (see __cm_bundle), added to `bundle`.
function __cm_nb_rich_parts(value, bundle) {
  const table = __cm_nb_table(value);
  if (table !== undefined) {
    bundle["text/html"] = table;
  } else if (value !== null && typeof value === "object" && (__cm_is_array(value) || __cm_nb_plain(value))) {
    let copy;
    try {
      copy = __cm_nb_json_copy(value, __cm_list());
    } catch (e) {
      __cm_end_if_out_of_memory(e);
      copy = undefined;  // nesting deeper than the stack allows
    }
    if (copy !== undefined) bundle["application/json"] = copy;
  }
}

// The display bundle of `value`: text/plain always; text/html with a table for a non-empty
// array of plain objects; otherwise application/json for a plain object or array JSON holds
// exactly. A table goes without its JSON: JupyterLab ranks its JSON viewer above HTML, so the
// table would never be seen (ipykernel's data frames also send only text/html and text/plain).
function __cm_bundle(value) {
  const bundle = __cm_record();
  bundle["text/plain"] = __cm_inspect(value);
  try {
    __cm_nb_rich_parts(value, bundle);
  } catch (e) {
    // A value inspect could show but not walk as data (a revoked Proxy: Array.isArray
    // throws): its text alone.
    __cm_end_if_out_of_memory(e);
  }
  return bundle;
}
