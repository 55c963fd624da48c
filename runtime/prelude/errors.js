// Error texts: V8's wording of QuickJS messages and the text Codex shows for a thrown value.

// QuickJS messages that V8 words differently (fixed texts).
const V8_MESSAGES = {
  __proto__: null,
  "TypeError: empty array": "Reduce of empty array with no initial value",
  "TypeError: cannot convert symbol to string": "Cannot convert a Symbol value to a string",
  "TypeError: bigint argument with unary +": "Cannot convert a BigInt value to a number",
  "RangeError: Date value is NaN": "Invalid time value",
  "URIError: expecting hex digit": "URI malformed",
  "URIError: malformed UTF-8": "URI malformed",
  "URIError: invalid character": "URI malformed",
  "TypeError: Cannot convert undefined or null to object": "Cannot convert undefined or null to object",
};

const __cm_native_first_re = /^\s*at [^\n]* \(native\)/;
const __cm_class_frame_re = /^\s*at (\S+) \(<input>:/;
const __cm_read_property_re = /^cannot read property '(.*)' of (null|undefined)$/;
const __cm_set_property_re = /^cannot set property '(.*)' of (null|undefined)$/;
const __cm_read_only_re = /^'(.*)' is read-only$/;
const __cm_input_line_re = /<input>:(\d+):\d+\)/;
const __cm_regexp_special_re = /[.*+?^${}()|[\]\\]/;
const __cm_not_initialized_re = /^(.*) is not initialized$/;
const __cm_iterator_read_re = /^cannot read property 'Symbol\.iterator' of (null|undefined)$/;
const __cm_async_iterator_read_re = /^cannot read property 'Symbol\.asyncIterator' of (null|undefined)$/;
const __cm_immutable_prototype_re = /^'(Immutable prototype object '.*' cannot have their prototype set)'$/;

// `text` with every regexp special character escaped.
function __cm_regexp_escape(text) {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    out += __cm_test(__cm_regexp_special_re, c) ? "\\" + c : c;
  }
  return out;
}

// The last dot-separated part of `chain`.
function __cm_last_part(chain) {
  const parts = __cm_split(chain, ".");
  return parts[parts.length - 1];
}

// QuickJS messages that V8 words differently.
function __cm_v8_message(name, message, stack) {
  let m;
  const stackText = __cm_String(stack);
  const nativeFirst = __cm_test(__cm_native_first_re, stackText);
  if (name === "TypeError" && (message === "not a function" || message === "not a constructor") && !nativeFirst) {
    // V8 names the callee as written (`r.items.map`, `{}.f`); `new X` that fails is "not a constructor".
    const call = __cm_failed_call(stack);
    if (call !== null && (call.isNew || message === "not a function")) {
      return call.text + (call.isNew ? " is not a constructor" : " is not a function");
    }
    return message;
  }
  if (name === "TypeError" && message === "class constructors must be invoked with 'new'") {
    const frame = __cm_exec(__cm_class_frame_re, stackText);
    const named = frame !== null && frame[1] !== "<anonymous>" && !__cm_starts_with(frame[1], "__cm_cell$");
    const call = named ? null : __cm_failed_call(stack);
    const callee = named ? frame[1] : call !== null && !call.isNew ? call.text : null;
    if (callee) return "Class constructor " + __cm_last_part(callee) + " cannot be invoked without 'new'";
  }
  if (name === "TypeError" && (message === "value is not iterable" || __cm_test(__cm_iterator_read_re, message))) {
    // V8 names the iterable of a for-of or spread (`list is not iterable`) or the one
    // pattern of a cell; elsewhere (built-ins, two patterns) QuickJS's words stay.
    m = __cm_exec(__cm_iterator_read_re, message);
    const kind = m !== null ? m[1] : "";
    let text = nativeFirst ? null : __cm_not_iterable(stack, kind);
    if (text === null && !nativeFirst && __cm_stack_offset(stack) >= 0) text = __cm_destructure_message(kind);
    return text !== null ? text : message;
  }
  if (name === "TypeError" && message === "Cannot convert undefined or null to object" && !nativeFirst &&
      __cm_stack_offset(stack) >= 0) {
    // An object pattern's value was null or undefined (V8 names the property and the value).
    const text = __cm_destructure_message("object");
    return text !== null ? text : message;
  }
  if (name === "TypeError" && !nativeFirst && (m = __cm_exec(__cm_async_iterator_read_re, message)) !== null) {
    return "Cannot read properties of " + m[1] + " (reading 'Symbol(Symbol.asyncIterator)')";
  }
  if (name === "TypeError" && message === "cannot convert BigInt to number") {
    // A built-in's argument (Math.sqrt(10n)) is converted; an operator (10n * 1.5) mixes.
    return nativeFirst ? "Cannot convert a BigInt value to a number" : "Cannot mix BigInt and other types, use explicit conversions";
  }
  // QuickJS quotes this whole message ('Immutable prototype object ... set').
  if (name === "TypeError" && (m = __cm_exec(__cm_immutable_prototype_re, message)) !== null) return m[1];
  const fixed = V8_MESSAGES[name + ": " + message];
  if (fixed !== undefined) return fixed;
  if (name === "TypeError" && (m = __cm_exec(__cm_read_property_re, message)) !== null) {
    return "Cannot read properties of " + m[2] + " (reading '" + m[1] + "')";
  }
  if (name === "TypeError" && (m = __cm_exec(__cm_set_property_re, message)) !== null) {
    return "Cannot set properties of " + m[2] + " (setting '" + m[1] + "')";
  }
  if (name === "TypeError" && (m = __cm_exec(__cm_read_only_re, message)) !== null) {
    const at = __cm_exec(__cm_input_line_re, stackText);
    const index = at !== null ? __cm_Number(at[1]) - 1 - __cm_line_offset : -1;
    const line = index >= 0 && index < __cm_source_lines.length ? __cm_source_lines[index] : "";
    const prop = __cm_regexp_escape(m[1]);
    const assignment = new __cm_RegExp("(\\.\\s*" + prop + "|\\[\\s*['\"]" + prop + "['\"]\\s*\\])\\s*([-+*/%&|^]|\\*\\*|<<|>>>?|&&|\\|\\||\\?\\?)?=(?!=)");
    if (__cm_test(assignment, line)) return "Cannot assign to read only property '" + m[1] + "' of object '#<Object>'";
    // QuickJS words a constant's assignment so too: V8's text only where the line assigns the
    // name itself; elsewhere (`a[0] = 2` on a frozen array) the site cannot be told, and a V8
    // text naming a constant would mislead.
    const constant = new __cm_RegExp("(^|[^.\\w$])(" + prop + "\\s*(([-+*/%&|^]|\\*\\*|<<|>>>?|&&|\\|\\||\\?\\?)?=(?!=)|\\+\\+|--)|" +
      "(\\+\\+|--)\\s*" + prop + "(?![\\w$]))");
    if (__cm_test(constant, line)) return "Assignment to constant variable.";
    return message;
  }
  if (name === "TypeError" && message === "BigInt are forbidden in JSON.stringify") {
    return "Do not know how to serialize a BigInt";
  }
  if (name === "RangeError" && message === "invalid array length") return "Invalid array length";
  if (name === "ReferenceError" && (m = __cm_exec(__cm_not_initialized_re, message)) !== null) {
    return "Cannot access '" + m[1] + "' before initialization";
  }
  return message;
}

