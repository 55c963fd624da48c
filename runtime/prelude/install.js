// Installation of a strict cell's globals and the dispatcher the cell thread calls.

// The globals, in the order of Codex's host (`Object.keys(globalThis)` lists them so):
// __cm_install_helpers is generated from the helper table (runtime/helper_table.py) and
// assembled just before this file.
__cm_install_helpers();

// The dispatcher (dispatch.js), with the strict profile's own op: watch(promise): report the
// module's completion.
function __cm_strict_op(op, arg) {
  if (op !== "watch") return false;
  __cm_watch_promise(arg, __cm_module_done, __cm_module_failed);
  return true;
}

return __cm_dispatcher(undefined, __cm_strict_op);
