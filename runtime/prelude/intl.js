// Intl, and the locale methods of Number, BigInt, Date, String and Array, as V8 gives them.
// QuickJS has no Intl: every call crosses to the host as one "intl" request of JSON data
// (runtime/intl/: V8 constructs the object and checks its options; ICU or V8 answers).
// Only a small part is here, so a cell that never uses Intl does not compile the rest:
// Intl's members are accessors and the built-in methods are stubs until the first use
// asks the host for runtime/intl/objects.js and compiles it with the Function constructor
// captured below (its functions are all named __cm_*, so their frames never show).

const __cm_Proxy = Proxy;
const __cm_intl_captured = __cm_record();
__cm_intl_captured.RangeError = RangeError;
__cm_intl_captured.TypeError = TypeError;
__cm_intl_captured.SyntaxError = SyntaxError;
__cm_intl_captured.ReferenceError = ReferenceError;
__cm_intl_captured.date_time = __cm_uncurry(Date.prototype.getTime);
__cm_intl_captured.date_now = Date.now;
__cm_intl_captured.number_value = __cm_uncurry(Number.prototype.valueOf);
__cm_intl_captured.bigint_value = __cm_uncurry(BigInt.prototype.valueOf);
__cm_intl_captured.upper_locale = __cm_uncurry(String.prototype.toLocaleUpperCase);
__cm_intl_captured.lower_locale = __cm_uncurry(String.prototype.toLocaleLowerCase);
__cm_intl_captured.to_string_tag = Symbol.toStringTag;

// A function shown as a built-in (`name`, `length`, no own `prototype` unless it
// constructs) that runs `call(self, args)`, and `construct(args, newTarget)` for `new`.
// It is a proxy: the call adds no stack frame of its own.
function __cm_intl_native(name, length, call, construct) {
  const target = construct === undefined ? () => {} : function () {};
  __cm_define_value(target, "length", length, false, false, true);
  __cm_define_value(target, "name", name, false, false, true);
  const handler = __cm_record();
  handler.apply = function __cm_intl_apply(t, self, args) {
    return call(self, args);
  };
  if (construct !== undefined) {
    handler.construct = function __cm_intl_construct(t, args, newTarget) {
      return construct(args, newTarget);
    };
  }
  return new __cm_Proxy(target, handler);
}

const __cm_intl = {};
const __cm_intl_members = ["getCanonicalLocales", "supportedValuesOf", "DateTimeFormat", "NumberFormat",
  "Collator", "v8BreakIterator", "PluralRules", "RelativeTimeFormat", "ListFormat", "Locale", "DisplayNames",
  "Segmenter", "DurationFormat"];
const __cm_intl_getters = __cm_record();
let __cm_intl_objects = null;

// The implementation (runtime/intl/objects.js), compiled on first use; Intl's members that are
// still accessors become the data properties V8 has.
function __cm_intl_load() {
  if (__cm_intl_objects !== null) return __cm_intl_objects;
  const env = __cm_record();
  const names = ["__cm_call", "__cm_json_stringify", "__cm_has_own", "__cm_Error", "__cm_record", "__cm_list",
    "__cm_push", "__cm_String", "__cm_Number", "__cm_Object", "__cm_slice", "__cm_starts_with", "__cm_trunc",
    "__cm_array_from", "__cm_is_array", "__cm_list_index_of", "__cm_WeakMap", "__cm_weak_get", "__cm_weak_set",
    "__cm_define_value", "__cm_define_property", "__cm_object_create", "__cm_get_prototype_of",
    "__cm_constructor_name", "__cm_end_if_out_of_memory", "__cm_intl_native", "__cm_intl_captured"];
  const values = [__cm_call, __cm_json_stringify, __cm_has_own, __cm_Error, __cm_record, __cm_list,
    __cm_push, __cm_String, __cm_Number, __cm_Object, __cm_slice, __cm_starts_with, __cm_trunc,
    __cm_array_from, __cm_is_array, __cm_list_index_of, __cm_WeakMap, __cm_weak_get, __cm_weak_set,
    __cm_define_value, __cm_define_property, __cm_object_create, __cm_get_prototype_of,
    __cm_constructor_name, __cm_end_if_out_of_memory, __cm_intl_native, __cm_intl_captured];
  for (let i = 0; i < names.length; i++) env[names[i]] = values[i];
  const objects = __cm_Function("__cm_env", __cm_call("intl", '{"op":"source"}').ok)(env);
  __cm_intl_objects = objects;
  for (let i = 0; i < __cm_intl_members.length; i++) {
    const name = __cm_intl_members[i];
    const now = __cm_own_descriptor(__cm_intl, name);
    if (now !== undefined && __cm_has_own(now, "get") && now.get === __cm_intl_getters[name]) {
      __cm_define_value(__cm_intl, name, objects.members[name], true, false, true);
    }
  }
  return objects;
}

function __cm_intl_member(name) {
  const get = function __cm_intl_member_get() {
    __cm_intl_load();
    return __cm_intl[name];
  };
  const set = function __cm_intl_member_set(value) {
    __cm_define_value(__cm_intl, name, value, true, false, true);
  };
  __cm_intl_getters[name] = get;
  __cm_define_property(__cm_intl, name, { __proto__: null, get, set, enumerable: false, configurable: true });
}

// An engine with its own Intl (V8) keeps it: nothing below is installed there.
const __cm_intl_needed = typeof globalThis.Intl === "undefined";
if (__cm_intl_needed) {
  for (let i = 0; i < __cm_intl_members.length; i++) __cm_intl_member(__cm_intl_members[i]);
  __cm_define_value(__cm_intl, __cm_intl_captured.to_string_tag, "Intl", false, false, true);
  __cm_define_value(globalThis, "Intl", __cm_intl, true, false, true);
}

// Built-in methods, replaced by stubs that run the implementation's `pick`.
function __cm_intl_stub(target, name, length, pick) {
  const call = function __cm_intl_stub_call(self, args) {
    return __cm_intl_load()[pick](self, args);
  };
  __cm_define_value(target, name, __cm_intl_native(name, length, call), true, false, true);
}

if (__cm_intl_needed) {
  __cm_intl_stub(Number.prototype, "toLocaleString", 0, "numberToLocaleString");
  __cm_intl_stub(BigInt.prototype, "toLocaleString", 0, "bigintToLocaleString");
  __cm_intl_stub(Date.prototype, "toLocaleString", 0, "dateToLocaleString");
  __cm_intl_stub(Date.prototype, "toLocaleDateString", 0, "dateToLocaleDateString");
  __cm_intl_stub(Date.prototype, "toLocaleTimeString", 0, "dateToLocaleTimeString");
  __cm_intl_stub(String.prototype, "localeCompare", 1, "localeCompare");
  __cm_intl_stub(String.prototype, "toLocaleUpperCase", 0, "toLocaleUpperCase");
  __cm_intl_stub(String.prototype, "toLocaleLowerCase", 0, "toLocaleLowerCase");
  __cm_intl_stub(Array.prototype, "toLocaleString", 0, "arrayToLocaleString");
}
