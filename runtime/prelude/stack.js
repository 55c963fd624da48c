// Stack texts: error.stack in V8's form (`Name: message` then `    at exec_main.mjs:L:C`)
// and the positions V8 reports.

// V8 also lets scripts assign any value to `stack`; QuickJS's setter wants a string.
const __cm_stack_descriptor = __cm_own_descriptor(Error.prototype, "stack");
const __cm_stack_get = __cm_stack_descriptor ? __cm_stack_descriptor.get : undefined;
const __cm_stack_set = __cm_stack_descriptor ? __cm_stack_descriptor.set : undefined;

// QuickJS's own stack text of `e`, or undefined when `e` is no error object.
function __cm_raw_stack(e) {
  try {
    if (typeof __cm_stack_get === "function") return __cm_invoke(__cm_stack_get, e);
  } catch (x) { __cm_end_if_out_of_memory(x); }
  return undefined;
}

// QuickJS's uncatchable InternalError "interrupted" (runtime/interrupt.py).
function __cm_is_interrupt(e) {
  return __cm_InternalError !== undefined && __cm_has_instance(__cm_InternalError, e) && __cm_own_message(e) === "interrupted";
}

if (typeof __cm_stack_get === "function" && typeof __cm_stack_set === "function") {
  __cm_define_property(Error.prototype, "stack", {
    __proto__: null,
    get: function __cm_get_stack() {
      const raw = __cm_invoke(__cm_stack_get, this);
      // Parse errors keep QuickJS's location lines: the host reads them to word V8's message.
      // An interrupt keeps its frames: the notebook realm reads whose cell it stopped.
      if (typeof raw !== "string" || __cm_has_instance(__cm_SyntaxError, this) || __cm_is_interrupt(this)) return raw;
      return __cm_v8_stack(this, raw);
    },
    set: function __cm_set_stack(value) {
      if (typeof value === "string") __cm_invoke(__cm_stack_set, this, value);
      else __cm_define_value(this, "stack", value, true, false, true);
    },
    configurable: true,
    enumerable: __cm_stack_descriptor.enumerable,
  });
}

// Call sites (what Error.prepareStackTrace is given, from `new Error()` or
// Error.captureStackTrace): V8's CallSite.prototype.getFunction answers undefined for a frame of
// strict code and every frame below it (v8 src/execution/isolate.cc, CallSiteBuilder::IsStrictFrame: a frame is
// "strict" once a strict function was met walking down the stack). QuickJS answers every
// frame's function, so a cell got the runtime's own functions from the frames below its
// callbacks (`__cm_tool`, `__cm_settle`, the dispatcher ...), and could call them with what the
// helpers never pass. Its getFunction is therefore wrapped: only a function of sloppy code (one
// whose `caller` reads without throwing: `new Function` or indirect-eval code of the cell; the
// runtime's code, the cell's module code and built-ins are strict) comes out, anything else is
// undefined, as V8 answers for the frames a cell's strict code sits on. (V8 also answers
// undefined for a sloppy function below a strict frame; QuickJS does not say which frame a
// site is, and such a function is the cell's own.) The wrapper is a proxy of the built-in, so
// it shows as the built-in does, read-only and non-configurable as V8's CallSite methods are;
// CallSite.prototype has no getThis on QuickJS.
{
  // An accessor on QuickJS, keeping the function in the context: set back, not redefined.
  const before = Error.prepareStackTrace;
  Error.prepareStackTrace = function __cm_sites(error, sites) { return sites; };
  const sites = new Error().stack;
  Error.prepareStackTrace = before;
  const proto = __cm_is_array(sites) && sites.length > 0 ? __cm_get_prototype_of(sites[0]) : null;
  const get_function = proto === null ? undefined : __cm_own_descriptor(proto, "getFunction");
  const caller = __cm_own_descriptor(Function.prototype, "caller");
  if (get_function !== undefined && typeof get_function.value === "function" && caller !== undefined && typeof caller.get === "function") {
    const read_caller = caller.get;
    const traps = __cm_record();
    traps.apply = function __cm_site_function(target, site, args) {
      const fn = __cm_apply(target, site, args);
      if (typeof fn !== "function") return undefined;
      try {
        __cm_invoke(read_caller, fn);
      } catch (e) {
        __cm_end_if_out_of_memory(e);
        return undefined;
      }
      return fn;
    };
    get_function.value = new Proxy(get_function.value, traps);
    get_function.writable = false;
    get_function.configurable = false;
    __cm_define_property(proto, "getFunction", get_function);
  }
}

function __cm_is_ident(c) {
  return c !== "" && __cm_test(IDENT, c);
}

function __cm_is_space(c) {
  return c !== "" && __cm_test(SPACE, c);
}

