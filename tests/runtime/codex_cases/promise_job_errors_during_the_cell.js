// oracle: {"tools": ["echo", "sleep"], "yield_time_ms": 5000, "settle_ms": 300, "description": "a promise rejected and never handled, or an error thrown in a promise job, while the cell still runs is dropped; an error thrown by a timer callback fails the cell (the first one thrown, even after the callback settled the cell's promise), and the promise jobs of that callback's checkpoint still run"}
Promise.reject(new Error("rejected during the cell"));
tools.echo({then: "throws"}).then(() => { throw new Error("thrown in a tool's callback"); });
await tools.echo({awaited: "after a rejection"});
await new Promise((resolve) => setTimeout(resolve, 30));
text("after the rejections");
// ---- cell ----
const p = Promise.reject(new Error("handled later"));
await new Promise((resolve) => setTimeout(resolve, 20));
p.catch((e) => text("caught " + e.message));
text("handled after a timer");
// ---- cell ----
setTimeout(() => { text("timer ran"); throw new Error("thrown in a timer callback"); }, 10);
await new Promise((resolve) => setTimeout(resolve, 60));
text("never after the timer");
// ---- cell ----
await new Promise((resolve) => setTimeout(() => { resolve(); text("resolved in the timer"); throw new Error("thrown after resolving"); }, 10));
text("after the timer that resolved");
Promise.resolve().then(() => text("a late job after it"));
// ---- cell ----
await new Promise((resolve, reject) => setTimeout(() => { reject(new Error("the cell's rejection")); throw new Error("the timer's throw"); }, 10));
// ---- cell ----
setTimeout(() => { Promise.resolve().then(() => tools.sleep({ms: 5000, from: "a job after a timer's throw"})).then(() => text("never answered")); text("before the timer's throw"); throw new Error("timer throws"); }, 10);
await new Promise((resolve) => setTimeout(resolve, 100));
// ---- cell ----
setTimeout(() => { throw new Error("first timer"); }, 10);
setTimeout(() => { text("second timer ran (never)"); throw new Error("second timer"); }, 10);
await new Promise((resolve) => setTimeout(resolve, 100));
// ---- cell ----
text("the next cell runs");
