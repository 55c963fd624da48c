// How the end of a cell's module (or its failure) reaches the cell thread.

// Report that the cell failed with thrown value `e` (or ended by exit()). Formatting
// the text may itself fail (an exhausted heap): the cell thread is told first, with no
// text, so the cell still ends.
function __cm_report_failure(e) {
  __cm_end_if_out_of_memory(e);
  try {
    if (__cm_exiting) {
      __cm_host("exited", "");
      return;
    }
    __cm_host("failed", "");
    const text = __cm_safe_error_text(e);
    if (text !== null) __cm_host("fail", __cm_quote(text));
  } catch (x) {
    __cm_end_if_out_of_memory(x);
    /* otherwise the cell thread already knows the cell failed */
  }
}

function __cm_module_done() {
  __cm_host("done", "");
}

function __cm_module_failed(e) {
  __cm_report_failure(e);
}
