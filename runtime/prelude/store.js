// store / load: values kept by the host across cells (JSON texts, per key).

// ToString of a key; like V8's conversion it fails for symbols.
function __cm_key(value, what) {
  if (typeof value === "symbol") throw what + " key must be a string";
  try {
    return __cm_String(value);
  } catch (e) {
    __cm_end_if_out_of_memory(e);
    throw what + " key must be a string";
  }
}

function __cm_store(keyValue, value) {
  const key = __cm_key(keyValue, "store");
  if (value === undefined) {
    throw "Unable to store " + __cm_quote(key) + ". Only plain serializable objects can be stored.";
  }
  const json = __cm_stringify_json(value);
  if (json === undefined) throw "failed to serialize JavaScript value: expected value at line 1 column 1";
  // The key travels in the operation's name and the value's JSON as the argument, as it is:
  // quoting it again, or joining it to the key, took one more copy of a large value (a
  // joined string is flattened before it crosses), so a value the heap held failed with out
  // of memory before the host's size check could refuse it.
  __cm_call("store:" + __cm_quote(key), json);
}

function __cm_load(keyValue) {
  const key = __cm_key(keyValue, "load");
  return __cm_call("load", __cm_quote(key));
}
