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
  const StringPrototype = String.prototype;
  const charCodeAt = String.prototype.charCodeAt;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const hasOwn = Object.hasOwn;
  const indexOf = String.prototype.indexOf;
  const slice = String.prototype.slice;
  const subarray = Object.getPrototypeOf(Uint16Array.prototype).subarray;
  const then = Promise.prototype.then;
  const resolved = Promise.resolve();
  const min = Math.min;
  const defineProperty = Object.defineProperty;
  const construct = Reflect.construct;
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  const globalEval = eval;
  const PIECE = 8192;

  // Whether `text.charCodeAt(i)` still reaches the built-in (a data property that is the
  // captured function): the direct call is several times faster than Reflect.apply, and no
  // cell code runs while the loop does, so the answer holds for the whole loop.
  function directCharCodeAt() {
    const own = getOwnPropertyDescriptor(StringPrototype, "charCodeAt");
    return own !== undefined && hasOwn(own, "value") && own.value === charCodeAt;
  }

  function send(text) {
    const n = text.length;
    const direct = directCharCodeAt();
    let at = 0;
    do {
      const end = n - at > capacity ? at + capacity : n;
      if (direct) {
        for (let i = at; i < end; i++) units[i - at] = text.charCodeAt(i);
      } else {
        for (let i = at; i < end; i++) units[i - at] = apply(charCodeAt, text, [i]);
      }
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

  // Whether the cell's source is one that Codex's module would refuse: "" when not, else
  // V8's SyntaxError text. `request` is the source and, after a NUL, the same source with
  // `await` taken out. The source is only compiled, never run, and never pasted into code of
  // the runtime's. First as global code that throws before its first statement: a module's
  // messages (a source cut short ends the input there), a `return` illegal as in a module
  // (a function body allows one), and no brace can close anything of the runtime's; strict
  // global eval code keeps its declarations to itself. Then as the body of an async
  // function on its own, where it will run.
  function check(request) {
    const cut = apply(indexOf, request, ["\u0000"]);
    try {
      globalEval('"use strict"; throw 0;\n' + apply(slice, request, [cut + 1]));
    } catch (e) {
      if (e !== 0) return describe(e);
    }
    try {
      construct(AsyncFunction, [apply(slice, request, [0, cut])]);
    } catch (e) {
      return describe(e);
    }
    return "";
  }

  function describe(e) {
    try { return "" + e; } catch (x) { return "SyntaxError"; }
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
