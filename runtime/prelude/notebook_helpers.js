// The notebook profile's own helpers of a cell: console, display, html, markdown, svg.
// Their items go the way text() items go (runtime/realm.py); formatting is notebook.js's.

function __cm_stream(name, args) {
  const item = __cm_item("stream", "name", name);
  item.text = __cm_format(args) + "\n";
  __cm_emit(item);
}

function __cm_console_out() {
  __cm_stream("stdout", arguments);
}

function __cm_console_err() {
  __cm_stream("stderr", arguments);
}

function __cm_display(value) {
  __cm_call("emit", __cm_rich_item_json("display_data", __cm_bundle(value)));
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
  __cm_call("emit", __cm_rich_item_json("execute_result", __cm_bundle(value)));
}
