// Timers: setTimeout / clearTimeout, fired by the cell thread.

// ---- timers (spec §1.5) --------------------------------------------------------

const timers = new Map();
let nextTimer = 1;

function __cm_set_timeout() {
  const callback = arguments[0];
  if (typeof callback !== "function") throw "setTimeout expects a function callback";
  let delay = Number(arguments[1]);
  if (!Number.isFinite(delay) || delay <= 0) delay = 0;
  delay = Math.trunc(delay);
  const id = nextTimer++;
  timers.set(id, callback);
  __cm_call("timer", JSON.stringify([id, delay]));
  return id;
}

function __cm_clear_timeout() {
  const raw = arguments[0];
  if (raw === undefined || raw === null) return;
  let id;
  try { id = Number(raw); } catch (_) { throw "clearTimeout expects a numeric timeout id"; }
  if (!Number.isFinite(id) || id <= 0) return;
  id = Math.trunc(id);
  if (timers.delete(id)) __cm_call("cleartimer", String(id));
}

function __cm_fire(id) {
  const callback = timers.get(id);
  if (callback === undefined) return;
  timers.delete(id);
  try {
    callback.call(undefined);
  } catch (e) {
    if (e === EXIT_SENTINEL) { __cm_call("exited", ""); return; }
    __cm_call("fail", JSON.stringify(__cm_error_text(e)));
  }
}
