// Error texts: V8's wording of QuickJS messages and the text Codex shows for a thrown value.

// QuickJS messages that V8 words differently (fixed texts).
const V8_MESSAGES = {
  "TypeError: empty array": "Reduce of empty array with no initial value",
  "TypeError: cannot convert symbol to string": "Cannot convert a Symbol value to a string",
  "TypeError: cannot convert BigInt to number": "Cannot mix BigInt and other types, use explicit conversions",
  "RangeError: Date value is NaN": "Invalid time value",
  "URIError: expecting hex digit": "URI malformed",
  "URIError: malformed UTF-8": "URI malformed",
  "URIError: invalid character": "URI malformed",
  "TypeError: Cannot convert undefined or null to object": "Cannot convert undefined or null to object",
};

// QuickJS messages that V8 words differently.
function __cm_v8_message(name, message, stack) {
  let m;
  const nativeFirst = /^\s*at [^\n]* \(native\)/.test(String(stack));
  if (name === "TypeError" && (message === "not a function" || message === "not a constructor") && !nativeFirst) {
    const callee = __cm_callee_at(stack);
    const what = message === "not a function" ? " is not a function" : " is not a constructor";
    return callee ? callee + what : message;
  }
  if (name === "TypeError" && message === "class constructors must be invoked with 'new'") {
    const frame = /^\s*at (\S+) \(<input>:/.exec(String(stack));
    const callee = frame && frame[1] !== "<anonymous>" ? frame[1] : __cm_callee_at(stack);
    if (callee) return "Class constructor " + callee.split(".").pop() + " cannot be invoked without 'new'";
  }
  if (Object.prototype.hasOwnProperty.call(V8_MESSAGES, name + ": " + message)) {
    return V8_MESSAGES[name + ": " + message];
  }
  if (name === "TypeError" && (m = /^cannot read property '(.*)' of (null|undefined)$/.exec(message))) {
    return "Cannot read properties of " + m[2] + " (reading '" + m[1] + "')";
  }
  if (name === "TypeError" && (m = /^cannot set property '(.*)' of (null|undefined)$/.exec(message))) {
    return "Cannot set properties of " + m[2] + " (setting '" + m[1] + "')";
  }
  if (name === "TypeError" && (m = /^'(.*)' is read-only$/.exec(message))) {
    const at = /<input>:(\d+):\d+\)/.exec(String(stack));
    const line = at ? sourceLines[Number(at[1]) - 1] || "" : "";
    const prop = m[1].replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (new RegExp("(\\.\\s*" + prop + "|\\[\\s*['\"]" + prop + "['\"]\\s*\\])\\s*([-+*/%&|^]|\\*\\*|<<|>>>?|&&|\\|\\||\\?\\?)?=(?!=)").test(line)) {
      return "Cannot assign to read only property '" + m[1] + "' of object '#<Object>'";
    }
    return "Assignment to constant variable.";
  }
  if (name === "TypeError" && message === "BigInt are forbidden in JSON.stringify") {
    return "Do not know how to serialize a BigInt";
  }
  if (name === "RangeError" && message === "invalid array length") return "Invalid array length";
  if (name === "ReferenceError" && (m = /^(.*) is not initialized$/.exec(message))) {
    return "Cannot access '" + m[1] + "' before initialization";
  }
  return message;
}

function __cm_error_header(e, raw) {
  let name;
  try { name = String(e.name); } catch (_) { name = "Error"; }
  try {
    const ctor = e.constructor;
    if (name === "Error" && typeof ctor === "function" && ctor.name && ctor !== Error) name = ctor.name;
  } catch (_) { /* keep name */ }
  let message;
  try { message = e.message === undefined ? "" : String(e.message); } catch (_) { message = ""; }
  message = __cm_v8_message(name, message, raw);
  return message ? name + ": " + message : name;
}

// The text Codex shows for a thrown value (spec §1.1 "Failure text").
// V8 starts an error's stack below the constructors that built it (for
// `class MyError extends Error`, no `at MyError` frame); QuickJS keeps them.
function __cm_constructor_names(e) {
  const names = new Set();
  try {
    for (let p = Object.getPrototypeOf(e); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
      const c = Object.prototype.hasOwnProperty.call(p, "constructor") ? p.constructor : undefined;
      if (typeof c === "function" && c.name) names.add(c.name);
    }
  } catch (_) { /* keep what we have */ }
  return names;
}

// V8's stack text of error `e` from its QuickJS stack `raw`.
function __cm_v8_stack(e, raw) {
  const frames = __cm_frames(raw);
  const ctors = __cm_constructor_names(e);
  while (frames.length) {
    const m = /^    at (\S+) \(/.exec(frames[0]);
    if (!m || !ctors.has(m[1])) break;
    frames.shift();
  }
  return [__cm_error_header(e, raw)].concat(frames).join("\n");
}

// The text Codex shows for a thrown value (spec §1.1 "Failure text"): the stack when
// it is a string, else the value converted to a string.
function __cm_error_text(e) {
  if (e !== null && typeof e === "object") {
    const own = Object.getOwnPropertyDescriptor(e, "stack");
    if (own && "value" in own) {
      if (typeof own.value === "string") return own.value;
      return __cm_error_header(e, undefined);
    }
    const raw = __cm_raw_stack(e);
    if (typeof raw === "string") return __cm_v8_stack(e, raw);
  }
  if (typeof e === "string") return e;
  if (typeof e === "symbol") return "";
  try { return String(e); } catch (_) { return Object.prototype.toString.call(e); }
}
