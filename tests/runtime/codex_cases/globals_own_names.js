// oracle: {"description": "the global object's own property names (sorted), symbols, attributes and tag: nothing more, nothing less"}
const attrs = (k) => {
  const d = Object.getOwnPropertyDescriptor(globalThis, k);
  return (d.writable ? "w" : "") + (d.enumerable ? "e" : "") + (d.configurable ? "c" : "") + ("value" in d ? "" : "(accessor)");
};
const names = Object.getOwnPropertyNames(globalThis).sort();
text(JSON.stringify(names));
text(names.map((n) => n + ":" + attrs(n)).join(" "));
text(JSON.stringify(Object.getOwnPropertySymbols(globalThis).map(String)));
text(Object.prototype.toString.call(globalThis) + " " + String(globalThis[Symbol.toStringTag]));
text(["InternalError", "__codemode_host", "__codemode_config", "print", "console", "scriptArgs", "std", "os", "bjson", "gc", "navigator", "performance", "queueMicrotask"].map((n) => n + ":" + typeof globalThis[n] + ":" + (n in globalThis)).join(" "));
try { text(typeof InternalError); new InternalError("x"); text("InternalError constructed"); } catch (e) { text(e.constructor.name + ": " + e.message); }
// ---- cell ----
text(JSON.stringify(Object.getOwnPropertyNames(globalThis).filter((n) => /Error$/.test(n)).sort()));
