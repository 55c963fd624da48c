// oracle: {"tools": ["echo"], "description": "a call of a value that is no function: V8 names the callee as written (CallPrinter), also in a chain over lines, with literals and computed keys; `new` of one is not a constructor"}
const r = {items: 5};
r.items.map(x => x);
// ---- cell ----
({}).f();
// ---- cell ----
const res = await tools.echo({data: {items: "x"}});
res.data.items.forEach(item => text(item));
// ---- cell ----
const list = [1, 2];
list
  .map(x => x)
  .flatMapp(x => x);
// ---- cell ----
const o = {a: [{}]};
o.a[0].run({id: 1});
// ---- cell ----
const o = {a: {}};
o["a"].b();
// ---- cell ----
"abc".foo();
// ---- cell ----
[1, "x", null].f();
// ---- cell ----
({a: 1, b: [2]}).f();
// ---- cell ----
JSON.parse("{}").items.map(x => x);
// ---- cell ----
JSON.parse("1").x();
// ---- cell ----
const fns = [5];
fns[0]();
// ---- cell ----
const o = {};
o?.f();
// ---- cell ----
class T {}
new T().f();
// ---- cell ----
const o = {};
const made = new o.Thing({a: 1});
// ---- cell ----
const n = 5;
new n();
// ---- cell ----
const o = {};
o.f`x`;
// ---- cell ----
await tools.nope({});
// ---- cell ----
const out = await tools.echo({x: 1});
text(`value: ${out.x.toUpperCase()}`);
// ---- cell ----
const pair = await tools.echo([{a: 1}, {b: 2}]);
const [first, second] = pair;
text(first.a.toFixed(1) + second.b.trim());
// ---- cell ----
const parts = "a,b".split(",");
parts.forEach((p) => text(p.toUppercase()));
// ---- cell ----
const o = {};
text(JSON.stringify(o.toJson()));
