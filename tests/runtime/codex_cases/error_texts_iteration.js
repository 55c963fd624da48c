// oracle: {"tools": ["echo"], "description": "a for-of over a value that is not iterable: V8 names the iterable expression, or the callee when it is a call"}
const list = null;
for (const x of list) {}
// ---- cell ----
for (const x of undefined) {}
// ---- cell ----
const res = await tools.echo({});
for (const item of res.items) {
  text(item);
}
// ---- cell ----
const obj = {items: 5};
for (const x of obj.items) {}
// ---- cell ----
const obj = {items: {a: 1}};
for (const [k, v] of obj.items) {}
// ---- cell ----
const m = new Map();
for (const [k, v] of m.get("x")) {}
// ---- cell ----
const rows = [null];
for (const x of rows[0]) {}
// ---- cell ----
const o = {};
for await (const x of o.items) {}
// ---- cell ----
const o = {};
const all = [0, ...o.items];
// ---- cell ----
const counts = 5;
const all = [...counts];
// ---- cell ----
function load() {}
const all = [...load()];
// ---- cell ----
const xs = null;
text(Math.max(...xs));
// ---- cell ----
const o = {items: 5};
text(Math.max(...o.items));
// ---- cell ----
const xs = [5];
const all = [...xs.map((v) => [...v])];
