"""Cost of the secret firewall per turn: a 2 KB and a 200 KB turn, and hostile text.

    python bench/firewall.py [--runs 50] [--json]

Builds turns of 2 KB and 200 KB: typical ones (a traceback, test output, a diff and
near-misses from the adversarial corpus, `memory_testing.secret_corpus`, with one
secret sample every second block, about one per 2.5 KB) and dense ones (the corpus's
secrets and near-misses back to back, one secret per 150 characters: the worst a turn can
be), and times `Firewall().scrub` on each, warm (rules compiled), best and median of
--runs, in CPU time of this process (the shared machine's load does not count). For scale
it times, on the same text in the same run, a baseline regular-expression pass
(`re.findall(r"\\S+", text)`: one linear scan that touches every character), and reports the
firewall as a multiple of it. It also times the 200 KB hostile inputs the tests use (long
runs of URL, flag, key and prose syntax) against the same baseline, so a regression to
super-linear time shows as a ratio jumping, not as a hang.

`--json` prints one line: per series the best and median ms and `*_x_baseline`.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections.abc import Callable
from functools import partial

from memory_core.firewall import Firewall
from memory_testing.secret_corpus import BENIGN, SECRETS

_BASELINE = re.compile(r"\S+")

HOSTILE: dict[str, str] = {
    "url-at-signs": "postgresql://u:" + "p@" * 100_000,
    "url-colons": "://a:" * 40_000,
    "flags": "mysql -p" + " -p x" * 40_000,
    "key-value-lines": "requirepass x\n" * 14_000,
    "prose": "the password is " * 12_500,
    "pgpass-colons": "h:5432:" * 28_000,
    "quotes": "'password', '" * 15_000,
    "one-long-run": "a" * 200_000,
}
"""200 KB each (about): the shapes a rule's search could restart on from every position."""


_CODE = """Traceback (most recent call last):
  File "/home/dev/app/services/billing/refunds.py", line 212, in process_refund
    result = gateway.refund(charge_id=charge.id, amount=amount, idempotency_key=key)
  File "/home/dev/app/.venv/lib/python3.12/site-packages/httpx/_client.py", line 1574, in send
    raise ReadTimeout(message) from exc
httpx.ReadTimeout: timed out after 5.0 seconds
$ pytest tests/billing -q -k refund
........F.....                                                  [100%]
FAILED tests/billing/test_refunds.py::test_partial_refund_keeps_the_fee - AssertionError
diff --git a/services/billing/refunds.py b/services/billing/refunds.py
@@ -210,7 +210,9 @@ def process_refund(charge, amount):
-    result = gateway.refund(charge_id=charge.id, amount=amount)
+    key = f"refund:{charge.id}:{amount}"
+    result = gateway.refund(charge_id=charge.id, amount=amount, idempotency_key=key)
+    log.info("refund %s for %s issued", amount, charge.id)
"""


def corpus_turn(size: int, *, secrets_every: int = 1) -> str:
    """Corpus samples cut to `size` characters: secrets and near-misses interleaved
    (`secrets_every=1`: the densest turn), or, with `secrets_every=N`, one secret per N blocks of
    ordinary coding text (a traceback, test output, a diff and near-misses): a typical turn.
    """
    pieces: list[str] = []
    total = n = 0
    while total < size:
        if secrets_every == 1:
            text = SECRETS[n % len(SECRETS)].text + "\n\n" + BENIGN[n % len(BENIGN)].text
        else:
            text = _CODE + "\n".join(s.text for s in BENIGN[(n * 3) % len(BENIGN) :][:3])
            if n % secrets_every == 0:
                text += "\n" + SECRETS[(n // secrets_every) % len(SECRETS)].text
        pieces.append(text)
        total += len(text) + 2
        n += 1
    return "\n\n".join(pieces)[:size]


def _time(work: Callable[[], object], runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.process_time()
        work()
        times.append((time.process_time() - start) * 1000)
    return min(times), statistics.median(times)


def measure(runs: int) -> dict[str, float]:
    firewall = Firewall()
    out: dict[str, float] = {}
    series = {
        "typical_2kb": corpus_turn(2_000, secrets_every=2),
        "typical_200kb": corpus_turn(200_000, secrets_every=2),
        "dense_2kb": corpus_turn(2_000),
        "dense_200kb": corpus_turn(200_000),
        **HOSTILE,
    }
    for name, text in series.items():
        firewall.scrub(text)  # compile what the text triggers
        n = runs if len(text) < 10_000 else max(5, runs // 5)
        # Interleaved, so that load on the machine hits both alike.
        _, base_median = _time(partial(_BASELINE.findall, text), n)
        best, median = _time(partial(firewall.scrub, text), n)
        out[f"{name}_best_ms"] = round(best, 3)
        out[f"{name}_median_ms"] = round(median, 3)
        out[f"{name}_baseline_median_ms"] = round(base_median, 3)
        out[f"{name}_x_baseline"] = round(median / max(base_median, 1e-6), 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = measure(args.runs)
    if args.json:
        print(json.dumps(figures))
        return
    for name in dict.fromkeys(k[: -len("_best_ms")] for k in figures if k.endswith("_best_ms")):
        print(
            f"{name:16} best {figures[f'{name}_best_ms']:9.3f} ms  median {figures[f'{name}_median_ms']:9.3f} ms"
            f"  baseline {figures[f'{name}_baseline_median_ms']:8.3f} ms  x{figures[f'{name}_x_baseline']}"
        )


if __name__ == "__main__":
    main()
