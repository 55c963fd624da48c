// An MCP stdio server on the official TypeScript SDK (from .npm-tools; run with NODE_PATH set to
// its node_modules). Its one tool, cut({text, length}), returns the first `length` UTF-16 code
// units of `text`: cutting an emoji in half leaves a lone surrogate, which the SDK's
// JSON.stringify writes as its escape ("\ud83d") - the line pydantic's JSON parser rejects.
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { z } = require("zod");

const server = new McpServer({ name: "cm-node-cut", version: "1.0.0" });
server.registerTool(
  "cut",
  {
    description: "The first `length` UTF-16 code units of `text`.",
    inputSchema: { text: z.string(), length: z.number().int() },
  },
  async ({ text, length }) => ({ content: [{ type: "text", text: text.slice(0, length) }] }),
);
server.connect(new StdioServerTransport());
