// Intrinsics: every built-in the prelude calls after cell code started, captured here,
// before any cell code runs, so that what a cell does to the built-ins (replacing
// JSON.stringify, Array.prototype.push or Promise.prototype.then, putting getters or
// setters on Object.prototype) cannot steer the runtime's own code.
//
// Rules for the code of the other parts, wherever it runs after cell code started:
// - methods are called uncurried (`__cm_slice(s, 0, 3)`), never as `s.slice(0, 3)`;
// - the runtime's own records and lists have a null prototype (`__cm_record()`,
//   `__cm_list()`), so reading a missing field or writing a new one never reaches a
//   getter or setter a cell put on Object.prototype or Array.prototype;
// - no spread, for-of or destructuring over the runtime's own values (they go through
//   Array.prototype[Symbol.iterator]), no `instanceof` (it reads Symbol.hasInstance);
// - string searches use `__cm_exec` (RegExp.prototype.exec reads only the regexp's own
//   lastIndex) or `__cm_index_of`; never split/replace/match, which look up
//   Symbol.split & co. on their argument.
// Where Codex's host honours a cell's changes (a toJSON on Object.prototype reaches
// JSON.stringify of the cell's own values; a `then` on Object.prototype makes a tool's
// result a thenable), the same happens here, because those are user values.

const __cm_uncurry = Function.prototype.bind.bind(Function.prototype.call);
const __cm_apply = Reflect.apply;
const __cm_Function = Function;  // compiles what is loaded on first use (Intl, readers.js)
const __cm_iterator_key = Symbol.iterator;
const __cm_own_keys = Reflect.ownKeys;
const __cm_invoke = __cm_uncurry(Function.prototype.call);
const __cm_bind = __cm_uncurry(Function.prototype.bind);
const __cm_has_instance = __cm_uncurry(Function.prototype[Symbol.hasInstance]);

const __cm_Object = Object;
const __cm_define_property = Object.defineProperty;
const __cm_own_descriptor = Object.getOwnPropertyDescriptor;
const __cm_get_prototype_of = Object.getPrototypeOf;
const __cm_set_prototype_of = Object.setPrototypeOf;
const __cm_object_create = Object.create;
const __cm_object_keys = Object.keys;
const __cm_has_own = Object.hasOwn;
const __cm_object_to_string = __cm_uncurry(Object.prototype.toString);
const __cm_object_prototype = Object.prototype;
const __cm_array_prototype = Array.prototype;
const __cm_function_prototype = Function.prototype;

const __cm_is_array = Array.isArray;
const __cm_array_from = Array.from;
const __cm_join = __cm_uncurry(Array.prototype.join);
const __cm_list_index_of = __cm_uncurry(Array.prototype.indexOf);

const __cm_String = String;
const __cm_slice = __cm_uncurry(String.prototype.slice);
const __cm_index_of = __cm_uncurry(String.prototype.indexOf);
const __cm_starts_with = __cm_uncurry(String.prototype.startsWith);
const __cm_ends_with = __cm_uncurry(String.prototype.endsWith);
const __cm_lower = __cm_uncurry(String.prototype.toLowerCase);
const __cm_trim = __cm_uncurry(String.prototype.trim);
const __cm_char_code_at = __cm_uncurry(String.prototype.charCodeAt);
const __cm_is_well_formed = __cm_uncurry(String.prototype.isWellFormed);
const __cm_to_fixed = __cm_uncurry(Number.prototype.toFixed);

const __cm_RegExp = RegExp;
const __cm_regexp_exec = __cm_uncurry(RegExp.prototype.exec);

const __cm_Number = Number;
const __cm_is_finite = Number.isFinite;
const __cm_is_integer = Number.isInteger;
const __cm_trunc = Math.trunc;
const __cm_abs = Math.abs;

const __cm_json_stringify = JSON.stringify;
const __cm_json_parse_intrinsic = JSON.parse;

const __cm_Promise = Promise;
const __cm_promise_then = __cm_uncurry(Promise.prototype.then);
const __cm_promise_resolve = Promise.resolve;

