// Notebook formatting (a stand-in, replaced by the Node-like one): the inspect text of a
// value, console's format of its arguments, and a value's MIME bundle.

function __cm_inspect(value) {
  if (typeof value === "string") return __cm_json_stringify(value);
  try { return __cm_String(value); } catch (e) { __cm_end_if_out_of_memory(e); return __cm_object_to_string(value); }
}

function __cm_format(args) {
  const parts = __cm_list();
  for (let i = 0; i < args.length; i++) {
    const value = args[i];
    __cm_push(parts, typeof value === "string" ? value : __cm_inspect(value));
  }
  return __cm_join_list(parts, " ");
}

function __cm_bundle(value) {
  const bundle = __cm_record();
  bundle["text/plain"] = __cm_inspect(value);
  return bundle;
}
