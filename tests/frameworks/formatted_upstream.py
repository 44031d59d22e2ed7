"""A service that writes JSON lists the way Python services do, for the
gateway's cheapest-form test: `GET /doc/NAME/STYLE` answers the document
NAME with `json.dumps` in STYLE (`indent2`: `indent=2`; `python`: the
default `", "` and `": "` separators, ASCII escapes; `minified`:
`separators=(",", ":")`), with an `ETag`. `HEAD` answers the same headers.

The documents are the files of `tests/corpus` and five lists of 50 records
generated here with a fixed seed, shaped as the APIs agents read: GitHub
issues, orders with a nested customer, products, charges, flat log rows.

Run as `python formatted_upstream.py`: prints `port N` once listening, and
exits when its standard input closes (so it never outlives the test).
"""

import hashlib
import json
import os
import random
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus")


def issues(rng):
    users = ["octocat", "hubot", "monalisa", "defunkt", "mojombo", "pjhyett"]
    labels = [("bug", "d73a4a"), ("enhancement", "a2eeef"), ("docs", "0075ca"),
              ("good first issue", "7057ff"), ("question", "d876e3")]
    out = []
    for n in range(1, 51):
        user = rng.choice(users)
        out.append({
            "id": 1900000000 + n * 7919,
            "number": 4000 + n,
            "title": rng.choice(["Crash when", "Support for", "Docs: explain",
                                 "Flaky test in", "Regression in"]) + " "
                     + rng.choice(["the parser", "async streams", "TLS config",
                                   "the retry loop", "Windows paths"]),
            "state": rng.choice(["open", "closed"]),
            "locked": False,
            "user": {"login": user, "id": 1000 + users.index(user),
                     "type": "User", "site_admin": False,
                     "html_url": f"https://github.com/{user}"},
            "labels": [{"name": name, "color": color}
                       for name, color in rng.sample(labels, rng.randint(0, 2))],
            "assignee": None if rng.random() < 0.5 else {"login": rng.choice(users)},
            "comments": rng.randint(0, 40),
            "created_at": f"2026-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:00Z",
            "updated_at": f"2026-10-{rng.randint(10, 28)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:00Z",
            "closed_at": None,
            "author_association": rng.choice(["OWNER", "MEMBER", "CONTRIBUTOR", "NONE"]),
            "html_url": f"https://github.com/acme/widgets/issues/{4000 + n}",
        })
    return out


def orders(rng):
    names = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra",
             "Barbara Liskov", "Donald Knuth"]
    out = []
    for n in range(1, 51):
        name = rng.choice(names)
        out.append({
            "id": f"ord_{n:05}",
            "status": rng.choice(["paid", "shipped", "pending", "refunded"]),
            "total": round(rng.uniform(5, 500), 2),
            "currency": "EUR",
            "customer": {"id": f"cus_{names.index(name):04}", "name": name,
                         "email": name.lower().replace(" ", ".") + "@example.com",
                         "address": {"city": rng.choice(["Paris", "Berlin", "Madrid"]),
                                     "country": rng.choice(["FR", "DE", "ES"])}},
            "items": rng.randint(1, 6),
            "created_at": f"2026-05-{rng.randint(10, 28)}T{rng.randint(10, 23)}:00:00Z",
        })
    return out


def products(rng):
    out = []
    for n in range(1, 51):
        out.append({
            "sku": f"SKU-{n:04}",
            "name": rng.choice(["Desk lamp", "Notebook", "Backpack", "Mug", "Headphones"])
                    + f" {rng.choice(['mini', 'pro', 'classic'])}",
            "price": {"amount": round(rng.uniform(3, 300), 2), "currency": "USD"},
            "stock": rng.randint(0, 500),
            "tags": rng.sample(["new", "sale", "eco", "gift", "bestseller"], 2),
            "dimensions": {"w": rng.randint(5, 60), "h": rng.randint(5, 60),
                           "d": rng.randint(1, 30)},
        })
    return out


def charges(rng):
    out = []
    for n in range(1, 51):
        out.append({
            "id": f"ch_3P{n:04}xYz{rng.randint(100000, 999999)}",
            "object": "charge",
            "amount": rng.randint(100, 90000),
            "amount_refunded": 0,
            "captured": True,
            "currency": "usd",
            "customer": f"cus_Q{rng.randint(10000, 99999)}",
            "description": None,
            "paid": True,
            "payment_method_details": {
                "type": "card",
                "card": {"brand": rng.choice(["visa", "mastercard", "amex"]),
                         "last4": f"{rng.randint(0, 9999):04}",
                         "exp_month": rng.randint(1, 12), "exp_year": 2028,
                         "checks": {"cvc_check": "pass", "address_postal_code_check": None}},
            },
            "outcome": {"network_status": "approved_by_network", "risk_level": "normal",
                        "risk_score": rng.randint(0, 60), "type": "authorized"},
            "status": "succeeded",
            "created": 1760000000 + n * 3607,
            "livemode": False,
            "metadata": {"order_id": f"{rng.randint(1000, 9999)}"},
        })
    return out


def logs(rng):
    out = []
    for n in range(1, 51):
        out.append({
            "ts": f"2026-11-02T10:{n // 60:02}:{n % 60:02}.{rng.randint(0, 999):03}Z",
            "level": rng.choice(["INFO", "INFO", "WARN", "ERROR", "DEBUG"]),
            "service": rng.choice(["api", "worker", "billing"]),
            "status": rng.choice([200, 200, 201, 404, 500]),
            "duration_ms": rng.randint(1, 900),
            "path": rng.choice(["/v1/orders", "/v1/users", "/healthz", "/v1/charges"]),
        })
    return out


def documents():
    docs = {}
    for file in sorted(os.listdir(CORPUS)):
        if file.endswith(".json"):
            with open(os.path.join(CORPUS, file), encoding="utf-8") as f:
                docs["corpus-" + file[:-5]] = json.load(f)
    for name, make in [("issues", issues), ("orders", orders), ("products", products),
                       ("charges", charges), ("logs", logs)]:
        docs["list-" + name] = make(random.Random(43))
    return docs


DOCS = documents()
STYLES = {
    "indent2": lambda v: json.dumps(v, indent=2),
    "python": lambda v: json.dumps(v),
    "minified": lambda v: json.dumps(v, separators=(",", ":")),
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, send_body):
        parts = self.path.split("?")[0].strip("/").split("/")
        if parts == ["names"]:
            body = json.dumps(sorted(DOCS)).encode()
        elif len(parts) == 3 and parts[0] == "doc" and parts[1] in DOCS and parts[2] in STYLES:
            body = STYLES[parts[2]](DOCS[parts[1]]).encode()
        else:
            self.send_response(404)
            self.send_header("content-type", "application/json")
            body = json.dumps({"error": "no such document"}, indent=2).encode()
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            if send_body:
                self.wfile.write(body)
            return
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.send_header("etag", '"' + hashlib.sha256(body).hexdigest()[:16] + '"')
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def do_GET(self):
        self.answer(True)

    def do_HEAD(self):
        self.answer(False)

    def log_message(self, *args):
        pass


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"port {server.server_address[1]}", flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
