// oracle: {"description": "String.prototype.repeat's errors and edge counts in V8's words: a negative or infinite count, a result longer than V8's longest string, a null receiver; converted counts and receivers, an empty string repeated any finite number of times"}
const tries = [
  () => "x".repeat(-1), () => "x".repeat(-1.5), () => "x".repeat(-0.5), () => "x".repeat(Infinity),
  () => "x".repeat(-Infinity), () => "x".repeat("-2"), () => "x".repeat("-1e3"), () => "x".repeat(" -2 "),
  () => "x".repeat("1e400"), () => "".repeat(1e10), () => "x".repeat(536870889),
  () => "ab".repeat(2 ** 29), () => String.prototype.repeat.call(null, 2), () => String.prototype.repeat.call(undefined),
  () => "ab".repeat(NaN), () => "ab".repeat(), () => "ab".repeat(2.9), () => String.prototype.repeat.call(12, 2),
  () => "x".repeat({ valueOf() { return 3; } }),
  () => String.prototype.repeat.call({ toString() { return "o"; }, valueOf() { return "v"; } }, 2),
];
for (const attempt of tries) {
  try { text(JSON.stringify(attempt())); } catch (e) { text(e.constructor.name + ": " + e.message); }
}
// ---- cell ----
"x".repeat(-3);
