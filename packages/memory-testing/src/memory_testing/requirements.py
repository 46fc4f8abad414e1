"""Missing services: fail under CI, skip with a plain reason elsewhere.

CI must never go green by skipping a suite whose service failed to install or start, so
when `CI` is set to a true value, `require` fails the test instead of skipping it.
"""

from __future__ import annotations

import os

import pytest

__all__ = ["require", "in_ci"]


def in_ci() -> bool:
    """Whether we run under CI (`CI=true`, `CI=1`)."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def require(available: bool, what: str) -> None:
    """Fail (CI) or skip (elsewhere) the current test unless `available`; `what` names what is missing."""
    if available:
        return
    message = f"missing: {what}"
    if in_ci():
        pytest.fail(f"{message} (CI=true: a missing service is a failure, not a skip)", pytrace=False)
    pytest.skip(message)
