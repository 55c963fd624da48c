// store / load: values kept by the host across cells.

// ---- store / load (values kept by the host; spec §1.6) ----------------------------

// ToString of a key; like V8's conversion it fails for symbols (spec §1.6).
function __cm_key(value, what) {
  if (typeof value === "symbol") throw what + " key must be a string";
  try { return String(value); } catch (_) { throw what + " key must be a string"; }
}

function __cm_store() {
  const key = __cm_key(arguments[0], "store");
  const value = arguments[1];
  if (value === undefined) {
    throw "Unable to store " + JSON.stringify(key) + ". Only plain serializable objects can be stored.";
  }
  const json = __cm_stringify_json(value);
  if (json === undefined) throw "failed to serialize JavaScript value: expected value at line 1 column 1";
  __cm_call("store", JSON.stringify([key, json]));
}

function __cm_load() {
  const key = __cm_key(arguments[0], "load");
  const json = __cm_call("load", JSON.stringify(key));
  return json === undefined || json === null ? undefined : JSON.parse(json);
}
