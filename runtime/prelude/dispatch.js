// The dispatcher of one cell, which the cell thread (strict profile) or the realm thread
// (notebook profile) calls: fire(id): run timer `id`; settle(json {id, ok, value}): settle a
// tool call; resolve:<id>(string): resolve tool call <id> with that string
// (runtime/bridge.py's settlement). Any other op goes to `own(op, arg)`, the profile's own
// ops, which returns false for an op it does not know. `lines`, when given, are the source
// lines error texts map, set before each op (the realm's cells share __cm_source_lines).
// A failure of an op is the cell's (__cm_report_failure); the reply is "" or "unknown op <op>".
function __cm_dispatcher(lines, own) {
  return function __cm_dispatch(op, arg) {
    if (lines !== undefined) __cm_source_lines = lines;
    try {
      if (op === "fire") {
        __cm_fire(__cm_Number(arg));
      } else if (op === "settle") {
        const payload = __cm_json_parse_intrinsic(arg);
        __cm_settle(payload.id, payload.ok, payload.value);
      } else if (__cm_starts_with(op, "resolve:")) {
        __cm_settle(__cm_slice(op, 8), true, arg);
      } else if (!own(op, arg)) {
        return "unknown op " + op;
      }
    } catch (e) {
      __cm_report_failure(e);
    }
    return "";
  };
}
