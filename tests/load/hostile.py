"""Hostile clients against a running `terse gateway`, outside CI.

    python3 tests/load/hostile.py GATEWAY_PID HOST:PORT

Measures, in order:
  1. shed: SILENT (2000) connections that send nothing; the time from the
     last connect until the gateway has closed them all;
  2. readers: READERS (200) connections asking `/big.json?format=toon`
     that never read; the gateway's peak RSS (VmRSS, sampled) meanwhile,
     and the latency of ordinary requests alongside;
  3. soak: for DURATION seconds (300), slowloris connections (a header
     line every few seconds), slow readers and ordinary requests together;
     p50/p99 of the ordinary requests and the peak RSS.
Each figure is printed as one `name value` line.
"""

import os
import resource
import selectors
import socket
import sys
import time

PID = int(sys.argv[1])
HOST, PORT = sys.argv[2].rsplit(":", 1)
PORT = int(PORT)
SILENT = int(os.environ.get("SILENT", 2000))
READERS = int(os.environ.get("READERS", 200))
DURATION = float(os.environ.get("DURATION", 300))
READ_SECONDS = float(os.environ.get("READ_SECONDS", 20))

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def rss_mib():
    with open(f"/proc/{PID}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def connect():
    sock = socket.create_connection((HOST, PORT))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    return sock


def small_request():
    """Latency in ms of one ordinary request, or None when it fails."""
    started = time.monotonic()
    try:
        with socket.create_connection((HOST, PORT), timeout=30) as sock:
            sock.sendall(b"GET /small.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        if not answer.startswith(b"HTTP/1.1 200"):
            return None
    except OSError:
        return None
    return (time.monotonic() - started) * 1000


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")


def wait_closed(socks, limit):
    """Seconds until every socket in `socks` is closed by the peer."""
    selector = selectors.DefaultSelector()
    for sock in socks:
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    started = time.monotonic()
    left = len(socks)
    while left and time.monotonic() - started < limit:
        for key, _ in selector.select(timeout=1):
            try:
                data = key.fileobj.recv(65536)
            except OSError:
                data = b""
            if not data:
                selector.unregister(key.fileobj)
                key.fileobj.close()
                left -= 1
    return time.monotonic() - started, left


def shed():
    socks = [connect() for _ in range(SILENT)]
    took, left = wait_closed(socks, 600)
    print(f"shed_{SILENT}_silent_seconds {took:.1f}")
    print(f"shed_left_open {left}")
    print(f"small_after_shed_ms {small_request()}")


def readers(count, seconds):
    socks = []
    for _ in range(count):
        sock = connect()
        sock.sendall(b"GET /big.json?format=toon HTTP/1.1\r\nHost: x\r\n\r\n")
        socks.append(sock)
    peak, latencies = rss_mib(), []
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        peak = max(peak, rss_mib())
        latencies.append(small_request())
        time.sleep(0.2)
    return socks, peak, latencies


def slow_readers():
    base = rss_mib()
    socks, peak, latencies = readers(READERS, READ_SECONDS)
    ok = [l for l in latencies if l is not None]
    print(f"rss_before_mib {base:.0f}")
    print(f"rss_peak_{READERS}_slow_readers_mib {peak:.0f}")
    print(f"small_during_readers_p99_ms {percentile(ok, 0.99):.1f} failed {len(latencies) - len(ok)}")
    for sock in socks:
        sock.close()


def soak():
    started = time.monotonic()
    loris, latencies, peak = [], [], rss_mib()
    socks, _, _ = readers(READERS // 2, 0)
    while time.monotonic() - started < DURATION:
        while len(loris) < 200:
            sock = connect()
            sock.sendall(b"GET /small.json HTTP/1.1\r\n")
            loris.append(sock)
        alive = []
        for sock in loris:
            try:
                sock.sendall(b"X-a: b\r\n")
                alive.append(sock)
            except OSError:
                sock.close()
        loris = alive
        for _ in range(10):
            latencies.append(small_request())
        peak = max(peak, rss_mib())
        time.sleep(1)
    ok = [l for l in latencies if l is not None]
    print(f"soak_seconds {DURATION:.0f}")
    print(f"soak_small_p50_ms {percentile(ok, 0.5):.1f}")
    print(f"soak_small_p99_ms {percentile(ok, 0.99):.1f} failed {len(latencies) - len(ok)} of {len(latencies)}")
    print(f"soak_rss_peak_mib {peak:.0f}")
    for sock in socks + loris:
        sock.close()


shed()
slow_readers()
if DURATION > 0:
    soak()