// `Name: message` of error `e` (V8 reads the error's name and message as they are now; the
// name is the `name` property only, so `class MyErr extends Error {}` gives `Error: ...`).
function __cm_error_header(e, raw) {
  let name;
  try { name = __cm_String(e.name); } catch (x) { __cm_end_if_out_of_memory(x); name = "Error"; }
  let message;
  try {
    message = e.message === undefined ? "" : __cm_String(e.message);
  } catch (x) {
    __cm_end_if_out_of_memory(x);
    message = "";
  }
  message = __cm_v8_message(name, message, raw);
  return message ? name + ": " + message : name;
}

// V8 starts an error's stack below the constructors that built it (for
// `class MyError extends Error`, no `at MyError` frame); QuickJS keeps them.
function __cm_constructor_names(e) {
  const names = __cm_record();
  try {
    for (let p = __cm_get_prototype_of(e); p && p !== __cm_object_prototype; p = __cm_get_prototype_of(p)) {
      const own = __cm_own_descriptor(p, "constructor");
      const c = own !== undefined && __cm_has_own(own, "value") ? own.value : undefined;
      if (typeof c === "function" && typeof c.name === "string" && c.name !== "") names[c.name] = true;
    }
  } catch (x) { __cm_end_if_out_of_memory(x); }
  return names;
}

const __cm_named_frame_re = /^    at (\S+) \(/;

// V8's stack text of error `e` from its QuickJS stack `raw`.
function __cm_v8_stack(e, raw) {
  const frames = __cm_frames(raw);
  const ctors = __cm_constructor_names(e);
  let first = 0;
  while (first < frames.length) {
    const m = __cm_exec(__cm_named_frame_re, frames[first]);
    if (m === null || ctors[m[1]] !== true) break;
    first++;
  }
  let text = __cm_error_header(e, raw);
  for (let i = first; i < frames.length; i++) text += "\n" + frames[i];
  return text;
}

// The text Codex shows for a thrown value: the stack when it is a string, else the
// value converted to a string, or "" when it cannot be (Object.create(null)).
function __cm_error_text(e) {
  if (e !== null && typeof e === "object") {
    const own = __cm_own_descriptor(e, "stack");
    if (own !== undefined && __cm_has_own(own, "value")) {
      if (typeof own.value === "string") return own.value;
      return __cm_error_header(e, undefined);
    }
    const raw = __cm_raw_stack(e);
    if (typeof raw === "string") return __cm_v8_stack(e, raw);
  }
  if (typeof e === "string") return e;
  if (typeof e === "symbol") return "";
  try { return __cm_String(e); } catch (x) { __cm_end_if_out_of_memory(x); return ""; }
}

// The text of a thrown value, never throwing itself (a failure while formatting, such as
// an exhausted heap, gives a fixed text the host recognises).
function __cm_safe_error_text(e) {
  try {
    const text = __cm_error_text(e);
    return typeof text === "string" ? text : "undefined";
  } catch (x) {
    __cm_end_if_out_of_memory(x);
    return null;
  }
}
