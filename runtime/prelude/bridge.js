// The bridge to the cell thread and how helpers are installed; yield_control and exit.

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
