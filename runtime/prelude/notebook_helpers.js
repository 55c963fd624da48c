// The notebook profile's own helpers of a cell: console, display, html, markdown, svg.
// Their items go the way text() items go (runtime/realm.py); formatting is notebook.js's.

// What inspecting a value threw (a getter or Proxy trap of the cell's own code), in one line.
// Showing a value never fails the cell: Node reads a Proxy's target and does not run its
// traps, which plain JavaScript cannot do, so the failure is shown in the value's place.
function __cm_unshowable(what, e) {
  __cm_end_if_out_of_memory(e);
  const text = __cm_safe_error_text(e);
  return "[" + what + " could not be shown: " + (text === null ? "its error has no text" : __cm_split(text, "\n")[0]) + "]";
}

function __cm_shown_bundle(value) {
  try {
    return __cm_bundle(value);
  } catch (e) {
    const bundle = __cm_record();
    bundle["text/plain"] = __cm_unshowable("the value", e);
    return bundle;
  }
}

function __cm_stream(name, args) {
  const item = __cm_item("stream", "name", name);
  let text;
  try {
    text = __cm_format(args);
  } catch (e) {
    text = __cm_unshowable("the arguments", e);
  }
  item.text = text + "\n";
  __cm_emit(item);
}

function __cm_console_out() {
  __cm_stream("stdout", arguments);
}

function __cm_console_err() {
  __cm_stream("stderr", arguments);
}

function __cm_display(value) {
  __cm_call("emit", __cm_rich_item_json("display_data", __cm_shown_bundle(value)));
}

// A display of text `value` as `mime`, with a text/plain of the same text.
function __cm_mime_display(mime, value) {
  const text = __cm_to_text(value);
  const bundle = __cm_record();
  bundle[mime] = text;
  bundle["text/plain"] = text;
  __cm_call("emit", __cm_rich_item_json("display_data", bundle));
}

function __cm_html(value) {
  __cm_mime_display("text/html", value);
}

function __cm_markdown(value) {
  __cm_mime_display("text/markdown", value);
}

function __cm_svg(value) {
  __cm_mime_display("image/svg+xml", value);
}

// The cell's value, its last item.
function __cm_execute_result(value) {
  __cm_call("emit", __cm_rich_item_json("execute_result", __cm_shown_bundle(value)));
}
