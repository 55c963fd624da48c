// Promise.any's AggregateError as V8 makes it: QuickJS gives it no message and a stack with
// the cell's frames; V8 gives it the message "All promises were rejected" and a stack of
// that header alone (it is made in a promise job), its own properties `stack`, `message`,
// `errors` in that order. Promise.any is wrapped (still shown as the built-in) so the first
// reaction of the promise it returns puts the error right before any code of the cell sees
// it; the promise, its identity and its timing are the built-in's.

const __cm_promise_any = Promise.any;
const __cm_AggregateError = AggregateError;
const __cm_all_rejected = "All promises were rejected";

function __cm_fix_any_error(e) {
  if (e === null || typeof e !== "object" || !__cm_has_instance(__cm_AggregateError, e)) return;
  const errors = __cm_own_descriptor(e, "errors");
  if (errors === undefined || __cm_own_descriptor(e, "message") !== undefined) return;
  delete e.errors;
  __cm_define_value(e, "stack", "AggregateError: " + __cm_all_rejected, true, false, true);
  __cm_define_value(e, "message", __cm_all_rejected, true, false, true);
  __cm_define_value(e, "errors", errors.value, errors.writable, errors.enumerable, errors.configurable);
}

// `p.then(undefined, onRejected)` with the intrinsic `then`, which reads no `constructor`
// of the cell's (an own one is put on `p` for the call and removed).
function __cm_on_rejected(p, onRejected) {
  if (__cm_own_descriptor(p, "constructor") !== undefined) return;
  __cm_define_value(p, "constructor", undefined, true, false, true);
  try {
    __cm_promise_then(p, undefined, onRejected);
  } catch (x) {
    __cm_end_if_out_of_memory(x);
  }
  delete p.constructor;
}

__cm_define_value(Promise, "any", __cm_intl_native("any", 1, function __cm_any(self, args) {
  const p = __cm_apply(__cm_promise_any, self, args);
  if (p !== null && typeof p === "object" && __cm_has_instance(__cm_Promise, p)) __cm_on_rejected(p, __cm_fix_any_error);
  return p;
}), true, false, true);
