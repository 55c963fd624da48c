// Installation of the globals and the dispatcher the cell thread calls.

// In the order of Codex's host (`Object.keys(globalThis)` lists them so).
__cm_define_value(globalThis, "tools", toolsObject, true, true, true);
__cm_define_value(globalThis, "ALL_TOOLS", allTools, true, true, true);
__cm_define("clearTimeout", __cm_clear_timeout, "", 0);
__cm_define("setTimeout", __cm_set_timeout, "", 0);
__cm_define("text", __cm_text, "", 0);
__cm_define("content", __cm_content, "content", 1);
__cm_define("image", __cm_image, "", 0);
__cm_define("audio", __cm_audio, "", 0);
__cm_define("generatedImage", __cm_generated_image, "", 0);
__cm_define("store", __cm_store, "", 0);
__cm_define("load", __cm_load, "", 0);
__cm_define("notify", __cm_notify, "", 0);
__cm_define("yield_control", __cm_yield_control, "", 0);
__cm_define("exit", __cm_exit, "", 0);
__cm_define("as_settled", __cm_as_settled, "as_settled", 1);
__cm_define("stream_settled", __cm_stream_settled, "stream_settled", 2);

// ---- dispatcher for the cell thread ------------------------------------------------
// watch(promise): report the module's completion; fire(id): run timer `id`;
// settle(json {id, ok, value}): settle a tool call; resolve:<id>(string): resolve tool call
// <id> with that string (runtime/bridge.py's settlement).

return function __cm_dispatch(op, arg) {
  try {
    if (op === "watch") {
      __cm_watch_promise(arg, __cm_module_done, __cm_module_failed);
    } else if (op === "fire") {
      __cm_fire(__cm_Number(arg));
    } else if (op === "settle") {
      const payload = __cm_json_parse_intrinsic(arg);
      __cm_settle(payload.id, payload.ok, payload.value);
    } else if (__cm_starts_with(op, "resolve:")) {
      __cm_settle(__cm_slice(op, 8), true, arg);
    } else {
      return "unknown op " + op;
    }
  } catch (e) {
    __cm_report_failure(e);
  }
  return "";
};
