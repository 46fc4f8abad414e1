"""`--http HOST:PORT` parsing and the loopback rule that decides whether a token is required."""

from __future__ import annotations

import pytest
from memory_mcp.address import is_loopback, parse_address


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1:8765", ("127.0.0.1", 8765)),
        ("localhost:0", ("localhost", 0)),
        ("[::1]:8765", ("::1", 8765)),
        ("0.0.0.0:80", ("0.0.0.0", 80)),
        ("memory.internal:443", ("memory.internal", 443)),
    ],
)
def test_addresses_parse(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["8765", ":8765", "127.0.0.1:", "host:port", "[::1]8765", "127.0.0.1:70000"])
def test_malformed_addresses_are_refused_with_the_expected_form(text: str) -> None:
    with pytest.raises(ValueError, match=r"HOST:PORT|port"):
        parse_address(text)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_loopback_hosts(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.1.2.3", "192.168.0.10", "2001:db8::1"])
def test_other_hosts_are_not_loopback(host: str) -> None:
    assert not is_loopback(host)
