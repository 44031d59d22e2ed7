import json
import logging
from dataclasses import dataclass, field
from typing import Iterable

log = logging.getLogger(__name__)


@dataclass
class Invoice:
    number: str
    customer_id: int
    lines: list[dict] = field(default_factory=list)

    @property
    def total(self) -> float:
        return round(sum(l["qty"] * l["unit_price"] for l in self.lines), 2)


def load_invoices(paths: Iterable[str]) -> list[Invoice]:
    invoices = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as fh:
                raw = json.load(fh)
        except (OSError, json.JSONDecodeError) as exc:
            log.warning("skipping %s: %s", path, exc)
            continue
        invoices.append(Invoice(raw["number"], int(raw["customer"]), raw.get("lines", [])))
    return sorted(invoices, key=lambda inv: (inv.customer_id, inv.number))


if __name__ == "__main__":
    for inv in load_invoices(["a.json", "b.json"]):
        print(f"{inv.number:>10} {inv.total:12.2f}")
