// JSON.stringify of user values: V8's failure texts and the text()/notify() conversion.

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
