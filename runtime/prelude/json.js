// JSON.stringify of user values: V8's failure texts and the text()/notify() conversion.
// The user's value is stringified with the intrinsic JSON.stringify, so what the value
// itself defines (toJSON, also one on Object.prototype) counts, as in Codex's host.

function __cm_constructor_name(v) {
  try {
    const c = v.constructor;
    if (typeof c === "function" && typeof c.name === "string" && c.name !== "") return c.name;
  } catch (e) { __cm_end_if_out_of_memory(e); }
  return "Object";
}

function __cm_key_text(holder, key) {
  return __cm_is_array(holder) ? "index " + key : "property '" + key + "'";
}

// V8's circular-structure message: find the cycle the way JSON.stringify walks.
function __cm_circular_detail(root) {
  const stack = __cm_list();
  const keys = __cm_list();
  function __cm_walk(key, value) {
    try {
      if (value !== null && typeof value === "object" && typeof value.toJSON === "function") {
        value = __cm_invoke(value.toJSON, value, key);
      }
    } catch (e) { __cm_end_if_out_of_memory(e); return null; }
    if (value === null || typeof value !== "object") return null;
    const at = __cm_list_index_of(stack, value);
    if (at >= 0) {
      const lines = __cm_list();
      __cm_push(lines, "    --> starting at object with constructor '" + __cm_constructor_name(stack[at]) + "'");
      for (let i = at + 1; i < stack.length; i++) {
        __cm_push(lines, "    |     " + __cm_key_text(stack[i - 1], keys[i]) + " -> object with constructor '" +
          __cm_constructor_name(stack[i]) + "'");
      }
      __cm_push(lines, "    --- " + __cm_key_text(stack[stack.length - 1], key) + " closes the circle");
      return lines;
    }
    __cm_push(stack, value);
    __cm_push(keys, key);
    let entries;
    if (__cm_is_array(value)) {
      entries = __cm_list();
      for (let i = 0; i < value.length; i++) __cm_push(entries, __cm_String(i));
    } else {
      entries = __cm_object_keys(value);
    }
    for (let i = 0; i < entries.length; i++) {
      let child;
      try { child = value[entries[i]]; } catch (e) { __cm_end_if_out_of_memory(e); return null; }
      const found = __cm_walk(entries[i], child);
      if (found) return found;
    }
    stack.length -= 1;
    keys.length -= 1;
    return null;
  }
  return __cm_walk("", root);
}

// A JSON.stringify failure as the string Codex's helpers throw.
function __cm_json_error(e, value) {
  if (__cm_has_instance(__cm_TypeError, e) && __cm_own_message(e) === "circular reference") {
    let text = "TypeError: Converting circular structure to JSON";
    const detail = __cm_circular_detail(value);
    if (detail !== null) for (let i = 0; i < detail.length; i++) text += "\n" + detail[i];
    const frames = __cm_frames(__cm_raw_stack(e));
    for (let i = 0; i < frames.length; i++) text += "\n" + frames[i];
    return text;
  }
  return __cm_error_text(e);
}

const __cm_array_index_re = /^(?:0|[1-9][0-9]*)$/;

// QuickJS's JSON.stringify keeps its cycle-detection stack in an ordinary array, so
// index properties a cell defined on Array.prototype (a throwing setter for "0") would
// reach it; V8's does not. They are lifted off for the call and put back after it.
// Array.prototype is an Array exotic object, so each index key it holds is below its own
// `length` (a non-configurable data property no cell can turn into an accessor): at the
// length 0 it keeps unless a cell changed it, nothing needs lifting and its keys (about 40,
// each matched against a regexp) are not listed: a tool call's argument is stringified here.
function __cm_lift_array_indices() {
  if (__cm_array_prototype.length === 0) return null;
  let lifted = null;
  const keys = __cm_own_keys(__cm_array_prototype);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (typeof key !== "string" || !__cm_test(__cm_array_index_re, key)) continue;
    const descriptor = __cm_own_descriptor(__cm_array_prototype, key);
    if (lifted === null) lifted = __cm_list();
    __cm_push(lifted, key);
    __cm_push(lifted, descriptor);
    delete __cm_array_prototype[key];
  }
  return lifted;
}

function __cm_restore_array_indices(lifted) {
  if (lifted === null) return;
  for (let i = 0; i < lifted.length; i += 2) {
    const descriptor = lifted[i + 1];
    __cm_set_prototype_of(descriptor, null);
    __cm_define_property(__cm_array_prototype, lifted[i], descriptor);
  }
}

// JSON text of a user value (undefined when JSON.stringify gives none); a failure throws
// the string Codex's helpers throw.
function __cm_stringify_json(value) {
  const lifted = __cm_lift_array_indices();
  try {
    return __cm_json_stringify(value);
  } catch (e) {
    __cm_end_if_out_of_memory(e);
    if (__cm_exiting) throw e;
    throw __cm_json_error(e, value);
  } finally {
    __cm_restore_array_indices(lifted);
  }
}

// Stringification of text()/notify(): strings as they are, String() for primitives,
// JSON for objects.
function __cm_to_text(value) {
  const t = typeof value;
  if (t === "undefined" || t === "function" || t === "symbol") return "undefined";
  if (value === null) return "null";
  if (t === "string") return value;
  if (t === "number" || t === "boolean" || t === "bigint") return __cm_String(value);
  const json = __cm_stringify_json(value);
  return json === undefined ? "undefined" : json;
}
