// Setup: the bridge and configuration handed in by the cell thread, the globals Codex's
// host does not have, and whether exit() ran. Runs before cell code.

const __cm_host = globalThis.__codemode_host;
const __cm_config = JSON.parse(globalThis.__codemode_config);
delete globalThis.__codemode_host;
delete globalThis.__codemode_config;

// Globals that Codex's host removes or never had (`console` is a ReferenceError there).
const __cm_absent = ["console", "Atomics", "SharedArrayBuffer", "WebAssembly", "queueMicrotask",
  "structuredClone", "setInterval", "atob", "btoa", "performance", "print", "navigator",
  "DOMException", "TextEncoder", "TextDecoder", "URL", "fetch", "process", "Temporal"];
for (let i = 0; i < __cm_absent.length; i++) delete globalThis[__cm_absent[i]];
// QuickJS's own: its InternalError constructor (the runtime keeps it in a closure, see
// intrinsics.js) and the global object's Symbol.toStringTag ("global"); V8's global
// object has neither.
delete globalThis.InternalError;
delete globalThis[Symbol.toStringTag];

// Whether the cell called exit(). Only the exit helper sets it and it lives in this
// closure, so no value a cell throws or builds (the text exit() throws when the context
// cannot be interrupted included) can pass for the runtime's own exit.
let __cm_exiting = false;
// The lines of the source whose positions error texts map (the notebook realm sets them to
// the cell it runs and shifts lines by its one-line header).
let __cm_source_lines = __cm_split(__cm_String(__cm_config.source), "\n");
let __cm_line_offset = 0;
const IDENT = /[A-Za-z0-9_$]/;
const SPACE = /\s/;
