// The text of a thrown value under V8 (Codex's engine): as Codex's host words it, the
// value's `stack` when that is a string, else the value converted to a string, or "" when
// it cannot be (Object.create(null) has no toString). The cell's
// source starts on line 2 of the script V8 compiles (line 1 holds the function that
// starts it, see runtime/engines/v8.py), so positions in exec_main.mjs move up one line,
// and the runtime's own frames (functions named __cm_*) are left out, as Codex's are.

const __cm_cell_position_re = /exec_main\.mjs:(\d+):(\d+)/;
const __cm_own_frame_re = /^    at (?:async )?__cm_/;
const __cm_builtin_frame_re = /^    at [^ ]+ \(<anonymous>\)$/;

// A frame of the runtime's: one of its functions, or a built-in it called (JSON.stringify
// of a helper's argument fails in the helper, which Codex's host implements natively).
function __cm_runtime_frame(lines, i) {
  if (__cm_exec(__cm_own_frame_re, lines[i]) !== null) return true;
  return i + 1 < lines.length && __cm_exec(__cm_builtin_frame_re, lines[i]) !== null &&
    __cm_exec(__cm_own_frame_re, lines[i + 1]) !== null;
}

function __cm_cell_stack(stack) {
  const lines = __cm_split(stack, "\n");
  let text = "";
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (i > 0 && __cm_runtime_frame(lines, i)) continue;
    const m = __cm_exec(__cm_cell_position_re, line);
    if (i > 0 && m !== null) {
      line = __cm_slice(line, 0, m.index) + "exec_main.mjs:" + (__cm_Number(m[1]) - 1) + ":" + m[2] +
        __cm_slice(line, m.index + m[0].length);
    }
    text += (i > 0 ? "\n" : "") + line;
  }
  return text;
}

function __cm_error_text(e) {
  if (e !== null && (typeof e === "object" || typeof e === "function")) {
    const stack = e.stack;
    if (typeof stack === "string") return __cm_cell_stack(stack);
  }
  if (typeof e === "string") return e;
  if (typeof e === "symbol") return "";
  try { return __cm_String(e); } catch (x) { return ""; }
}

// The text of a thrown value, never throwing itself.
function __cm_safe_error_text(e) {
  try {
    const text = __cm_error_text(e);
    return typeof text === "string" ? text : "undefined";
  } catch (x) {
    return null;
  }
}
