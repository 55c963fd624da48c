// The helpers of one realm cell and its dispatcher (the end of __cm_cell_factory's body).
// The cell's function gets the helpers as parameters, so its code reaches its own cell
// even when several cells' jobs interleave. Each helper is routed: once the cell has
// ended, it acts for the cell running now (__cm_current_cell), or does nothing when none runs;
// what it asks of the host meanwhile carries this cell as the ended caller (realm.js).

const __cm_self = __cm_record();
__cm_self.id = __cm_cell_id;
__cm_self.ended = false;
__cm_self.impl = __cm_record();

// Helper `name` of this cell: `fn`, shown with `shownName` and `length` (see __cm_shape).
function __cm_helper(name, fn, shownName, length) {
  __cm_self.impl[name] = __cm_shape(__cm_bind(fn, undefined), shownName, length, fn);
  function __cm_route() {
    if (!__cm_self.ended) return __cm_apply(__cm_self.impl[name], undefined, arguments);
    const current = __cm_current_cell();
    if (current === undefined) return undefined;
    const target = current.impl[name];
    if (target === undefined) throw name + " is not available in the running cell";
    const outer = __cm_ended_caller;
    __cm_ended_caller = __cm_self.id;
    try {
      return __cm_apply(target, undefined, arguments);
    } finally {
      __cm_ended_caller = outer;
    }
  }
  return __cm_shape(__cm_bind(__cm_route, undefined), shownName, length, fn);
}

// Tool `index` of this cell, its calls marked with the ended cell whose helper made them.
function __cm_tool_of(index) {
  return function __cm_tool_call(value) {
    return __cm_tool(index, value, __cm_ended_caller);
  };
}

// The cell has ended, and the host cancelled its tool calls: a call an ended cell's helper
// made through it was another code's (a function that cell declared, which any cell may have
// awaited), so its promise is rejected now rather than waiting forever. The cell's own calls
// stay unsettled: its own code ends with it.
function __cm_reject_calls_via_ended() {
  const ids = __cm_object_keys(__cm_pending_calls);
  for (let i = 0; i < ids.length; i++) {
    const call = __cm_pending_calls[ids[i]];
    if (call.via === undefined) continue;
    delete __cm_pending_calls[ids[i]];
    call.reject(
      "tools." + __cm_config.tools[call.index].name + " was cancelled: cell " + __cm_cell_id +
        ", which it was made for (through functions cell " + call.via + " declared), ended before it was answered"
    );
  }
}

// The tools object of this cell, each tool routed (the helper table's notebook value of `tools`).
const __cm_routed_tools = {};
for (let index = 0; index < __cm_config.tools.length; index++) {
  const name = __cm_config.tools[index].name;
  __cm_routed_tools[name] = __cm_helper("tools." + name, __cm_tool_of(index), "", 0);
}
// The cell's helpers by name: __cm_cell_helpers is generated from the helper table
// (runtime/helper_table.py) and assembled just before this file.
const __cm_exposed = __cm_cell_helpers();

function __cm_end_self() {
  __cm_cell_ended(__cm_self);
}

function __cm_body_done(result) {
  try {
    if (__cm_config.has_value && __cm_is_array(result) && result[0] !== undefined) __cm_execute_result(result[0]);
  } catch (e) {
    __cm_report_failure(e);
    __cm_end_self();
    return;
  }
  __cm_module_done();
  __cm_end_self();
}

function __cm_body_failed(e) {
  __cm_report_failure(e);
  __cm_end_self();
}

// Run the cell's compiled function with its helpers, in the order of config.helpers.
function __cm_start(fn) {
  __cm_cell_started(__cm_self);
  const names = __cm_config.helpers;
  const values = __cm_list();
  for (let i = 0; i < names.length; i++) __cm_push(values, __cm_exposed[names[i]]);
  const promise = __cm_apply(fn, undefined, values);
  __cm_watch_promise(promise, __cm_body_done, __cm_body_failed);
}

// The dispatcher (dispatch.js), the cell's lines set before each op, with the notebook
// profile's own ops: start(fn): run the cell; ended: the cell ended (its helpers act for the
// cell running now; the calls made through it by an ended cell's helpers are rejected).
function __cm_realm_op(op, arg) {
  if (op === "start") {
    __cm_start(arg);
  } else if (op === "ended") {
    __cm_end_self();
    __cm_reject_calls_via_ended();
  } else {
    return false;
  }
  return true;
}

return __cm_dispatcher(__cm_cell_lines, __cm_realm_op);
