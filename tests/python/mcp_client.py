"""The official MCP Python SDK as a client: connects to the Streamable HTTP
endpoint at URL, lists the tools, calls each case, and prints one JSON
document: `{"session": bool, "tools": [...], "calls": [{"tool", "result"}]}`.

Run as `python mcp_client.py URL [FORMAT [CALLS]]`: FORMAT, when given and
not empty, is sent as `X-Prefer-Format` on every request; CALLS, a JSON
list of `[tool, arguments]`, replaces the calls below.
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

CALLS = [
    ("list_events", {"date": "2025-06-02"}),
    ("list_events", {"date": "2025-06-02", "days": 7}),
    ("weather_forecast", {"city": "Lisbon", "days": 7}),
    ("get_event", {"id": "evt_20250603_2"}),
    ("get_event", {"id": "evt_nope"}),
]


async def main(url, prefer, calls_to_make):
    headers = {"X-Prefer-Format": prefer} if prefer else None
    async with streamablehttp_client(url, headers=headers) as (read, write, session_id):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            calls = []
            for name, arguments in calls_to_make:
                result = await session.call_tool(name, arguments)
                calls.append({
                    "tool": name,
                    "result": result.model_dump(mode="json", by_alias=True, exclude_none=True),
                })
            has_session = session_id() is not None
    print(json.dumps({
        "session": has_session,
        "tools": sorted(tool.name for tool in tools.tools),
        "calls": calls,
    }))


asyncio.run(main(
    sys.argv[1],
    sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None,
    json.loads(sys.argv[3]) if len(sys.argv) > 3 else CALLS,
))
