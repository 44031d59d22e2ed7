"""The load bench's documents, written to the directory given: flat rows,
nested orders (about 14 KB), and the same orders as Python's json.dumps
writes them by default (spaced separators). Seeded: every run serves the
same bytes."""

import json
import random
import sys
from pathlib import Path

rng = random.Random(29)
out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)

WORDS = "alpha beta gamma delta copper river stone maple orbit lantern harbor".split()

flat = [
    {
        "id": i,
        "name": f"{rng.choice(WORDS)} {rng.choice(WORDS)}",
        "email": f"user{i}@example.com",
        "active": rng.random() < 0.7,
        "score": round(rng.random() * 100, 2),
        "created": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
    }
    for i in range(120)
]


def order(i):
    return {
        "id": f"ord_{i:05d}",
        "status": rng.choice(["paid", "shipped", "pending", "refunded"]),
        "customer": {
            "id": rng.randint(1000, 9999),
            "name": f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()}",
            "address": {"city": rng.choice(WORDS).title(), "zip": f"{rng.randint(10000, 99999)}"},
        },
        "items": [
            {"sku": f"SKU-{rng.randint(100, 999)}", "qty": rng.randint(1, 5), "price": round(rng.random() * 80, 2)}
            for _ in range(rng.randint(1, 4))
        ],
        "total": round(rng.random() * 300, 2),
        "notes": rng.choice([None, "leave at the door", "gift wrap"]),
    }


nested = {"data": [order(i) for i in range(52)], "total": 52, "page": 1}

(out / "flat.json").write_text(json.dumps(flat, separators=(",", ":")))
(out / "nested.json").write_text(json.dumps(nested, separators=(",", ":")))
(out / "spaced.json").write_text(json.dumps(nested))
for name in ["flat", "nested", "spaced"]:
    print(name, (out / f"{name}.json").stat().st_size, "bytes", file=sys.stderr)
