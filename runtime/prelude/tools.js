// Tools: the tools object, ALL_TOOLS and settling tool calls.

const __cm_pending_calls = __cm_record();

// A tool call: the argument is serialised like Codex's host does (undefined is sent as
// null; a value JSON cannot represent, or one holding a lone surrogate, throws). `via`: the
// ended cell whose helper made the call (the notebook realm's, realm_install.js), else undefined.
function __cm_tool(index, value, via) {
  let input = "null";
  if (value !== undefined) {
    input = __cm_stringify_json(value);
    if (input === undefined) throw "failed to serialize JavaScript value: expected value at line 1 column 1";
  }
  const id = __cm_call("tool", index + ":" + input);
  return new __cm_Promise(function __cm_pending(resolve, reject) {
    const call = __cm_record();
    call.resolve = resolve;
    call.reject = reject;
    call.index = index;
    call.via = via;
    __cm_pending_calls[id] = call;
  });
}

// Settle tool call `id`: fulfil with `value` when `ok`, else reject with it (a string).
function __cm_settle(id, ok, value) {
  const call = __cm_pending_calls[id];
  if (call === undefined) return;
  delete __cm_pending_calls[id];
  if (ok) call.resolve(value);
  else call.reject(value);
}

const toolsObject = {};
const allTools = [];
for (let index = 0; index < __cm_config.tools.length; index++) {
  const tool = __cm_config.tools[index];
  toolsObject[tool.name] = __cm_shape(__cm_bind(__cm_tool, undefined, index), "", 0, __cm_tool);
  allTools[allTools.length] = { name: tool.name, description: tool.description };
}
