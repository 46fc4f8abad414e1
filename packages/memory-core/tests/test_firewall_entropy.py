"""The entropy test holds both of its promises at once: random tokens are caught, and the long
identifiers and paths a coding session is full of are not.

The corpus of ordinary tokens is the Python standard library on the machine running the tests
(its identifiers and its file paths): real code, tens of thousands of long names, and no
credentials. The random tokens come from a seeded generator, so both numbers are the same
on every run of one Python version.
"""

from __future__ import annotations

import random
import re
import string
import sysconfig
from pathlib import Path

import pytest
from memory_core.firewall.entropy import looks_random

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{19,}")
_PATH_TOKEN = re.compile(r"[A-Za-z0-9_/\-]{20,}")


def _stdlib_files() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    # The standard library itself: not its tests (full of random test vectors) nor whatever
    # third-party packages this interpreter has installed.
    return sorted(
        p for p in root.rglob("*.py") if p.relative_to(root).parts[0] not in ("test", "site-packages", "idlelib")
    )


@pytest.fixture(scope="module")
def stdlib_identifiers() -> set[str]:
    found: set[str] = set()
    for path in _stdlib_files():
        found.update(_IDENTIFIER.findall(path.read_text(encoding="utf-8", errors="replace")))
    return found


@pytest.fixture(scope="module")
def stdlib_paths() -> set[str]:
    prefix = "/usr/lib/python3.11/site-packages/"
    root = Path(sysconfig.get_paths()["stdlib"])
    return {m for p in _stdlib_files() for m in _PATH_TOKEN.findall(prefix + p.relative_to(root).as_posix())}


def _random_tokens(alphabet: str, length: int, count: int = 2000) -> list[str]:
    rng = random.Random(f"{alphabet}{length}")
    return ["".join(rng.choice(alphabet) for _ in range(length)) for _ in range(count)]


@pytest.mark.parametrize(
    ("alphabet", "length", "floor"),
    [
        (string.ascii_letters + string.digits + "+/", 24, 0.95),
        (string.ascii_letters + string.digits + "+/", 40, 0.99),
        (string.ascii_letters + string.digits + "-_", 32, 0.98),
        (string.ascii_letters + string.digits, 64, 0.995),
        (string.ascii_lowercase + string.digits, 40, 0.95),
    ],
    ids=["base64-24", "base64-40", "base64url-32", "alnum-64", "lower-digits-40"],
)
def test_random_tokens_are_caught(alphabet: str, length: int, floor: float) -> None:
    tokens = _random_tokens(alphabet, length)

    caught = sum(looks_random(t) for t in tokens) / len(tokens)

    assert caught >= floor


def test_long_identifiers_of_the_standard_library_are_not_flagged(stdlib_identifiers: set[str]) -> None:
    assert len(stdlib_identifiers) > 2000  # the corpus is real, not an empty folder
    flagged = sorted(t for t in stdlib_identifiers if looks_random(t))

    assert len(flagged) / len(stdlib_identifiers) <= 0.004, flagged[:20]


def test_paths_of_the_standard_library_are_not_flagged(stdlib_paths: set[str]) -> None:
    assert len(stdlib_paths) > 500
    flagged = sorted(t for t in stdlib_paths if looks_random(t))

    assert len(flagged) / len(stdlib_paths) <= 0.005, flagged[:20]


@pytest.mark.parametrize(
    "token",
    [
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "550e8400-e29b-41d4-a716-446655440000",
        "req-550e8400-e29b-41d4-a716-446655440000-retry",
        "toolu_01A09q90qw90lq917835lq9AbCdEf",
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
        "memory-api-deployment-7d4b9c8f6d-x2k4j",
        "20240131T235959123456789",
    ],
)
def test_ids_digests_and_images_are_not_random(token: str) -> None:
    assert not looks_random(token)


def test_short_tokens_are_never_judged() -> None:
    assert not looks_random("Xk9pQ2mZ7vR4tL8wN3b")  # 19 characters
    assert looks_random("Xk9pQ2mZ7vR4tL8wN3bF6hJ1")
