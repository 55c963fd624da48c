// oracle: {"yield_time_ms": 200, "terminate_after_ms": 600, "description": "the cell's promise settles but the promise jobs after it never end: the cell yields, is terminated, and the session goes on"}
Promise.resolve().then(function again() { return Promise.resolve().then(again); });
text("end");
// ---- cell ----
text("alive");
