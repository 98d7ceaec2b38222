"""A real MCP client for loki's server: the official Python SDK (PyPI `mcp`), driven by steps.

Usage:
    client.py stdio LOKI CWD STEPS_JSON    # launches `LOKI mcp` in CWD with this environment
    client.py http URL STEPS_JSON          # connects to a running `loki mcp --http`

STEPS_JSON is a list of steps; the script prints {"results": [...]}, one entry per step, each
the SDK's own parsed result dumped with the wire's field names (`inputSchema`, `isError`,
`structuredContent`), or {"protocol_error": "..."} when the server answered with a JSON-RPC error.

Steps:
    {"op": "initialize"} (the handshake of protocol versions up to 2025-11-25)
    {"op": "discover"} (2026-07-28: no handshake, every request carries the version)
    {"op": "list_tools"} | {"op": "list_resources"}
    {"op": "list_resource_templates"}
    {"op": "call", "name": TOOL, "arguments": {...}}
    {"op": "read_resource", "uri": URI}
    {"op": "read_resource", "run_from": I, "suffix": "/receipt"}   # the run id of step I's answer
    {"op": "follow", "repo": REPO, "run_from": I, "timeout": S}    # loki_status until done

In a call's arguments, a string "$I.FIELD" is replaced by FIELD of step I's structuredContent
(`"$1.run_id"`: the run a loki_run at step 1 started).
"""

import asyncio
import json
import os
import sys
import time

from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

# Between two loki_status calls while following a run.
POLL_SECONDS = 0.5


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def run_id_of(results, index):
    return results[index]["structuredContent"]["run_id"]


async def follow(session, step, results):
    deadline = time.monotonic() + step.get("timeout", 300)
    args = {"repo": step["repo"], "run": run_id_of(results, step["run_from"])}
    seen = []
    while True:
        answer = dump(await session.call_tool("loki_status", args))
        if answer.get("isError"):
            return answer
        status = answer["structuredContent"]
        if not seen or seen[-1] != (status.get("status"), status.get("stage")):
            seen.append((status.get("status"), status.get("stage")))
        if status.get("done"):
            answer["polled_states"] = seen
            return answer
        if time.monotonic() > deadline:
            return {"timeout": True, "last": answer, "polled_states": seen}
        await asyncio.sleep(POLL_SECONDS)


def substitute(arguments, results):
    out = {}
    for key, value in arguments.items():
        if isinstance(value, str) and value.startswith("$") and "." in value:
            index, field = value[1:].split(".", 1)
            value = results[int(index)]["structuredContent"][field]
        out[key] = value
    return out


async def one(session, step, results):
    op = step["op"]
    if op == "initialize":
        return dump(await session.initialize())
    if op == "discover":
        return dump(await session.discover())
    if op == "list_tools":
        return dump(await session.list_tools())
    if op == "list_resources":
        return dump(await session.list_resources())
    if op == "list_resource_templates":
        return dump(await session.list_resource_templates())
    if op == "call":
        arguments = substitute(step.get("arguments", {}), results)
        return dump(await session.call_tool(step["name"], arguments))
    if op == "read_resource":
        uri = step.get("uri") or "loki://runs/" + run_id_of(results, step["run_from"]) + step.get("suffix", "")
        return dump(await session.read_resource(uri))
    if op == "follow":
        return await follow(session, step, results)
    raise ValueError("unknown step " + op)


async def drive(read, write, steps):
    results = []
    async with ClientSession(read, write) as session:
        for step in steps:
            try:
                results.append(await one(session, step, results))
            except MCPError as e:
                results.append({"protocol_error": str(e)})
    return results


async def main(argv):
    mode = argv[1]
    if mode == "stdio":
        loki, cwd, steps = argv[2], argv[3], json.loads(argv[4])
        # loki gets this environment but for the SDK's own path: the builds it starts run pytest.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        params = StdioServerParameters(command=loki, args=["mcp"], env=env, cwd=cwd)
        async with stdio_client(params) as (read, write):
            results = await drive(read, write, steps)
    elif mode == "http":
        url, steps = argv[2], json.loads(argv[3])
        async with streamable_http_client(url) as streams:
            results = await drive(streams[0], streams[1], steps)
    else:
        raise SystemExit("usage: client.py stdio LOKI CWD STEPS | http URL STEPS")
    print(json.dumps({"results": results}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv))
