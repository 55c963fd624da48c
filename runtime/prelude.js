// codemode runtime prelude: installs the globals of a code-mode cell.
//
// Evaluated as a global script in a fresh QuickJS context before the cell's module.
// Behaviour follows spec/codex-code-mode.md §1 and the 0.171 observations in
// oracle/README.md ("Observed behaviour"). Every function of this file that can
// appear in a stack trace is named `__cm_*`, so error texts can drop our frames and
// show only the cell's own frames, written the way V8 writes them
// (`    at exec_main.mjs:LINE:COL`).
//
// Inputs (removed from globalThis before user code runs):
//   __codemode_host(op, arg) -> string | null   Python bridge (never throws).
//   __codemode_config                           JSON text {tools: [{name, description,
//                                               index}], source: "<cell source>"}.
// The script's completion value is the dispatcher `__cm_dispatch(op, arg)` that the
// cell thread calls for timer fires, tool results and module completion.
(function __cm_install() {
  "use strict";
  const __cm_host = globalThis.__codemode_host;
  const __cm_config = JSON.parse(globalThis.__codemode_config);
  delete globalThis.__codemode_host;
  delete globalThis.__codemode_config;

  // Globals that Codex's host removes or never had (oracle: globals_console_absent).
  for (const name of ["console", "Atomics", "SharedArrayBuffer", "WebAssembly", "queueMicrotask",
    "structuredClone", "setInterval", "atob", "btoa", "performance", "print", "navigator",
    "DOMException", "TextEncoder", "TextDecoder", "URL", "fetch", "process"]) {
    delete globalThis[name];
  }

  const EXIT_SENTINEL = "__codex_code_mode_exit__";

  // `error.stack` as V8 writes it (`Name: message` then `    at exec_main.mjs:L:C`
  // frames); V8 also lets scripts assign any value to it, QuickJS's setter wants a string.
  const stackDescriptor = Object.getOwnPropertyDescriptor(Error.prototype, "stack");
  function __cm_raw_stack(e) {
    try {
      if (stackDescriptor && typeof stackDescriptor.get === "function") return stackDescriptor.get.call(e);
    } catch (_) { /* not an error object */ }
    return undefined;
  }
  if (stackDescriptor && typeof stackDescriptor.get === "function" && typeof stackDescriptor.set === "function") {
    Object.defineProperty(Error.prototype, "stack", {
      get: function __cm_get_stack() {
        const raw = stackDescriptor.get.call(this);
        // Parse errors keep QuickJS's location lines: the host reads them to word V8's message.
        if (typeof raw !== "string" || this instanceof SyntaxError) return raw;
        return __cm_v8_stack(this, raw);
      },
      set: function __cm_set_stack(value) {
        if (typeof value === "string") stackDescriptor.set.call(this, value);
        else Object.defineProperty(this, "stack", { value, writable: true, configurable: true, enumerable: false });
      },
      configurable: true,
      enumerable: stackDescriptor.enumerable,
    });
  }

  const sourceLines = String(__cm_config.source).split("\n");
  const IDENT = /[A-Za-z0-9_$]/;
  const SPACE = /\s/;

  // ---- error texts -------------------------------------------------------------

  // Move a QuickJS position to where V8 reports it: a call is reported at the callee's
  // name (the property for member calls), `new X(...)` at `new`.
  // Start (0-based) of the `new` keyword right before index `i`, or -1.
  function __cm_new_before(text, i) {
    let j = i - 1;
    while (j >= 0 && SPACE.test(text[j])) j--;
    if (j >= 2 && text.slice(j - 2, j + 1) === "new" && (j - 3 < 0 || !IDENT.test(text[j - 3]))) return j - 2;
    return -1;
  }

  // Position V8 reports for a callee name starting at index `start`.
  function __cm_callee_position(line, text, start) {
    const n = __cm_new_before(text, start);
    return [line, (n >= 0 ? n : start) + 1];
  }

  // QuickJS reports a frame at the last positioned token before the call (the callee,
  // an argument, or an inner call inside the arguments); V8 reports the callee's name
  // (`new` for constructions). Prefer an enclosing `new X(...)`, then a call named at
  // the position itself, then the innermost enclosing call.
  function __cm_v8_position(line, col) {
    const text = sourceLines[line - 1];
    if (text === undefined) return [line, col];
    const i = col - 1;
    let enclosing = -1;
    let depth = 0;
    for (let k = i - 1; k >= 0; k--) {
      const c = text[k];
      if (c === ")" || c === "]" || c === "}") depth++;
      else if (c === "[" || c === "{") { if (depth > 0) depth--; }
      else if (c === "(") {
        if (depth > 0) { depth--; continue; }
        let e = k - 1;
        while (e >= 0 && SPACE.test(text[e])) e--;
        let s = e;
        while (s >= 0 && IDENT.test(text[s])) s--;
        if (s < e) enclosing = s + 1;
        break;
      }
    }
    if (enclosing >= 0 && __cm_new_before(text, enclosing) >= 0) {
      return __cm_callee_position(line, text, enclosing);
    }
    if (IDENT.test(text[i] || "")) {
      let start = i;
      while (start > 0 && IDENT.test(text[start - 1])) start--;
      let end = i;
      while (end < text.length && IDENT.test(text[end])) end++;
      while (end < text.length && SPACE.test(text[end])) end++;
      if (text[end] === "(" || __cm_new_before(text, start) >= 0) return __cm_callee_position(line, text, start);
    }
    if (enclosing >= 0) return __cm_callee_position(line, text, enclosing);
    return [line, col];
  }

  // The cell's own frames of a QuickJS stack, in V8's form.
  function __cm_frames(stack) {
    if (typeof stack !== "string") return [];
    const out = [];
    for (const raw of stack.split("\n")) {
      const m = /^\s*at (.*?) \((.*)\)$/.exec(raw);
      if (!m) continue;
      const name = m[1];
      const where = m[2];
      if (name.startsWith("__cm_") || where === "native") continue;
      const pos = /^<input>:(\d+):(\d+)$/.exec(where);
      if (!pos) continue;
      const [line, col] = __cm_v8_position(Number(pos[1]), Number(pos[2]));
      const loc = "exec_main.mjs:" + line + ":" + col;
      out.push(name === "<anonymous>" || name === "<eval>" ? "    at " + loc : "    at " + name + " (" + loc + ")");
    }
    return out;
  }

  // The callee expression (`tools.echo`, `f`) of the call that failed at the first
  // frame of QuickJS stack `stack`, or null.
  function __cm_callee_at(stack) {
    const m = /<input>:(\d+):(\d+)\)/.exec(String(stack));
    if (!m) return null;
    const line = Number(m[1]);
    const text = sourceLines[line - 1];
    if (text === undefined) return null;
    let i = Number(m[2]) - 1;
    while (i < text.length && (SPACE.test(text[i]) || text[i] === ".")) i++;
    if (text.startsWith("``", i)) return '""';
    const chainAt = function __cm_chain(k) {
      let s = k;
      while (s > 0 && /[A-Za-z0-9_$.]/.test(text[s - 1])) s--;
      let e = k;
      while (e < text.length && IDENT.test(text[e])) e++;
      const chain = text.slice(s, e).replace(/^\.+|\.+$/g, "");
      return chain && !/^[0-9]/.test(chain) ? chain : null;
    };
    if (IDENT.test(text[i] || "")) {
      let e = i;
      while (e < text.length && IDENT.test(text[e])) e++;
      while (e < text.length && SPACE.test(text[e])) e++;
      if (text[e] === "(") return chainAt(i);
    }
    const [, callee] = __cm_v8_position(line, i + 1);
    if (callee - 1 !== i) {
      let k = callee - 1;
      if (text.startsWith("new", k) && !IDENT.test(text[k + 3] || "")) {
        k += 3;
        while (k < text.length && SPACE.test(text[k])) k++;
      }
      return chainAt(k);
    }
    return null;
  }

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

  function __cm_constructor_name(v) {
    try {
      const c = v.constructor;
      if (typeof c === "function" && c.name) return c.name;
    } catch (_) { /* fall through */ }
    return "Object";
  }

  // V8's circular-structure message: find the cycle the way JSON.stringify walks.
  function __cm_circular_detail(root) {
    const stack = [];
    const keys = [];
    function __cm_walk(holder, key, value) {
      try {
        if (value !== null && typeof value === "object" && typeof value.toJSON === "function") {
          value = value.toJSON(key);
        }
      } catch (_) { return null; }
      if (value === null || typeof value !== "object") return null;
      const at = stack.indexOf(value);
      if (at >= 0) {
        const lines = ["    --> starting at object with constructor '" + __cm_constructor_name(stack[at]) + "'"];
        for (let i = at + 1; i < stack.length; i++) {
          lines.push("    |     " + __cm_key_text(stack[i - 1], keys[i]) + " -> object with constructor '" +
            __cm_constructor_name(stack[i]) + "'");
        }
        lines.push("    --- " + __cm_key_text(stack[stack.length - 1], key) + " closes the circle");
        return lines;
      }
      stack.push(value);
      keys.push(key);
      const entries = Array.isArray(value) ? value.map((_, i) => String(i)) : Object.keys(value);
      for (const k of entries) {
        let child;
        try { child = value[k]; } catch (_) { return null; }
        const found = __cm_walk(value, k, child);
        if (found) return found;
      }
      stack.pop();
      keys.pop();
      return null;
    }
    return __cm_walk({ "": root }, "", root);
  }

  function __cm_key_text(holder, key) {
    return Array.isArray(holder) ? "index " + key : "property '" + key + "'";
  }

  // A JSON.stringify failure as the string Codex's helpers throw.
  function __cm_json_error(e, value) {
    if (e instanceof TypeError && e.message === "circular reference") {
      const detail = __cm_circular_detail(value) || [];
      return ["TypeError: Converting circular structure to JSON"].concat(detail, __cm_frames(__cm_raw_stack(e))).join("\n");
    }
    return __cm_error_text(e);
  }

  function __cm_stringify_json(value) {
    try {
      return JSON.stringify(value);
    } catch (e) {
      if (e === EXIT_SENTINEL) throw e;
      throw __cm_json_error(e, value);
    }
  }

  // Stringification of text()/notify() (spec §1.3, oracle text_* cases).
  function __cm_to_text(value) {
    const t = typeof value;
    if (t === "undefined" || t === "function" || t === "symbol") return "undefined";
    if (value === null) return "null";
    if (t === "string") return value;
    if (t === "number" || t === "boolean" || t === "bigint") return String(value);
    const json = __cm_stringify_json(value);
    return json === undefined ? "undefined" : json;
  }

  // ---- JSON.parse errors in V8's words --------------------------------------------

  // V8's message for JSON text `src` that QuickJS refused (V8 json-parser wording).
  function __cm_json_parse_message(src) {
    const n = src.length;
    if (src === "undefined" || src === "NaN" || src === "Infinity" || src === "[object Object]") {
      return '"' + src + '" is not valid JSON';
    }
    const where = function __cm_where(p) {
      let line = 1;
      let start = 0;
      for (let k = 0; k < p; k++) {
        if (src[k] === "\n" || (src[k] === "\r" && src[k + 1] !== "\n")) { line++; start = k + 1; }
      }
      return "in JSON at position " + p + " (line " + line + " column " + (p - start + 1) + ")";
    };
    const fail = function __cm_fail(text) { throw { jsonMessage: text }; };
    const token = function __cm_token(p, specific) {
      if (specific) fail(specific + " " + where(p));
      if (p >= n) fail("Unexpected end of JSON input");
      const c = src[p];
      if (c === '"') fail("Unexpected string " + where(p));
      if (c === "-" || (c >= "0" && c <= "9")) fail("Unexpected number " + where(p));
      let context;
      if (n < 21) context = '"' + src + '"';
      else {
        const start = p >= 10 ? p - 10 : 0;
        const end = p + 10 < n ? p + 10 : n;
        context = (start > 0 ? "..." : "") + '"' + src.slice(start, end) + '"' + (end < n ? "..." : "");
      }
      fail("Unexpected token '" + c + "', " + context + " is not valid JSON");
    };
    let i = 0;
    const skip = function __cm_skip() { while (i < n && " \t\n\r".includes(src[i])) i++; };
    const string = function __cm_string() {
      i++;
      for (;;) {
        if (i >= n) fail("Unterminated string " + where(i));
        const c = src[i];
        if (c === '"') { i++; return; }
        if (c < " ") fail("Bad control character in string literal " + where(i));
        if (c === "\\") {
          i++;
          if (i >= n) fail("Unterminated string " + where(i));
          if (src[i] === "u") {
            for (let k = 1; k <= 4; k++) {
              if (!/[0-9a-fA-F]/.test(src[i + k] || "")) fail("Bad Unicode escape " + where(i + k >= n ? n : i + k));
            }
            i += 5;
            continue;
          }
          if (!'"\\/bfnrt'.includes(src[i])) fail("Bad escaped character " + where(i));
        }
        i++;
      }
    };
    const number = function __cm_number() {
      if (src[i] === "-") {
        i++;
        if (!(src[i] >= "0" && src[i] <= "9")) fail("No number after minus sign " + where(i));
      }
      if (src[i] === "0") {
        i++;
        if (src[i] >= "0" && src[i] <= "9") token(i);
      } else while (src[i] >= "0" && src[i] <= "9") i++;
      if (src[i] === ".") {
        i++;
        if (!(src[i] >= "0" && src[i] <= "9")) fail("Unterminated fractional number " + where(i));
        while (src[i] >= "0" && src[i] <= "9") i++;
      }
      if (src[i] === "e" || src[i] === "E") {
        i++;
        if (src[i] === "+" || src[i] === "-") i++;
        if (!(src[i] >= "0" && src[i] <= "9")) fail("Exponent part is missing a number " + where(i));
        while (src[i] >= "0" && src[i] <= "9") i++;
      }
    };
    const value = function __cm_value() {
      skip();
      const c = src[i];
      if (c === "{") {
        i++; skip();
        if (src[i] === "}") { i++; return; }
        if (src[i] !== '"') token(i, "Expected property name or '}'");
        for (;;) {
          string(); skip();
          if (src[i] !== ":") token(i, "Expected ':' after property name");
          i++;
          value(); skip();
          if (src[i] === ",") {
            i++; skip();
            if (src[i] !== '"') token(i, "Expected double-quoted property name");
            continue;
          }
          if (src[i] === "}") { i++; return; }
          token(i, "Expected ',' or '}' after property value");
        }
      }
      if (c === "[") {
        i++; skip();
        if (src[i] === "]") { i++; return; }
        for (;;) {
          value(); skip();
          if (src[i] === ",") { i++; continue; }
          if (src[i] === "]") { i++; return; }
          token(i, "Expected ',' or ']' after array element");
        }
      }
      if (c === '"') { string(); return; }
      if (c === "-" || (c >= "0" && c <= "9")) { number(); return; }
      for (const word of ["true", "false", "null"]) {
        if (c === word[0]) {
          for (let k = 0; k < word.length; k++) if (src[i + k] !== word[k]) token(i + k);
          i += word.length;
          return;
        }
      }
      token(i);
    };
    try {
      value(); skip();
      if (i < n) fail("Unexpected non-whitespace character after JSON " + where(i).slice("in JSON ".length));
    } catch (e) {
      if (e && typeof e.jsonMessage === "string") return e.jsonMessage;
      throw e;
    }
    return null;
  }

  const originalParse = JSON.parse;
  function __cm_json_parse(text, reviver) {
    try {
      return originalParse.apply(JSON, arguments);
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      const message = __cm_json_parse_message(String(text));
      if (message === null) throw e;
      throw new SyntaxError(message);
    }
  }
  const boundParse = Function.prototype.bind.call(__cm_json_parse, JSON);
  Object.defineProperty(boundParse, "name", { value: "parse" });
  Object.defineProperty(boundParse, "length", { value: 2 });
  Object.defineProperty(JSON, "parse", { value: boundParse, writable: true, configurable: true, enumerable: false });

  // ---- bridge ---------------------------------------------------------------------

  // The argument is a string the binding passes through C strlen: plain strings that may
  // hold a NUL or a lone surrogate (notify text, a load key, an error text) cross as JSON
  // string literals; the other operations already send JSON text.
  function __cm_call(op, arg) {
    // slice(0) flattens QuickJS rope strings, which the binding cannot convert.
    const reply = __cm_host(op, arg === undefined ? "" : String(arg).slice(0));
    if (reply === null || reply === undefined || reply === "") return undefined;
    const parsed = JSON.parse(reply);
    if (parsed.error !== undefined) throw parsed.error;
    return parsed.value;
  }

  function __cm_emit(item) {
    __cm_call("emit", JSON.stringify(item));
  }

  // Helpers look native: no name, length 0 (oracle: globals_console_absent).
  function __cm_native(fn) {
    const bound = Function.prototype.bind.call(fn, undefined);
    Object.defineProperty(bound, "name", { value: "" });
    Object.defineProperty(bound, "length", { value: 0 });
    return bound;
  }

  function __cm_define(name, fn) {
    Object.defineProperty(globalThis, name, { value: __cm_native(fn), writable: true, configurable: true, enumerable: false });
  }

  // ---- content helpers --------------------------------------------------------------

  const IMAGE_EXPECTS = "image expects a non-empty image URL string, an object with image_url and optional detail, or a raw MCP image block";
  const DETAILS = ["auto", "low", "high", "original"];

  function __cm_detail(d) {
    if (d === undefined || d === null) return undefined;
    if (typeof d !== "string") throw "image detail must be a string when provided";
    const lower = d.toLowerCase();
    if (!DETAILS.includes(lower)) throw "image detail must be one of: auto, low, high, original";
    return lower;
  }

  function __cm_block_url(block, kind) {
    const data = block.data;
    if (typeof data !== "string" || data === "") throw kind + " expected MCP " + kind + " data";
    let mime = block.mimeType !== undefined ? block.mimeType : block.mime_type;
    if (typeof mime !== "string" || mime === "") mime = "application/octet-stream";
    return data.startsWith("data:") ? data : "data:" + mime + ";base64," + data;
  }

  function __cm_image_item(value, override) {
    let url;
    let embedded;
    if (typeof value === "string") {
      url = value;
    } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      if (typeof value.image_url === "string") {
        url = value.image_url;
        embedded = __cm_detail(value.detail);
      } else if (typeof value.type === "string") {
        if (value.type !== "image") throw "image only accepts MCP image blocks, got " + JSON.stringify(value.type);
        url = __cm_block_url(value, "image");
        const meta = value._meta;
        const d = meta !== null && typeof meta === "object" ? meta["codex/imageDetail"] : undefined;
        if (typeof d === "string" && DETAILS.includes(d.toLowerCase())) embedded = d.toLowerCase();
      } else {
        throw IMAGE_EXPECTS;
      }
    } else {
      throw IMAGE_EXPECTS;
    }
    if (!url) throw IMAGE_EXPECTS;
    const colon = url.indexOf(":");
    const scheme = colon < 0 ? "" : url.slice(0, colon).toLowerCase();
    if (scheme === "http" || scheme === "https") {
      throw "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead";
    }
    if (scheme !== "data") throw "Tool call failed: invalid image output. Pass a base64 data URI instead";
    const detail = override !== undefined ? override : embedded !== undefined ? embedded : "high";
    return { type: "input_image", image_url: url, detail };
  }

  function __cm_text() {
    __cm_emit({ type: "input_text", text: __cm_to_text(arguments[0]) });
  }

  function __cm_image() {
    const override = __cm_detail(arguments[1]);
    __cm_emit(__cm_image_item(arguments[0], override));
  }

  function __cm_audio() {
    const value = arguments[0];
    const expects = "audio expects a non-empty audio URL string, an object with audio_url, or a raw MCP audio block";
    let url;
    if (typeof value === "string") {
      url = value;
    } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      if (typeof value.audio_url === "string") url = value.audio_url;
      else if (typeof value.type === "string") {
        if (value.type !== "audio") throw "audio only accepts MCP audio blocks, got " + JSON.stringify(value.type);
        url = __cm_block_url(value, "audio");
      } else throw expects;
    } else throw expects;
    if (!url) throw expects;
    if (!url.toLowerCase().startsWith("data:")) throw "Tool call failed: invalid audio output. Pass a base64 data URI instead";
    __cm_emit({ type: "input_audio", audio_url: url });
  }

  function __cm_generated_image() {
    const result = arguments[0];
    if (result === null || typeof result !== "object" || Array.isArray(result)) {
      throw "generatedImage expects an image generation result object";
    }
    const hint = result.output_hint;
    if (hint !== undefined && hint !== null && typeof hint !== "string") {
      throw "generatedImage output_hint must be a string when provided";
    }
    __cm_emit(__cm_image_item(result, undefined));
    if (typeof hint === "string") __cm_emit({ type: "input_text", text: hint });
  }

  // content(block | block[]): MCP content blocks (text, image, audio), as recorded from 0.171.
  function __cm_content_block(block) {
    const expects = "content expects one MCP ContentBlock";
    if (block === null || typeof block !== "object") throw expects;
    if (block.type === "text" && typeof block.text === "string") {
      __cm_emit({ type: "input_text", text: block.text });
    } else if (block.type === "image") {
      __cm_emit(__cm_image_item(block, undefined));
    } else if (block.type === "audio") {
      __cm_audio(block);
    } else {
      throw expects;
    }
  }

  function __cm_content() {
    const value = arguments[0];
    if (Array.isArray(value)) {
      for (const block of value) __cm_content_block(block);
    } else {
      __cm_content_block(value);
    }
  }

  function __cm_notify() {
    const text = __cm_to_text(arguments[0]);
    if (text.trim() === "") throw "notify expects non-empty text";
    __cm_call("notify", JSON.stringify(text));
  }

  // ---- store / load (values kept by the host; spec §1.6) ----------------------------

  // ToString of a key; like V8's conversion it fails for symbols (spec §1.6).
  function __cm_key(value, what) {
    if (typeof value === "symbol") throw what + " key must be a string";
    try { return String(value); } catch (_) { throw what + " key must be a string"; }
  }

  function __cm_store() {
    const key = __cm_key(arguments[0], "store");
    const value = arguments[1];
    if (value === undefined) {
      throw "Unable to store " + JSON.stringify(key) + ". Only plain serializable objects can be stored.";
    }
    const json = __cm_stringify_json(value);
    if (json === undefined) throw "failed to serialize JavaScript value: expected value at line 1 column 1";
    __cm_call("store", JSON.stringify([key, json]));
  }

  function __cm_load() {
    const key = __cm_key(arguments[0], "load");
    const json = __cm_call("load", JSON.stringify(key));
    return json === undefined || json === null ? undefined : JSON.parse(json);
  }

  // ---- control ------------------------------------------------------------------

  function __cm_yield_control() {
    __cm_call("yield", "");
  }

  function __cm_exit() {
    // The host interrupts the context (uncatchable, no finally blocks). Without an
    // interrupt it falls back to Codex's sentinel string.
    __cm_call("exit", "");
    for (;;) { /* the interrupt lands here */ }
  }

  // ---- timers (spec §1.5) --------------------------------------------------------

  const timers = new Map();
  let nextTimer = 1;

  function __cm_set_timeout() {
    const callback = arguments[0];
    if (typeof callback !== "function") throw "setTimeout expects a function callback";
    let delay = Number(arguments[1]);
    if (!Number.isFinite(delay) || delay <= 0) delay = 0;
    delay = Math.trunc(delay);
    const id = nextTimer++;
    timers.set(id, callback);
    __cm_call("timer", JSON.stringify([id, delay]));
    return id;
  }

  function __cm_clear_timeout() {
    const raw = arguments[0];
    if (raw === undefined || raw === null) return;
    let id;
    try { id = Number(raw); } catch (_) { throw "clearTimeout expects a numeric timeout id"; }
    if (!Number.isFinite(id) || id <= 0) return;
    id = Math.trunc(id);
    if (timers.delete(id)) __cm_call("cleartimer", String(id));
  }

  function __cm_fire(id) {
    const callback = timers.get(id);
    if (callback === undefined) return;
    timers.delete(id);
    try {
      callback.call(undefined);
    } catch (e) {
      if (e === EXIT_SENTINEL) { __cm_call("exited", ""); return; }
      __cm_call("fail", JSON.stringify(__cm_error_text(e)));
    }
  }

  // ---- tools (spec §1.8, oracle tool_* cases) -------------------------------------

  const pendingCalls = new Map();

  function __cm_tool(index) {
    let input = "null";
    if (arguments.length > 1 && arguments[1] !== undefined) {
      const json = __cm_stringify_json(arguments[1]);
      if (json !== undefined) input = json;
    }
    const id = __cm_call("tool", '{"index":' + index + ',"input":' + input + "}");
    return new Promise(function __cm_pending(resolve, reject) {
      pendingCalls.set(id, { resolve, reject });
    });
  }

  function __cm_settle(payload) {
    const { id, ok, value } = JSON.parse(payload);
    const call = pendingCalls.get(id);
    if (call === undefined) return;
    pendingCalls.delete(id);
    if (ok) call.resolve(value);
    else call.reject(value);
  }

  const toolsObject = {};
  const allTools = [];
  __cm_config.tools.forEach(function __cm_add_tool(tool, index) {
    const fn = Function.prototype.bind.call(__cm_tool, undefined, index);
    Object.defineProperty(fn, "name", { value: "" });
    Object.defineProperty(fn, "length", { value: 0 });
    toolsObject[tool.name] = fn;
    allTools.push({ name: tool.name, description: tool.description });
  });

  // ---- settlement helpers (undocumented in Codex, present in 0.171) ----------------

  function __cm_as_settled(promises) {
    const list = Array.from(promises);
    const queue = [];
    const waiters = [];
    list.forEach(function __cm_watch(p, index) {
      Promise.resolve(p).then(
        function __cm_ok(value) { __cm_push({ index, status: "fulfilled", value }); },
        function __cm_err(reason) { __cm_push({ index, status: "rejected", reason }); });
    });
    function __cm_push(entry) {
      if (waiters.length) waiters.shift()({ value: entry, done: false });
      else queue.push(entry);
    }
    let delivered = 0;
    const iterator = Object.create(SettledIterator.prototype);
    iteratorState.set(iterator, {
      next() {
        if (delivered >= list.length) return Promise.resolve({ value: undefined, done: true });
        delivered++;
        if (queue.length) return Promise.resolve({ value: queue.shift(), done: false });
        return new Promise(function __cm_wait(resolve) { waiters.push(resolve); });
      },
      finish() {
        delivered = list.length;
        return Promise.resolve({ value: undefined, done: true });
      },
    });
    return iterator;
  }

  const iteratorState = new WeakMap();
  function SettledIterator() {}
  SettledIterator.prototype = Object.create(Object.prototype, {
    next: { value: function next() { return iteratorState.get(this).next(); }, writable: true, configurable: true },
    return: { value: function __cm_return() { return iteratorState.get(this).finish(); }, writable: true, configurable: true },
    [Symbol.asyncIterator]: { value: function __cm_iter() { return this; }, writable: true, configurable: true },
  });

  async function __cm_stream_settled(promises, callback) {
    if (typeof callback !== "function") throw new TypeError("stream_settled requires a callback");
    for await (const entry of __cm_as_settled(promises)) await callback(entry);
  }

  // ---- Intl (QuickJS has none; minimal en-US number formatting) -------------------

  if (typeof globalThis.Intl === "undefined") {
    class NumberFormat {
      constructor(locale, options) { this.options = options || {}; }
      format(value) {
        const n = Number(value);
        if (!Number.isFinite(n)) return String(n);
        const max = this.options.maximumFractionDigits !== undefined ? this.options.maximumFractionDigits : 3;
        const fixed = Math.abs(n).toFixed(max).replace(/\.?0+$/, "");
        const [int, frac] = fixed.split(".");
        const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
        return (n < 0 ? "-" : "") + grouped + (frac ? "." + frac : "");
      }
    }
    Object.defineProperty(globalThis, "Intl", { value: { NumberFormat }, writable: true, configurable: true });
  }

  __cm_define("text", __cm_text);
  __cm_define("image", __cm_image);
  __cm_define("audio", __cm_audio);
  __cm_define("generatedImage", __cm_generated_image);
  __cm_define("content", __cm_content);
  __cm_define("notify", __cm_notify);
  __cm_define("store", __cm_store);
  __cm_define("load", __cm_load);
  __cm_define("yield_control", __cm_yield_control);
  __cm_define("exit", __cm_exit);
  __cm_define("setTimeout", __cm_set_timeout);
  __cm_define("clearTimeout", __cm_clear_timeout);
  __cm_define("as_settled", __cm_as_settled);
  __cm_define("stream_settled", __cm_stream_settled);
  Object.defineProperty(globalThis, "tools", { value: toolsObject, writable: true, configurable: true });
  Object.defineProperty(globalThis, "ALL_TOOLS", { value: allTools, writable: true, configurable: true });

  // ---- dispatcher for the cell thread ------------------------------------------------

  return function __cm_dispatch(op, arg) {
    try {
      switch (op) {
        case "watch":
          arg.then(
            function __cm_done() { __cm_call("done", ""); },
            function __cm_failed(e) {
              if (e === EXIT_SENTINEL) __cm_call("exited", "");
              else __cm_call("fail", JSON.stringify(__cm_error_text(e)));
            });
          return "";
        case "fire":
          __cm_fire(Number(arg));
          return "";
        case "settle":
          __cm_settle(arg);
          return "";
        default:
          return "unknown op " + op;
      }
    } catch (e) {
      if (e === EXIT_SENTINEL) { __cm_call("exited", ""); return ""; }
      __cm_call("fail", JSON.stringify(__cm_error_text(e)));
      return "";
    }
  };
})()
