"""One blind round of the firewall corpus through today's rules, by fold: how many of its secrets
leak and how many of its near-misses change.

    python bench/firewall_round.py secret_round14 fresh14 30     # module, tag, token length
    python bench/firewall_round.py secret_round13 fresh13 28 --json
    python bench/firewall_round.py secret_round15 fresh15 30     # rounds 15 and 16: not in generate()
    python bench/firewall_round.py secret_round16 fresh16 29
    python bench/firewall_round.py secret_round17 fresh17 31     # unread: its figure on v14 is the held-out one

A round module (`memory_testing.secret_roundNN`) holds `SECRETS` (templates the generator fills),
`LITERAL_SECRETS` (texts with their writer's own values, from round 13 on) and `BENIGN`; the tag
and token length are the ones `secret_generators.generate()` gives it (or will), so the samples
are the same. A round measured here before it is studied is an unseen figure (docs/firewall.md).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packages/memory-testing/src"))

from memory_core.firewall import Firewall  # noqa: E402
from memory_testing.secret_generators import FOLDS, _literal_round, _round  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("module", help="the round's module in memory_testing, e.g. secret_round14")
    parser.add_argument("tag", help="the round's tag, e.g. fresh14")
    parser.add_argument("token_length", type=int, help="the length of the tokens the generator draws")
    parser.add_argument("--json", action="store_true", help="print the failures as JSON")
    args = parser.parse_args()
    round_ = importlib.import_module(f"memory_testing.{args.module}")
    secrets, benign = _round(args.tag, round_.SECRETS, round_.BENIGN, args.token_length)
    literal = _literal_round(args.tag, getattr(round_, "LITERAL_SECRETS", {}))
    firewall = Firewall()
    failures: dict[str, list[dict[str, str]]] = {}
    for fold in FOLDS:
        drawn = [g.sample for g in secrets if g.fold == fold]
        written = [g.sample for g in literal if g.fold == fold]
        kept = [g.sample for g in benign if g.fold == fold]
        leaked = [s for s in drawn + written if s.secret in firewall.scrub(s.text).text]
        changed = [s for s in kept if firewall.scrub(s.text).text != s.text]
        failures[fold] = [{"name": s.name, "text": s.text, "secret": s.secret} for s in leaked + changed]
        drawn_leaked = sum(1 for s in leaked if s in drawn)
        print(
            f"fold {fold}: leaked {len(leaked)}/{len(drawn) + len(written)} "
            f"(drawn {drawn_leaked}/{len(drawn)}, written {len(leaked) - drawn_leaked}/{len(written)}), "
            f"changed {len(changed)}/{len(kept)}"
        )
    if args.json:
        print(json.dumps(failures, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