// Move a QuickJS position to where V8 reports it: a call is reported at the callee's
// name (the property for member calls), `new X(...)` at `new`.
// Start (0-based) of the `new` keyword right before index `i`, or -1.
function __cm_new_before(text, i) {
  let j = i - 1;
  while (j >= 0 && __cm_is_space(__cm_char_at(text, j))) j--;
  if (j >= 2 && __cm_slice(text, j - 2, j + 1) === "new" && (j - 3 < 0 || !__cm_is_ident(__cm_char_at(text, j - 3)))) {
    return j - 2;
  }
  return -1;
}

// Words after which `(` opens no call (a statement's head: `if (`) and `/` starts a regular
// expression; also read by the call-site readers (readers.js).
const __cm_keywords = __cm_record();
{
  const words = __cm_split("if for while switch catch with function return typeof void delete await yield in of " +
    "instanceof new case do else const let var throw class extends export import default", " ");
  for (let i = 0; i < words.length; i++) __cm_keywords[words[i]] = true;
}

// Column (1-based) V8 reports for a callee name starting at index `start`.
function __cm_callee_column(text, start) {
  const n = __cm_new_before(text, start);
  return (n >= 0 ? n : start) + 1;
}

// QuickJS reports a frame at the last positioned token before the call (the callee,
// an argument, or an inner call inside the arguments); V8 reports the callee's name
// (`new` for constructions). Prefer an enclosing `new X(...)`, then a call named at
// the position itself, then the innermost enclosing call. Returns V8's column.
function __cm_v8_column(line, col) {
  if (line < 1 || line > __cm_source_lines.length) return col;
  const text = __cm_source_lines[line - 1];
  const i = col - 1;
  let enclosing = -1;
  let depth = 0;
  for (let k = i - 1; k >= 0; k--) {
    const c = __cm_char_at(text, k);
    if (c === ")" || c === "]" || c === "}") depth++;
    else if (c === "[" || c === "{") { if (depth > 0) depth--; }
    else if (c === "(") {
      if (depth > 0) { depth--; continue; }
      let e = k - 1;
      while (e >= 0 && __cm_is_space(__cm_char_at(text, e))) e--;
      let s = e;
      while (s >= 0 && __cm_is_ident(__cm_char_at(text, s))) s--;
      // `for (`, `if (` and the like open a statement's head, not a call.
      if (s < e && __cm_keywords[__cm_slice(text, s + 1, e + 1)] !== true) enclosing = s + 1;
      break;
    }
  }
  if (enclosing >= 0 && __cm_new_before(text, enclosing) >= 0) return __cm_callee_column(text, enclosing);
  if (__cm_is_ident(__cm_char_at(text, i))) {
    let start = i;
    while (start > 0 && __cm_is_ident(__cm_char_at(text, start - 1))) start--;
    let end = i;
    while (end < text.length && __cm_is_ident(__cm_char_at(text, end))) end++;
    while (end < text.length && __cm_is_space(__cm_char_at(text, end))) end++;
    if (__cm_char_at(text, end) === "(" || __cm_new_before(text, start) >= 0) return __cm_callee_column(text, start);
  }
  if (enclosing >= 0) return __cm_callee_column(text, enclosing);
  return col;
}

const __cm_frame_re = /^\s*at (.*?) \((.*)\)$/;
const __cm_input_position_re = /^<input>:(\d+):(\d+)$/;

// The cell's own frames of a QuickJS stack, in V8's form (a list of lines).
function __cm_frames(stack) {
  const out = __cm_list();
  if (typeof stack !== "string") return out;
  const lines = __cm_split(stack, "\n");
  for (let n = 0; n < lines.length; n++) {
    const m = __cm_exec(__cm_frame_re, lines[n]);
    if (m === null) continue;
    // A notebook cell's body is the function __cm_cell$<id> (runtime/notebook_cell.py).
    const name = __cm_starts_with(m[1], "__cm_cell$") ? "<anonymous>" : m[1];
    const where = m[2];
    if (__cm_starts_with(name, "__cm_") || where === "native") continue;
    const pos = __cm_exec(__cm_input_position_re, where);
    if (pos === null) continue;
    let line = __cm_Number(pos[1]) - __cm_line_offset;
    let column = __cm_Number(pos[2]);
    // QuickJS reports a failure before the first position it recorded in a function at the
    // function's start: in a realm cell, on the header line (the cell's start, then).
    if (line < 1) { line = 1; column = 1; }
    const loc = "exec_main.mjs:" + line + ":" + __cm_v8_column(line, column);
    __cm_push(out, name === "<anonymous>" || name === "<eval>" ? "    at " + loc : "    at " + name + " (" + loc + ")");
  }
  return out;
}

const __cm_first_input_re = /<input>:(\d+):(\d+)\)/;
