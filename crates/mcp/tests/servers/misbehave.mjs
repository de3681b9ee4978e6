#!/usr/bin/env node
// A deliberately misbehaving MCP server for the agentctl-mcp tests (plain Node, no packages).
// Tools: `echo` answers, `crash` makes the process exit mid-call, `hang` never answers.
// With MISBEHAVE_GRANDCHILD_PID=<file>, it starts a long `sleep` grandchild and writes its pid
// there, so tests can check that the whole process group is stopped.
// Flags: `--fail-start` exits at once; `--banner` prints `Starting server...` on stdout before
// the protocol; `--glued-banner` prints it without a newline, so it sticks to the first
// answer; `--log-on-call` prints a log line on stdout before answering a tool call;
// `--silent` reads requests and never answers any, not even `initialize`.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

if (process.env.MISBEHAVE_GRANDCHILD_PID) {
  const child = spawn("sleep", ["300"], { stdio: "ignore" });
  writeFileSync(process.env.MISBEHAVE_GRANDCHILD_PID, String(child.pid));
}
if (process.argv.includes("--fail-start")) {
  process.stderr.write("misbehave: cannot open database\n");
  process.exit(2);
}

const flag = (name) => process.argv.includes(name);
if (flag("--banner")) process.stdout.write("Starting server...\n");
if (flag("--glued-banner")) process.stdout.write("Starting server...");

const tools = ["echo", "crash", "hang"].map((name) => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: "object", properties: { message: { type: "string" } } },
}));
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");

createInterface({ input: process.stdin }).on("line", (line) => {
  const request = JSON.parse(line);
  if (request.id === undefined) return; // notifications
  if (flag("--silent")) return;
  switch (request.method) {
    case "initialize":
      return send({
        id: request.id,
        result: {
          protocolVersion: request.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "misbehave", version: "1.0.0" },
        },
      });
    case "tools/list":
      return send({ id: request.id, result: { tools } });
    case "tools/call": {
      const name = request.params.name;
      if (name === "crash") {
        process.stderr.write("misbehave: segfault in crash tool\n");
        process.exit(3);
      }
      if (name === "hang") return;
      if (flag("--log-on-call")) process.stdout.write(`handling ${name}\n`);
      const text = `echo: ${request.params.arguments?.message ?? ""}`;
      return send({ id: request.id, result: { content: [{ type: "text", text }] } });
    }
    case "ping":
      return send({ id: request.id, result: {} });
    default:
      return send({ id: request.id, error: { code: -32601, message: "method not found" } });
  }
});
