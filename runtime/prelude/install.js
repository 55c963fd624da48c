// Installation of the globals and the dispatcher the cell thread calls.

__cm_define("text", __cm_text);
__cm_define("image", __cm_image);
__cm_define("audio", __cm_audio);
__cm_define("generatedImage", __cm_generated_image);
__cm_define("content", __cm_content);
__cm_define("notify", __cm_notify);
__cm_define("store", __cm_store);
__cm_define("load", __cm_load);
__cm_define("yield_control", __cm_yield_control);
__cm_define("exit", __cm_exit);
__cm_define("setTimeout", __cm_set_timeout);
__cm_define("clearTimeout", __cm_clear_timeout);
__cm_define("as_settled", __cm_as_settled);
__cm_define("stream_settled", __cm_stream_settled);
Object.defineProperty(globalThis, "tools", { value: toolsObject, writable: true, configurable: true });
Object.defineProperty(globalThis, "ALL_TOOLS", { value: allTools, writable: true, configurable: true });

// ---- dispatcher for the cell thread ------------------------------------------------

return function __cm_dispatch(op, arg) {
  try {
    switch (op) {
      case "watch":
        arg.then(
          function __cm_done() { __cm_call("done", ""); },
          function __cm_failed(e) {
            if (e === EXIT_SENTINEL) __cm_call("exited", "");
            else __cm_call("fail", JSON.stringify(__cm_error_text(e)));
          });
        return "";
      case "fire":
        __cm_fire(Number(arg));
        return "";
      case "settle":
        __cm_settle(arg);
        return "";
      default:
        return "unknown op " + op;
    }
  } catch (e) {
    if (e === EXIT_SENTINEL) { __cm_call("exited", ""); return ""; }
    __cm_call("fail", JSON.stringify(__cm_error_text(e)));
    return "";
  }
};
