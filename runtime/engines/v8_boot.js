// The bridge of a V8 cell (runtime/engines/v8_native.py), evaluated before anything else
// and called once with `this` = the native callback. It returns the shared buffer that
// requests and replies cross through, installs `__codemode_host(op, arg)` for the prelude
// (which keeps it and deletes the global) and `__cm_connect(dispatch)`, which the prelude
// script calls once with the prelude's dispatcher (and which deletes itself): it returns
// the entry function the cell thread calls, `entry(cell)` to start the cell's function,
// `entry()` to hand the prelude the next message of the cell thread's mailbox.
// Every built-in used later is captured here, before any cell code runs.
(function __cm_boot() {
  "use strict";
  const native = this;
  const apply = Reflect.apply;
  const sab = new SharedArrayBuffer(BRIDGE_BYTES);
  const head = new Uint32Array(sab, 0, 2);
  const units = new Uint16Array(sab, 8);
  const capacity = units.length;
  const fromCharCode = String.fromCharCode;
  const charCodeAt = String.prototype.charCodeAt;
  const indexOf = String.prototype.indexOf;
  const slice = String.prototype.slice;
  const subarray = Object.getPrototypeOf(Uint16Array.prototype).subarray;
  const then = Promise.prototype.then;
  const resolved = Promise.resolve();
  const min = Math.min;
  const defineProperty = Object.defineProperty;
  const PIECE = 8192;

  function send(text) {
    const n = text.length;
    let at = 0;
    do {
      const end = n - at > capacity ? at + capacity : n;
      for (let i = at; i < end; i++) units[i - at] = apply(charCodeAt, text, [i]);
      head[0] = end - at;
      head[1] = end < n ? 1 : 0;
      apply(native, undefined, []);
      at = end;
    } while (at < n);
  }

  function receive() {
    if (head[1] === 2) return null;
    let text = "";
    for (;;) {
      const count = head[0];
      for (let i = 0; i < count; i += PIECE) {
        text += apply(fromCharCode, null, apply(subarray, units, [i, min(count, i + PIECE)]));
      }
      if (head[1] !== 1) return text;
      head[1] = 3;
      apply(native, undefined, []);
    }
  }

  function host(op, arg) {
    send(op + "\u0000" + arg);
    return receive();
  }

  defineProperty(globalThis, "__codemode_host", { value: host, writable: true, configurable: true });
  defineProperty(globalThis, "__cm_connect", {
    writable: true,
    configurable: true,
    value: function (dispatch) {
      delete globalThis.__cm_connect;
      return function __cm_entry(cell) {
        if (typeof cell === "function") {
          // The cell's function runs in a promise job: its stack starts with its own frame.
          dispatch("watch", apply(then, resolved, [cell]));
          return;
        }
        const message = host("next", "");
        if (typeof message !== "string") return;
        const cut = apply(indexOf, message, ["\u0000"]);
        dispatch(apply(slice, message, [0, cut]), apply(slice, message, [cut + 1]));
      };
    },
  });
  return sab;
})
