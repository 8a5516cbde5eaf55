"""A raw JSON-RPC MCP server over stdio that misbehaves on request, for the gateway tests.

Run as ``python tests/_attacker.py SPEC`` where SPEC is a JSON object:

* ``label``: a text every answer starts with (which server answered);
* ``tools``: the tool definitions it lists (default: one ``echo`` tool);
* ``huge``: also list a tool ``huge`` with a description this many characters long;
* ``pages``: list its tools forever, this many a page, each page pointing to the next;
* ``hang_initialize``: never answer ``initialize``;
* ``exit_after_initialize``: exit right after answering ``initialize``;
* ``grandchild``: start a ``sleep`` process in its process group first;
* ``prompts``/``resources``: offer one prompt ``greet``, and one resource
  ``file:///readme.txt`` and one template ``notes://{name}``.

A tool's behaviour comes from its name: ``error*`` answers a JSON-RPC error, ``slow*`` answers
after 1.5 s, ``freeze*`` stops reading and answering anything, ``flood*`` writes one endless
line, ``storm*`` sends 300 ``tools/list_changed`` first; any other echoes its name.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

SPEC = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
LABEL = SPEC.get("label", "attacker")
TOOLS = SPEC.get("tools") or [{"name": "echo", "inputSchema": {"type": "object"}}]
if SPEC.get("huge"):  # a tool whose description is this long (too long for the command line)
    TOOLS.append(
        {"name": "huge", "description": "x" * SPEC["huge"], "inputSchema": {"type": "object"}}
    )
OUT = sys.stdout.buffer
LOCK = threading.Lock()


def send(message: dict) -> None:
    with LOCK:
        OUT.write(json.dumps(message).encode() + b"\n")
        OUT.flush()


def answer(rid, result) -> None:
    send({"jsonrpc": "2.0", "id": rid, "result": result})


def text(value: str) -> dict:
    return {"content": [{"type": "text", "text": f"{LABEL}:{value}"}], "isError": False}


def call(rid, params: dict) -> None:
    name = params.get("name", "")
    if name.startswith("error"):
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "bad input"}})
    elif name.startswith("slow"):
        threading.Thread(target=lambda: (time.sleep(1.5), answer(rid, text(name)))).start()
    elif name.startswith("freeze"):
        time.sleep(3600)
    elif name.startswith("flood"):
        chunk = b"x" * 65536
        with LOCK:
            while True:
                OUT.write(chunk)
                OUT.flush()
    elif name.startswith("storm"):
        for _ in range(300):
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        answer(rid, text(name))
    else:
        answer(rid, text(name))


def list_tools(rid, params: dict) -> None:
    pages = SPEC.get("pages")
    if not pages:
        answer(rid, {"tools": TOOLS})
        return
    page = int((params or {}).get("cursor") or 0)
    tools = [
        {"name": f"t{page}_{i}", "description": "x" * 200, "inputSchema": {"type": "object"}}
        for i in range(pages)
    ]
    answer(rid, {"tools": tools, "nextCursor": str(page + 1)})


def main() -> None:
    if SPEC.get("grandchild"):
        subprocess.Popen(["sleep", "120"])
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        message = json.loads(raw)
        method, rid = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if method == "initialize":
            if SPEC.get("hang_initialize"):
                time.sleep(3600)
            capabilities: dict = {"tools": {"listChanged": True}}
            if SPEC.get("prompts"):
                capabilities["prompts"] = {"listChanged": True}
            if SPEC.get("resources"):
                capabilities["resources"] = {"listChanged": True}
            answer(
                rid,
                {
                    "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                    "capabilities": capabilities,
                    "serverInfo": {"name": LABEL, "version": "1"},
                },
            )
            if SPEC.get("exit_after_initialize"):
                sys.exit(0)
        elif method == "tools/list":
            list_tools(rid, params)
        elif method == "tools/call":
            call(rid, params)
        elif method == "ping":
            answer(rid, {})
        elif method == "prompts/list":
            prompt = {"name": "greet", "description": "Greet someone", "arguments": []}
            answer(rid, {"prompts": [prompt]})
        elif method == "prompts/get":
            said = {"type": "text", "text": f"{LABEL}:hello"}
            answer(rid, {"messages": [{"role": "user", "content": said}]})
        elif method == "resources/list":
            resource = {"uri": "file:///readme.txt", "name": "readme", "mimeType": "text/plain"}
            answer(rid, {"resources": [resource]})
        elif method == "resources/templates/list":
            template = {"uriTemplate": "notes://{name}", "name": "note"}
            answer(rid, {"resourceTemplates": [template]})
        elif method == "resources/read":
            uri = params.get("uri")
            contents = [{"uri": uri, "text": f"{LABEL}:read:{uri}"}]
            answer(rid, {"contents": contents})
        elif rid is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}})


if __name__ == "__main__":
    main()
