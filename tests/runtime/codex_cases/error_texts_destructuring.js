// oracle: {"description": "a destructuring whose value is null, undefined or not iterable, in a cell with that one pattern: V8 names the property and the value written"}
const { content } = null;
// ---- cell ----
let { content, other } = undefined;
// ---- cell ----
const { content: c } = null;
// ---- cell ----
const { limit = 10 } = null;
// ---- cell ----
const {} = null;
// ---- cell ----
const { a: { b } } = {};
// ---- cell ----
const { a, b: { c }, d: { e } } = {a: 1, b: {}, d: null};
// ---- cell ----
const [first] = undefined;
// ---- cell ----
const [d] = null;
// ---- cell ----
const pair = null;
const [a, b] = pair;
// ---- cell ----
const rows = 5;
const [head] = rows;
// ---- cell ----
function get() { return null; }
const [first] = get();
// ---- cell ----
const [first] = await Promise.resolve({});
// ---- cell ----
const o = {};
const [first] = o.items;
// ---- cell ----
const o = {a: null};
const [first] = o.a;
