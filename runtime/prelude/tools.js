// Tools: the tools object, ALL_TOOLS and settling tool calls.

// ---- tools (spec §1.8, oracle tool_* cases) -------------------------------------

const pendingCalls = new Map();

function __cm_tool(index) {
  let input = "null";
  if (arguments.length > 1 && arguments[1] !== undefined) {
    const json = __cm_stringify_json(arguments[1]);
    if (json !== undefined) input = json;
  }
  const id = __cm_call("tool", '{"index":' + index + ',"input":' + input + "}");
  return new Promise(function __cm_pending(resolve, reject) {
    pendingCalls.set(id, { resolve, reject });
  });
}

function __cm_settle(payload) {
  const { id, ok, value } = JSON.parse(payload);
  const call = pendingCalls.get(id);
  if (call === undefined) return;
  pendingCalls.delete(id);
  if (ok) call.resolve(value);
  else call.reject(value);
}

const toolsObject = {};
const allTools = [];
__cm_config.tools.forEach(function __cm_add_tool(tool, index) {
  const fn = Function.prototype.bind.call(__cm_tool, undefined, index);
  Object.defineProperty(fn, "name", { value: "" });
  Object.defineProperty(fn, "length", { value: 0 });
  toolsObject[tool.name] = fn;
  allTools.push({ name: tool.name, description: tool.description });
});
