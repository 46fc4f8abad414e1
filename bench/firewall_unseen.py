"""Each blind round's secrets and near-misses, scrubbed by the rules as they stood when that round was
measured unseen: the population of failures that rules written without a round's text still make.

    python bench/firewall_unseen.py            # per round: leaked and changed at that round's commit
    python bench/firewall_unseen.py --now      # the same samples through today's rules

It extracts `memory_core` at each round's commit (`git archive`, into a temporary folder) and runs
that firewall in a subprocess, so no checkout moves. docs/firewall.md ("Unseen rounds") reads it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packages/memory-testing/src"))

from memory_core.firewall.shaped import password_shaped  # noqa: E402
from memory_testing.secret_generators import generate  # noqa: E402

ROUNDS = {"fresh8": "832604e", "fresh9": "e2b30fc^1", "fresh10": "57dc007", "fresh11": "efb775d^"}
"""Each blind round and the commit whose rules it was measured on before anyone studied it."""
_SCRUB = (
    "import json, sys; from memory_core.firewall import Firewall; f = Firewall(); "
    "print(json.dumps([f.scrub(t).text for t in json.load(sys.stdin)]))"
)


def scrub_at(commit: str | None, texts: list[str], work: Path) -> list[str]:
    """`texts` through the firewall of `commit` (None: this checkout's)."""
    source = ROOT / "packages/memory-core/src"
    if commit is not None:
        target = work / commit.replace("^", "_")
        target.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit, "packages/memory-core/src/memory_core"],
            check=True,
            capture_output=True,
        )
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
        source = target / "packages/memory-core/src"
    done = subprocess.run(
        [sys.executable, "-c", _SCRUB],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(source)},
    )
    return list(json.loads(done.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--now", action="store_true", help="today's rules instead of each round's own")
    parser.add_argument("--json", action="store_true", help="print the failures as JSON")
    args = parser.parse_args()
    secrets, benign = generate()
    report: dict[str, list[dict[str, str]]] = {}
    with tempfile.TemporaryDirectory() as work:
        for tag, commit in ROUNDS.items():
            samples = [g.sample for g in (*secrets, *benign) if g.sample.name.startswith(f"gen-{tag}-")]
            out = scrub_at(None if args.now else commit, [s.text for s in samples], Path(work))
            failed = [
                {"name": s.name, "secret": s.secret, "text": s.text, "scrubbed": o}
                for s, o in zip(samples, out, strict=True)
                if (s.secret and s.secret in o) or (not s.secret and o != s.text)
            ]
            report[tag] = failed
            n_secrets = sum(1 for s in samples if s.secret)
            leaked = sum(1 for f in failed if f["secret"])
            shaped = sum(1 for f in failed if f["secret"] and password_shaped(f["secret"]) is not None)
            print(
                f"{tag} at {'now' if args.now else commit}: leaked {leaked}/{n_secrets} "
                f"({shaped} of them password-shaped), changed {len(failed) - leaked}/{len(samples) - n_secrets}"
            )
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
