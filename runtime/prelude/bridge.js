// The bridge to the cell thread and how helpers are installed; yield_control and exit.

// One call into the cell thread. `arg` is a string the binding passes through C strlen:
// plain strings that may hold a NUL or a lone surrogate (notify text, a load key, an
// error text) cross as JSON string literals; the other operations send JSON text.
// The reply is null, or a tagged string: "v" + JSON text of the value, or "e" + the text
// of an error, thrown as a plain string (Codex's helpers throw strings).
function __cm_call(op, arg) {
  let tag;
  let rest;
  try {
    // slice(0) flattens QuickJS rope strings, which the binding cannot convert.
    const reply = __cm_host(op, arg === undefined ? "" : __cm_slice(arg, 0));
    if (typeof reply !== "string" || reply === "") return undefined;
    tag = reply[0];
    rest = __cm_slice(reply, 1);
    if (tag !== "e" && rest !== "") return __cm_json_parse_intrinsic(rest);
  } catch (e) {
    __cm_end_if_out_of_memory(e);
    throw e;
  }
  if (tag === "e") throw rest;
  return undefined;
}

// JSON string literal of a string (the intrinsic JSON.stringify never consults a
// prototype for a primitive string).
function __cm_quote(text) {
  return __cm_json_stringify(text);
}

// Emit one content item: a record of string fields the runtime built, written as JSON
// by hand (JSON.stringify of an object would reach what a cell put on the prototypes).
function __cm_emit(item) {
  const keys = __cm_object_keys(item);
  let json = "{";
  for (let i = 0; i < keys.length; i++) {
    json += (i > 0 ? "," : "") + __cm_quote(keys[i]) + ":" + __cm_quote(item[keys[i]]);
  }
  __cm_call("emit", json + "}");
}

// A helper shaped as Codex's host shows it. Its native helpers (text, image, exit, the
// tools.* functions, ...) are V8 API functions: name "", length 0, an own `prototype`
// object whose `constructor` is the helper. content and as_settled are plain JavaScript
// functions with their own name and length; stream_settled is an async function (no
// `prototype`, AsyncFunction.prototype as its prototype). `bound` is a bound function
// of the implementation, so its source never shows.
function __cm_shape(bound, name, length, target) {
  __cm_define_value(bound, "length", length, false, false, true);
  __cm_define_value(bound, "name", name, false, false, true);
  const proto = __cm_get_prototype_of(target);
  if (__cm_get_prototype_of(bound) !== proto) __cm_set_prototype_of(bound, proto);
  if (proto === __cm_function_prototype) {
    const prototype = {};
    __cm_define_value(prototype, "constructor", bound, true, false, true);
    __cm_define_value(bound, "prototype", prototype, true, false, false);
  }
  return bound;
}

// Install global `name` (writable, enumerable, configurable, as Codex's globals are),
// shown with `shownName` and `length` (see __cm_shape).
function __cm_define(name, fn, shownName, length) {
  const helper = __cm_shape(__cm_bind(fn, undefined), shownName, length, fn);
  __cm_define_value(globalThis, name, helper, true, true, true);
}

function __cm_yield_control() {
  __cm_call("yield", "");
}

function __cm_exit() {
  __cm_exiting = true;
  // The host interrupts the context (uncatchable, no finally blocks). Without an
  // interrupt the call throws a catchable string instead (as Codex's earlier hosts did);
  // the cell ends all the same, because exit() ran, whatever the cell then throws.
  __cm_call("exit", "");
  for (;;) { /* the interrupt lands here */ }
}