const __cm_async_generator_next = __cm_uncurry(__cm_get_prototype_of((async function* () {}).prototype).next);

const __cm_Map = Map;
const __cm_WeakMap = WeakMap;
const __cm_weak_get = __cm_uncurry(WeakMap.prototype.get);
const __cm_weak_set = __cm_uncurry(WeakMap.prototype.set);

const __cm_Error = Error;
const __cm_TypeError = TypeError;
const __cm_SyntaxError = SyntaxError;
const __cm_InternalError = globalThis.InternalError;

// Heap kept aside so that the report of an exhausted heap can still run (see below).
let __cm_reserve = new ArrayBuffer(64 * 1024);

// A record (string keys) or list (dense indices) that inherits nothing.
function __cm_record() {
  return __cm_object_create(null);
}

function __cm_list() {
  return __cm_set_prototype_of([], null);
}

function __cm_push(list, value) {
  list[list.length] = value;
}

// A property definition whose descriptor inherits nothing (a `get` on Object.prototype
// would otherwise turn `{value}` into an invalid accessor descriptor).
function __cm_define_value(target, key, value, writable, enumerable, configurable) {
  __cm_define_property(target, key, {
    __proto__: null, value, writable: !!writable, enumerable: !!enumerable, configurable: !!configurable,
  });
}

// The message an engine error carries as its own property (undefined otherwise).
function __cm_own_message(e) {
  const own = __cm_own_descriptor(e, "message");
  return own !== undefined && __cm_has_own(own, "value") ? own.value : undefined;
}

// Every catch of the runtime's own code passes what it caught through here first. An
// allocation failure (QuickJS throws InternalError "out of memory", or null when even
// that error could not be allocated) ends the cell, whatever code meets it: the reserve
// is released so this report can run, the cell thread records the heap-limit RangeError
// and interrupts the context, so this call does not return. A thrown null the cell
// thread does not judge to be an exhausted heap returns here and is handled as a value.
function __cm_end_if_out_of_memory(e) {
  let kind;
  if (e === null) {
    kind = "null";
  } else if (typeof e === "object" && __cm_InternalError !== undefined &&
      __cm_has_instance(__cm_InternalError, e) && __cm_own_message(e) === "out of memory") {
    kind = "error";
  } else {
    return;
  }
  __cm_reserve = null;
  if (__cm_host("oom", kind) === "ended") {
    for (;;) { /* the interrupt lands here */ }
  }
  try {
    __cm_reserve = new ArrayBuffer(64 * 1024);
  } catch (_) { /* go on without a reserve */ }
}

// `regexp.exec(text)` with the intrinsic exec (a sticky or global regexp's lastIndex is
// reset first, so the search always starts at the beginning).
function __cm_exec(regexp, text) {
  regexp.lastIndex = 0;
  return __cm_regexp_exec(regexp, text);
}

function __cm_test(regexp, text) {
  return __cm_exec(regexp, text) !== null;
}

// The character at `i`, or "" past either end (indexing a string out of range would
// look the index up on String.prototype and Object.prototype).
function __cm_char_at(text, i) {
  return i >= 0 && i < text.length ? text[i] : "";
}

// `text.split(separator)` for a string separator, without Symbol.split.
function __cm_split(text, separator) {
  const out = __cm_list();
  let start = 0;
  for (;;) {
    const at = __cm_index_of(text, separator, start);
    if (at < 0) break;
    __cm_push(out, __cm_slice(text, start, at));
    start = at + separator.length;
  }
  __cm_push(out, __cm_slice(text, start));
  return out;
}

// `list.join(separator)` for the runtime's own lists.
function __cm_join_list(list, separator) {
  return __cm_join(list, separator);
}

// `p.then(onFulfilled, onRejected)` on a promise the runtime owns, immune to a
// Promise.prototype.constructor a cell replaced (`then` looks it up for the species).
function __cm_watch_promise(promise, onFulfilled, onRejected) {
  __cm_define_value(promise, "constructor", undefined, true, false, true);
  __cm_promise_then(promise, onFulfilled, onRejected);
}
