// oracle: {"tools": ["echo", "sleep"], "settle_ms": 300, "description": "promise jobs queued in the microtask checkpoint where the cell's promise settles still run and count; a tool call still in flight is cancelled and its callback never runs"}
Promise.resolve().then(() => 0).then(() => text("late job"));
Promise.resolve().then(() => 0).then(() => 0).then(() => 0).then(() => store("late", 1));
Promise.resolve().then(() => 0).then(() => 0).then(() => tools.sleep({ms: 5000, from: "late job"}));
tools.sleep({ms: 5000}).then(() => text("sleep answered (never)"));
text("end");
// ---- cell ----
text(String(load("late")));
const p = tools.echo({awaited: true});
await p;
p.then(() => 0).then(() => text("late job after a tool"));
text("end 2");
// ---- cell ----
await new Promise((resolve) => setTimeout(resolve, 10));
Promise.resolve().then(() => 0).then(() => text("late job after a timer"));
throw new Error("failed after a timer");
