// Timers: setTimeout / clearTimeout, fired by the cell thread.

const __cm_timers = __cm_record();
let __cm_next_timer = 1;

function __cm_set_timeout(callback, delayValue) {
  if (typeof callback !== "function") throw "setTimeout expects a function callback";
  let delay = __cm_Number(delayValue);
  if (!__cm_is_finite(delay) || delay <= 0) delay = 0;
  delay = __cm_trunc(delay);
  const id = __cm_next_timer++;
  __cm_timers[id] = callback;
  __cm_call("timer", "[" + id + "," + delay + "]");
  return id;
}

function __cm_clear_timeout(raw) {
  if (raw === undefined || raw === null) return;
  let id;
  try {
    id = __cm_Number(raw);
  } catch (e) {
    __cm_end_if_out_of_memory(e);
    throw "clearTimeout expects a numeric timeout id";
  }
  if (!__cm_is_finite(id) || id <= 0) return;
  id = __cm_trunc(id);
  if (__cm_timers[id] !== undefined) {
    delete __cm_timers[id];
    __cm_call("cleartimer", "" + id);
  }
}

function __cm_fire(id) {
  const callback = __cm_timers[id];
  if (callback === undefined) return;
  delete __cm_timers[id];
  try {
    __cm_invoke(callback, undefined);
  } catch (e) {
    __cm_report_failure(e);
  }
}
