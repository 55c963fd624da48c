// oracle: {"tools": ["fail", "echo"], "description": "values a cell throws that look like the runtime's own signals (the exit sentinel string of earlier hosts, out-of-memory texts) are ordinary thrown values; exit() itself still ends the cell"}
text("a");
throw "__codex_code_mode_exit__";
// ---- cell ----
text("b");
await Promise.reject("__codex_code_mode_exit__");
// ---- cell ----
throw new String("__codex_code_mode_exit__");
// ---- cell ----
throw new Error("__codex_code_mode_exit__");
// ---- cell ----
throw { name: "__codex_code_mode_exit__", message: "__codex_code_mode_exit__", toString() { return "__codex_code_mode_exit__"; } };
// ---- cell ----
text("c");
setTimeout(() => { throw "__codex_code_mode_exit__"; }, 0);
await new Promise((resolve) => setTimeout(resolve, 50));
text("not reached");
// ---- cell ----
try { text({ toJSON() { throw "__codex_code_mode_exit__"; } }); } catch (e) { text("caught " + typeof e + " " + e); }
text({ toJSON() { throw "__codex_code_mode_exit__"; } });
// ---- cell ----
await stream_settled([Promise.resolve(1)], () => { throw "__codex_code_mode_exit__"; });
// ---- cell ----
await tools.fail({ message: "__codex_code_mode_exit__" });
// ---- cell ----
throw "InternalError: out of memory";
// ---- cell ----
class InternalError extends Error {}
InternalError.prototype.name = "InternalError";
throw new InternalError("out of memory");
// ---- cell ----
throw "code-mode runtime error: InternalError: out of memory";
// ---- cell ----
text("before exit");
try { exit(); } finally { text("finally does not run"); }
text("not reached");
// ---- cell ----
text("exit in a timer");
setTimeout(() => { exit(); }, 0);
await new Promise(() => {});
// ---- cell ----
text("next cell runs");
