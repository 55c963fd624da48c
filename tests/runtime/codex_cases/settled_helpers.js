// oracle: {"description": "as_settled / stream_settled: inputs (arrays, Maps keyed by their keys, any iterable, values that are not promises), settlement order and batching, the async generator returned, closing it, errors"}
const later = (value, ms, fail) => new Promise((resolve, reject) => setTimeout(() => (fail ? reject : resolve)(value), ms));
const collect = async (iterable) => { const out = []; for await (const r of iterable) out.push(JSON.stringify(r)); return out.join(" "); };
text(await collect(as_settled([later("slow", 40), Promise.reject("bad"), "now", later("mid", 15)])));
text(await collect(as_settled(new Map([["a", later(1, 20)], [{k: 1}, Promise.reject("no")], [3, 3]]))));
text(await collect(as_settled(new Set([Promise.resolve("s")]))));
text(await collect(as_settled("ab")));
text(await collect(as_settled((function* () { yield later("g", 5); yield "h"; })())));
text(await collect(as_settled([{ then(resolve) { resolve("thenable"); } }])));
text(await collect(as_settled([])));
const it = as_settled([later(1, 10), later(2, 20), later(3, 30)]);
text(Object.prototype.toString.call(it) + " " + ["next", "return", "throw"].map((k) => typeof it[k]).join(",") + " " + (it[Symbol.asyncIterator]() === it));
text(JSON.stringify(await it.next()));
text(JSON.stringify(await it.return("early")));
text(JSON.stringify(await it.next()));
for await (const r of as_settled([later("first", 5), later("second", 10)])) { text("break after " + JSON.stringify(r)); break; }
const batch = as_settled([Promise.resolve(1), Promise.resolve(2)]);
await new Promise((r) => setTimeout(r, 5));
text(JSON.stringify([await batch.next(), await batch.next(), await batch.next()]));
for (const bad of [5, undefined, null, {}]) {
  try { as_settled(bad); text("accepted " + String(bad)); } catch (e) { text(typeof e + " " + e.constructor.name + ": " + e.message); }
}
try { as_settled((function* () { yield 1; throw new Error("input broke"); })()); } catch (e) { text("input: " + e.message); }
const seen = [];
await stream_settled([later("a", 20), later("b", 5), "c"], async (r) => { await later(null, 10); seen.push(r.index + ":" + (r.value ?? r.reason)); });
text(seen.join(" "));
for (const cb of [undefined, "x"]) {
  try { await stream_settled([1], cb); } catch (e) { text(typeof e + " " + e.constructor.name + ": " + e.message); }
}
try { await stream_settled([1, 2], (r) => { if (r.index === 0) throw "stop at " + r.index; }); } catch (e) { text("callback threw " + e); }
try { await stream_settled([1], () => Promise.reject("rejected callback")); } catch (e) { text("callback rejected " + e); }
text(typeof stream_settled([1], () => {}).then);
// ---- cell ----
text("uncaught next");
await stream_settled([Promise.reject(new Error("fine"))], (r) => { text(r.status + " " + r.reason.message); throw new Error("callback failed"); });
