// Setup: the bridge and configuration handed in by the cell thread, globals Codex's host
// does not have, and the exit sentinel.

const __cm_host = globalThis.__codemode_host;
const __cm_config = JSON.parse(globalThis.__codemode_config);
delete globalThis.__codemode_host;
delete globalThis.__codemode_config;

// Globals that Codex's host removes or never had (oracle: globals_console_absent).
for (const name of ["console", "Atomics", "SharedArrayBuffer", "WebAssembly", "queueMicrotask",
  "structuredClone", "setInterval", "atob", "btoa", "performance", "print", "navigator",
  "DOMException", "TextEncoder", "TextDecoder", "URL", "fetch", "process"]) {
  delete globalThis[name];
}

const EXIT_SENTINEL = "__codex_code_mode_exit__";
