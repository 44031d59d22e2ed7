"""The official MCP Python SDK as a client over stdio: starts COMMAND
(the server, or `terse mcp ... -- server`), initializes, lists the tools,
calls each case and prints one JSON document:
`{"instructions", "tools": [tool, ...], "calls": [{"tool", "arguments",
"result", "progress"}]}`, tools and results as the SDK parsed them (a
JSON-RPC error as `"error": {"code", "message"}` instead of `"result"`).

Run as `python mcp_stdio_client.py CALLS COMMAND [ARGS...]`: CALLS is a
JSON list of `[tool, arguments]`. The client answers sampling requests
with a fixed message.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError
from mcp.types import CreateMessageResult, TextContent


async def sampling(context, params):
    asked = params.messages[0].content.text
    return CreateMessageResult(role="assistant", model="test-model",
                               content=TextContent(type="text", text=f"short: {asked}"))


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main(calls, command):
    server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, sampling_callback=sampling) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            results = []
            for name, arguments in calls:
                progress = []

                async def on_progress(done, total, message, progress=progress):
                    progress.append([done, total, message])
                try:
                    result = await session.call_tool(name, arguments, progress_callback=on_progress)
                except McpError as error:
                    results.append({"tool": name, "arguments": arguments, "progress": progress,
                                    "error": {"code": error.error.code, "message": error.error.message}})
                    continue
                results.append({"tool": name, "arguments": arguments,
                                "result": dump(result), "progress": progress})
    print(json.dumps({
        "instructions": init.instructions,
        "tools": [dump(tool) for tool in tools.tools],
        "calls": results,
    }))


asyncio.run(main(json.loads(sys.argv[1]), sys.argv[2:]))
