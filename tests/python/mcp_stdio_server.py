"""An MCP server on the official Python SDK (FastMCP) over stdio, for the
`terse mcp` tests: a list in an object (list_events, with a compact
template in the tests), a root array as text (list_users), an object
(get_user), plain text (greet), an error (fail), a typed result with
structuredContent (forecast), progress notifications (count), a sampling
request to the client (summarize), a tool with a `format` argument of its
own (convert), and echo, which answers the arguments it got.

Run as `python mcp_stdio_server.py`. With TERSE_TEST_LOG set, every line
the server reads is appended to that file first, so a test can see what
the server got (the `format` argument must never reach it).
"""

import asyncio
import json
import os
import sys
import threading
from typing import Any

from pydantic import BaseModel
from mcp.server.fastmcp import Context, FastMCP
from mcp.types import SamplingMessage, TextContent

# The calendar's events, as the HTTP server of the gateway tests makes them.
from mcp_server import event


def tee_stdin(log):
    """Puts a pipe on fd 0 and copies every line of the real stdin to it
    and to `log`."""
    real = os.fdopen(os.dup(0), "rb", buffering=0)
    read, write = os.pipe()
    os.dup2(read, 0)
    os.close(read)

    def copy():
        with open(log, "ab") as out, os.fdopen(write, "wb", buffering=0) as pipe:
            for line in real:
                out.write(line)
                out.flush()
                pipe.write(line)
    threading.Thread(target=copy, daemon=True).start()


if os.environ.get("TERSE_TEST_LOG"):
    tee_stdin(os.environ["TERSE_TEST_LOG"])

mcp = FastMCP("calendar", log_level="CRITICAL")

USERS = [{"id": i, "name": name, "role": role, "active": i % 3 != 0}
         for i, (name, role) in enumerate(
             [("Ada", "admin"), ("Linus", "member"), ("Grace", "member"),
              ("Barbara", "owner"), ("Ken", "member"), ("Margaret", "member"),
              ("Dennis", "member"), ("Frances", "admin")], start=1)]


@mcp.tool()
def list_events(date: str, days: int = 1) -> dict[str, Any]:
    """The events from `date` on, for `days` days."""
    first = int(date[-1])
    events = [event(day, i) for day in range(first, min(first + days, 10))
              for i in range(1, 5)]
    return {"events": events, "meta": {"from": date, "days": days}}


@mcp.tool()
def list_users() -> str:
    """Every user, as a JSON array."""
    return json.dumps(USERS)


@mcp.tool()
def get_user(id: int) -> str:
    """One user, as a JSON object."""
    return json.dumps({"user": USERS[(id - 1) % len(USERS)],
                       "groups": ["staff", "oncall"], "quota": {"used": 12.5, "max": 50}})


@mcp.tool()
def greet(name: str) -> str:
    """Plain text."""
    return f"Hello, {name}! Nothing here is JSON."


@mcp.tool()
def fail(reason: str) -> str:
    """Always fails."""
    raise ValueError(f"failed on purpose: {reason}")


class Day(BaseModel):
    date: str
    high: int
    low: float
    summary: str


class Forecast(BaseModel):
    city: str
    daily: list[Day]


@mcp.tool()
def forecast(city: str, days: int = 5) -> Forecast:
    """A typed result: text and structuredContent."""
    return Forecast(city=city, daily=[
        Day(date=f"2025-06-{d:02}", high=20 + d % 5, low=12.5 + d % 3,
            summary="sunny" if d % 3 else "light rain")
        for d in range(2, 2 + days)])


@mcp.tool()
async def count(steps: int, ctx: Context) -> str:
    """Reports progress, then answers a list."""
    for step in range(steps):
        await ctx.report_progress(step + 1, steps, f"step {step + 1}")
        await asyncio.sleep(0.01)
    return json.dumps([{"step": s, "square": s * s} for s in range(1, steps + 1)])


@mcp.tool()
async def summarize(topic: str, ctx: Context) -> str:
    """Asks the client's model (sampling), answers what it said."""
    reply = await ctx.session.create_message(
        messages=[SamplingMessage(role="user",
                                  content=TextContent(type="text", text=f"Summarize {topic}"))],
        max_tokens=50)
    text = reply.content.text if isinstance(reply.content, TextContent) else "?"
    return json.dumps({"topic": topic, "summary": text, "model": reply.model})


@mcp.tool()
def convert(value: float, format: str) -> str:
    """A tool with a `format` argument of its own."""
    return f"{value:{format}}"


@mcp.tool()
def echo(text: str, times: int = 1) -> str:
    """Answers the arguments it got."""
    return json.dumps({"text": text, "times": times})


if __name__ == "__main__":
    mcp.run(transport="stdio")
