// Stack texts: error.stack in V8's form and the positions V8 reports.

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
