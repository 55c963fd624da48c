// oracle: {"tools": ["echo", "sleep"], "yield_time_ms": 5000, "settle_ms": 300, "description": "an error thrown, or a promise rejected and never handled, in a promise job of the microtask checkpoint where the cell's promise settles is dropped: the cell's outcome stays what its promise said, and the output and calls of the jobs before and after the throw still count; exit() in such a job stops the jobs after it"}
Promise.resolve().then(() => { throw new Error("late"); });
Promise.resolve().then(() => 0).then(() => store("x", "stored by a job after the throw,"));
text("done");
// ---- cell ----
await tools.echo({awaited: true});
Promise.resolve().then(() => 0).then(() => { throw new Error("late after a tool"); });
text("done after a tool");
// ---- cell ----
await new Promise((resolve) => setTimeout(resolve, 10));
Promise.resolve().then(() => { throw new Error("late after a timer"); });
text("done after a timer");
// ---- cell ----
await new Promise((resolve) => setTimeout(() => { resolve(); Promise.resolve().then(() => { throw new Error("late in the timer's checkpoint"); }); }, 10));
text("resolved by a timer");
// ---- cell ----
queueMicrotask(() => { throw new Error("queueMicrotask is absent"); });
text("never");
// ---- cell ----
text("done before a rejection");
Promise.reject(new Error("rejected at the end"));
// ---- cell ----
Promise.reject(new Error("rejected, the only statement"));
// ---- cell ----
Promise.resolve().then(() => { throw new Error("late and caught"); }).catch((e) => text("caught " + e.message));
Promise.resolve().then(() => { text("before a thrown string"); throw "a string"; });
Promise.resolve().then(() => 0).then(() => 0).then(() => text("a job after the throws"));
text("done, jobs after");
// ---- cell ----
Promise.resolve().then(() => { tools.sleep({ms: 5000, from: "a job that throws"}); notify("notified by a job that throws"); throw new Error("late"); });
text("done, a call and a notification before the throw");
// ---- cell ----
Promise.resolve().then(() => 0).then(() => { throw new Error("late after the cell's own error"); });
throw new Error("the cell's own error");
// ---- cell ---- {"yield_time_ms": 50, "wait_until_done": true, "wait_yield_ms": 2000}
yield_control();
await new Promise((resolve) => setTimeout(resolve, 200));
Promise.resolve().then(() => { throw new Error("late after a yield"); });
text("done after a yield");
// ---- cell ----
Promise.resolve().then(() => { exit(); });
Promise.resolve().then(() => 0).then(() => text("after a late exit (never)"));
text("done before a late exit");
// ---- cell ----
text(String(load("x")) + " the next cell runs");
