// oracle: {"tools": ["echo", "mcp__srv__get-thing", "raw"], "description": "every global function's and tools.* function's name, length, own properties and prototype; the helpers' property attributes and order"}
const attrs = (o, k) => {
  const d = Object.getOwnPropertyDescriptor(o, k);
  return d === undefined ? "-" : (d.writable ? "w" : "") + (d.enumerable ? "e" : "") + (d.configurable ? "c" : "") + ("value" in d ? "" : "(accessor)");
};
const shape = (label, f) => {
  const own = Object.getOwnPropertyNames(f).map((k) => k + ":" + attrs(f, k)).join(",");
  const proto = Object.getPrototypeOf(f) === Function.prototype ? "Function.prototype"
    : Object.getPrototypeOf(f) === Object.getPrototypeOf(async function () {}) ? "AsyncFunction.prototype" : "other";
  let prototype = "none";
  if (Object.hasOwn(f, "prototype")) {
    const p = f.prototype;
    prototype = JSON.stringify(Object.getOwnPropertyNames(p)) + " constructor:" + attrs(p, "constructor") + (p.constructor === f ? " is the function" : " is another")
      + (Object.getPrototypeOf(p) === Object.prototype ? " inherits Object.prototype" : " inherits another");
  }
  return label + " name=" + JSON.stringify(f.name) + " length=" + f.length + " own=" + own + " [[Prototype]]=" + proto + " prototype=" + prototype;
};
const globalFunctions = Object.getOwnPropertyNames(globalThis).filter((n) => typeof globalThis[n] === "function" && !/^[A-Z]/.test(n)).sort();
for (const n of globalFunctions) text(shape(n, globalThis[n]));
for (const n of Object.keys(tools)) text(shape("tools." + n, tools[n]));
text(JSON.stringify(Object.keys(globalThis)));
text(["tools", "ALL_TOOLS"].map((n) => n + ":" + attrs(globalThis, n)).join(" ") + " " + Object.keys(tools).map((n) => "tools." + n + ":" + attrs(tools, n)).join(" "));
text(typeof new text("made by new"));
