// oracle: {"tools": ["string_result"], "description": "a tool argument or stored value nesting 128 arrays and objects is refused as serde_json refuses it (127 go out), at the 128th bracket or at a lone surrogate before it; much deeper values fail the same way and the session goes on"}
function deep(n, wrap) { let v = 1; for (let i = 0; i < n; i++) v = wrap(v); return v; }
const arrays = (n) => deep(n, (v) => [v]);
const objects = (n) => deep(n, (v) => ({a: v}));
const attempts = {
  "call 127": () => tools.string_result(arrays(127)),
  "call 128": () => tools.string_result(arrays(128)),
  "call objects 128": () => tools.string_result(objects(128)),
  "call 1200": () => tools.string_result(arrays(1200)),
  "surrogate first": () => tools.string_result(["\ud800", arrays(130)]),
  "deep first": () => tools.string_result([arrays(130), "\ud800"]),
  "store 127": () => store("k127", arrays(127)),
  "store 128": () => store("k128", objects(128)),
  "store 1200": () => store("k1200", arrays(1200)),
};
for (const [name, attempt] of Object.entries(attempts)) {
  try { await attempt(); text(name + ": ok"); } catch (e) { text(name + ": " + String(e)); }
}
// ---- cell ----
let depth = 0;
for (let v = load("k127"); Array.isArray(v); v = v[0]) depth++;
text("loaded k127 nesting " + depth + "; k128 " + typeof load("k128") + "; k1200 " + typeof load("k1200"));
