"""A FastAPI service for the gateway tests: lists, a detail, errors, an SSE
stream, a gzip answer, an echo, slow and stalling answers.

Run as `python upstream.py [PORT]`: prints `port N` once listening, and exits
when its standard input closes (so it never outlives the test process).
"""

import asyncio
import gzip
import hashlib
import json
import os
import socket
import sys
import threading

import uvicorn
from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel

app = FastAPI()

TASKS = [
    {"id": i, "title": f"Task {i}", "project": "apollo" if i % 2 else None,
     "due": f"2026-03-{i:02}T09:00:00Z", "done": i % 3 == 0,
     "notes": "Remember to check the quarterly numbers before the review."}
    for i in range(1, 21)
]

released = asyncio.Event()


@app.get("/api/tasks")
async def tasks(limit: int = 20, offset: int = 0):
    page = TASKS[offset:offset + limit]
    return {"data": page, "meta": {"total": len(TASKS), "limit": limit, "offset": offset}}


class NewTask(BaseModel):
    title: str
    project: str | None = None
    done: bool = False
    estimate: float | None = None
    due: str | None = None


def created(request: Request, data):
    return {"created": data, "content_type": request.headers.get("content-type"),
            "content_length": request.headers.get("content-length"),
            "transfer_encoding": request.headers.get("transfer-encoding")}


@app.post("/api/tasks", status_code=201)
async def create_task(task: NewTask, request: Request):
    # A typed body: FastAPI reads JSON only, anything else is a 422.
    return created(request, task.model_dump())


@app.post("/api/tasks/bulk", status_code=201)
async def create_tasks(tasks: list[NewTask], request: Request):
    return created(request, [task.model_dump() for task in tasks])


@app.get("/api/users/{user}/tasks")
async def user_tasks(user: str):
    return [dict(task, owner=user) for task in TASKS[:3]]


@app.get("/api/tasks/{task_id}")
async def task(task_id: int):
    for item in TASKS:
        if item["id"] == task_id:
            return item
    return JSONResponse({"detail": f"no task {task_id}"}, status_code=404)


@app.get("/api/boom")
async def boom():
    return JSONResponse({"error": "internal", "items": [{"id": 1}, {"id": 2}]}, status_code=500)


@app.get("/api/events")
async def events():
    async def stream():
        yield "data: first\n\n"
        try:
            await asyncio.wait_for(released.wait(), timeout=20)
        except asyncio.TimeoutError:
            pass
        released.clear()
        yield "data: second\n\n"
        yield "data: last\n\n"
    return StreamingResponse(stream(), media_type="text/event-stream")


@app.post("/api/events/release")
async def release():
    released.set()
    return {"released": True}


@app.get("/api/gzip")
async def gzipped():
    body = gzip.compress(json.dumps({"data": TASKS}).encode())
    return Response(body, media_type="application/json", headers={"Content-Encoding": "gzip"})


@app.api_route("/api/echo", methods=["GET", "POST", "PUT"])
async def echo(request: Request):
    digest = hashlib.sha256()
    length = 0
    async for chunk in request.stream():
        digest.update(chunk)
        length += len(chunk)
    return {"method": request.method, "path": request.url.path, "query": request.url.query,
            "length": length, "sha256": digest.hexdigest(),
            "headers": [[k, v] for k, v in request.headers.items()]}


@app.get("/api/hop")
async def hop():
    return JSONResponse({"id": 1}, headers={"Connection": "x-hop-secret", "X-Hop-Secret": "1",
                                            "Keep-Alive": "timeout=5", "Proxy-Thing": "1",
                                            "X-Kept": "1"})


@app.get("/api/slow")
async def slow(seconds: float = 3):
    await asyncio.sleep(seconds)
    return {"slept": seconds}


@app.get("/api/endless")
async def endless():
    async def stream():
        yield b'{"data":['
        while True:
            yield b'{"id":1,"title":"again and again and again"},' * 64
            await asyncio.sleep(0)
    return StreamingResponse(stream(), media_type="application/json")


@app.get("/api/stall")
async def stall():
    async def stream():
        yield b'{"data":[{"id":1},'
        await asyncio.sleep(3600)
        yield b"]}"
    return StreamingResponse(stream(), media_type="application/json")


def watch_stdin():
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    threading.Thread(target=watch_stdin, daemon=True).start()
    print(f"port {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="critical", timeout_graceful_shutdown=1)
    uvicorn.Server(config).run(sockets=[sock])
