// oracle: {"tools": ["fail"], "description": "texts V8 gives: a subclass of Error keeps the name Error, a value with no string conversion shows as nothing, Promise.any's AggregateError, the immutable prototype, a BigInt where a number is needed"}
class MyErr extends Error {}
throw new MyErr("custom sub");
// ---- cell ----
class MyErr extends Error {}
try { throw new MyErr("caught"); } catch (e) { text(String(e)); }
// ---- cell ----
throw Object.create(null);
// ---- cell ----
throw { toString: null, valueOf: null };
// ---- cell ----
await Promise.any([tools.fail({})]);
// ---- cell ----
try {
  await Promise.any([tools.fail({}), Promise.reject(new Error("a"))]);
} catch (e) {
  text(e.message);
  text(e.stack);
  text(Object.getOwnPropertyNames(e).join());
  text(e.errors.length);
}
// ---- cell ----
const log = [];
Promise.any([Promise.reject(1)]).catch((e) => log.push("any " + e.message));
Promise.resolve().then(() => log.push("a")).then(() => log.push("b")).then(() => log.push("c"));
await new Promise((r) => setTimeout(r, 10));
text(log.join());
// ---- cell ----
await Promise.any([]);
// ---- cell ----
Object.prototype.__proto__ = {};
// ---- cell ----
Object.setPrototypeOf(Object.prototype, {});
// ---- cell ----
const big = 10n;
Math.sqrt(big);
// ---- cell ----
const big = 10n;
+big;
// ---- cell ----
const big = 10n;
big * 1.5;
