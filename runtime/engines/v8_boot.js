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

  // Whether `source` (the cell, with `await` taken out) has a `return` outside any function,
  // which a module refuses and a function body allows: a direct eval in strict mode, never
  // run (`if (0)`), whose declarations stay in the eval's own scope.
  function check(source) {
    try {
      eval('"use strict"; if (0) {\n' + source + "\n}");
    } catch (e) {
      try { return "" + e; } catch (x) { return ""; }
    }
    return "";
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
          // The cell's function starts in a promise job, so no frame of the runtime's is
          // below its own synchronous part (errors_v8.js leaves out __cm_* frames).
          apply(then, resolved, [function __cm_start() { dispatch("watch", cell()); }]);
          return undefined;
        }
        const message = host("next", "");
        if (typeof message !== "string") return undefined;
        const cut = apply(indexOf, message, ["\u0000"]);
        const op = apply(slice, message, [0, cut]);
        const arg = apply(slice, message, [cut + 1]);
        if (op === "check") return check(arg);
        dispatch(op, arg);
        return undefined;
      };
    },
  });
  return sab;
})
