#!/usr/bin/env python3
# A small MCP stdio server written as a project would keep one (`python3 tools/server.py`),
# for the tests of project-defined servers: plain Python, no packages.
# Tools: `version` answers VERSION (edit it to change the file), `write` writes `text` to
# `path` and says whether the operating system let it (the sandbox is what refuses).
import json
import sys

VERSION = "1"

TOOLS = [
    {"name": "version", "description": "The script's version.",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "write", "description": "Writes a file.",
     "inputSchema": {"type": "object",
                     "properties": {"path": {"type": "string"}, "text": {"type": "string"}}}},
]


def send(message):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def call(name, arguments):
    if name == "version":
        return VERSION, False
    if name == "write":
        try:
            with open(arguments["path"], "w") as file:
                file.write(arguments.get("text", ""))
            return "written", False
        except OSError as error:
            return f"refused: {error.strerror}", True
    return f"no tool {name}", True


for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    method = request.get("method")
    if method == "initialize":
        send({"id": request["id"], "result": {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "project-server", "version": VERSION}}})
    elif method == "tools/list":
        send({"id": request["id"], "result": {"tools": TOOLS}})
    elif method == "tools/call":
        text, failed = call(request["params"]["name"], request["params"].get("arguments") or {})
        send({"id": request["id"],
              "result": {"content": [{"type": "text", "text": text}], "isError": failed}})
    elif method == "ping":
        send({"id": request["id"], "result": {}})
    else:
        send({"id": request["id"], "error": {"code": -32601, "message": "method not found"}})
