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

const __cm_exposed = __cm_record();
const __cm_routed_tools = {};
for (let index = 0; index < __cm_config.tools.length; index++) {
  const name = __cm_config.tools[index].name;
  __cm_routed_tools[name] = __cm_helper("tools." + name, __cm_tool_of(index), "", 0);
}
__cm_exposed.tools = __cm_routed_tools;
__cm_exposed.ALL_TOOLS = allTools;
__cm_exposed.clearTimeout = __cm_helper("clearTimeout", __cm_clear_timeout, "", 0);
__cm_exposed.setTimeout = __cm_helper("setTimeout", __cm_set_timeout, "", 0);
__cm_exposed.text = __cm_helper("text", __cm_text, "", 0);
__cm_exposed.content = __cm_helper("content", __cm_content, "content", 1);
__cm_exposed.image = __cm_helper("image", __cm_image, "", 0);
__cm_exposed.audio = __cm_helper("audio", __cm_audio, "", 0);
__cm_exposed.generatedImage = __cm_helper("generatedImage", __cm_generated_image, "", 0);
__cm_exposed.store = __cm_helper("store", __cm_store, "", 0);
__cm_exposed.load = __cm_helper("load", __cm_load, "", 0);
__cm_exposed.notify = __cm_helper("notify", __cm_notify, "", 0);
__cm_exposed.yield_control = __cm_helper("yield_control", __cm_yield_control, "", 0);
__cm_exposed.exit = __cm_helper("exit", __cm_exit, "", 0);
__cm_exposed.as_settled = __cm_as_settled;
__cm_exposed.stream_settled = __cm_stream_settled;
const __cm_console = {};
__cm_console.log = __cm_helper("console.log", __cm_console_out, "log", 0);
__cm_console.info = __cm_helper("console.info", __cm_console_out, "info", 0);
__cm_console.debug = __cm_helper("console.debug", __cm_console_out, "debug", 0);
__cm_console.warn = __cm_helper("console.warn", __cm_console_err, "warn", 0);
__cm_console.error = __cm_helper("console.error", __cm_console_err, "error", 0);
__cm_exposed.console = __cm_console;
__cm_exposed.display = __cm_helper("display", __cm_display, "display", 1);
__cm_exposed.html = __cm_helper("html", __cm_html, "html", 1);
__cm_exposed.markdown = __cm_helper("markdown", __cm_markdown, "markdown", 1);
__cm_exposed.svg = __cm_helper("svg", __cm_svg, "svg", 1);

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

// ---- dispatcher for the realm thread -----------------------------------------------
// start(fn): run the cell; fire(id): run timer `id`; settle(json {id, ok, value}): settle
// a tool call; resolve:<id>(string): resolve tool call <id> with that string
// (runtime/bridge.py's settlement); ended: the cell ended (its helpers act for the cell
// running now; the calls made through it by an ended cell's helpers are rejected).

return function __cm_dispatch(op, arg) {
  __cm_source_lines = __cm_cell_lines;
  try {
    if (op === "start") {
      __cm_start(arg);
    } else if (op === "fire") {
      __cm_fire(__cm_Number(arg));
    } else if (op === "settle") {
      const payload = __cm_json_parse_intrinsic(arg);
      __cm_settle(payload.id, payload.ok, payload.value);
    } else if (__cm_starts_with(op, "resolve:")) {
      __cm_settle(__cm_slice(op, 8), true, arg);
    } else if (op === "ended") {
      __cm_end_self();
      __cm_reject_calls_via_ended();
    } else {
      return "unknown op " + op;
    }
  } catch (e) {
    __cm_report_failure(e);
  }
  return "";
};
