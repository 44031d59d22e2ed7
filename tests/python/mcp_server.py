"""An MCP server on the official Python SDK (FastMCP, Streamable HTTP) for
the gateway tests: a calendar's list_events, a weather_forecast, a
get_event that fails for an unknown id, and a slow_report that logs a
message a second before its result.

Run as `python mcp_server.py [PORT] [--json-response]`: prints `port N`
once the socket is bound, serves the endpoint at `/mcp` (server-sent events
by default, plain JSON answers with `--json-response`), and exits when its
standard input closes (so it never outlives the test process).
"""

import asyncio
import os
import socket
import sys
import threading
from typing import Any

import uvicorn
from mcp.server.fastmcp import Context, FastMCP

JSON_RESPONSE = "--json-response" in sys.argv

mcp = FastMCP("calendar", json_response=JSON_RESPONSE, log_level="CRITICAL")

ROOMS = ["Room 1", "Room 2", None, "Lisbon office"]
TITLES = ["Standup", "Design review", "1:1 with Ada", "Lunch", "Planning, Q3",
          "Customer call", "Retro"]


def event(day, i):
    hour = 8 + (i * 2) % 9
    return {
        "id": f"evt_2025060{day}_{i}",
        "title": TITLES[(day + i) % len(TITLES)],
        "start": f"2025-06-0{day}T{hour:02}:00:00Z",
        "end": f"2025-06-0{day}T{hour:02}:45:00Z",
        "location": ROOMS[(day * 3 + i) % len(ROOMS)],
        "attendees": ["ada@example.com", "grace@example.com"][: 1 + (i % 2)],
        "status": "confirmed" if i % 4 else "tentative",
    }


@mcp.tool()
def list_events(date: str, days: int = 1) -> dict[str, Any]:
    """The events from `date` on, for `days` days."""
    first = int(date[-1])
    events = [event(day, i) for day in range(first, min(first + days, 10))
              for i in range(1, 5)]
    return {"events": events,
            "meta": {"from": date, "days": days, "timezone": "UTC"}}


@mcp.tool()
def weather_forecast(city: str, days: int = 7) -> dict[str, Any]:
    """A daily forecast."""
    return {
        "city": city,
        "units": "metric",
        "daily": [{"date": f"2025-06-{day:02}", "high": 20 + day % 5,
                   "low": 12.5 + day % 3, "precipitation_mm": (day * 7) % 5,
                   "summary": "sunny" if day % 3 else "light rain"}
                  for day in range(2, 2 + days)],
    }


@mcp.tool()
def get_event(id: str) -> dict[str, Any]:
    """One event; fails for an unknown id."""
    if not id.startswith("evt_2025060"):
        raise ValueError(f"no event {id}")
    return event(int(id[11]), int(id.rsplit("_", 1)[1]))


@mcp.tool()
async def slow_report(ctx: Context) -> dict[str, Any]:
    """Logs a message, then answers a second later."""
    await ctx.info("working on it")
    await asyncio.sleep(1)
    return {"rows": [{"id": i, "value": i * i} for i in range(1, 6)]}


def watch_stdin():
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    port = int(args[0]) if args else 0
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    threading.Thread(target=watch_stdin, daemon=True).start()
    print(f"port {sock.getsockname()[1]}", flush=True)
    # What `mcp.run(transport="streamable-http")` serves, on this socket.
    config = uvicorn.Config(mcp.streamable_http_app(), log_level="critical",
                            timeout_graceful_shutdown=1)
    uvicorn.Server(config).run(sockets=[sock])
