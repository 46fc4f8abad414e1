"""Reading a Redis/Valkey store URL, and the safety rules that come with it.

Schemes: `redis://` and `valkey://` (plain TCP), `rediss://` and `valkeys://` (TLS), and
`redis+cluster://` / `valkey+cluster://` (a Redis Cluster, reached through any of its nodes;
`?ssl=true` for TLS). A standalone URL must name its database (`redis://host:6379/3`): a URL
without one, or one naming database 0 without `MEMORY_ALLOW_DB0=1`, is a `ConfigError`,
because database 0 is where other applications keep their keys and writing there is a
surprise. The message names the variable to change and suggests a database that is empty
right now (the caller asks the server: `_redis_client.empty_db`).

A URL's query may carry only the TLS settings `RedisTarget` names; anything else is a
`ConfigError` too. What comes out is a `RedisTarget`: the only thing the client
(`_redis_client`, on redis-py) is given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

from memory_core.errors import ConfigError
from memory_core.urls import redact_url

__all__ = ["RedisTarget", "parse_redis_url"]

_PLAIN = {"redis": "redis", "valkey": "redis", "rediss": "rediss", "valkeys": "rediss"}
_CLUSTER = {"redis+cluster", "valkey+cluster", "rediss+cluster", "valkeys+cluster"}
_TLS_OPTIONS = frozenset({"ssl_ca_certs", "ssl_certfile", "ssl_keyfile", "ssl_cert_reqs", "ssl_check_hostname"})
"""The TLS settings a URL may carry in its query, named as redis-py names them."""
_CERT_REQS = frozenset({"required", "optional", "none"})
_FALSE = frozenset({"false", "0", "no", "off"})


@dataclass(frozen=True, slots=True)
class RedisTarget:
    """Where a Redis store lives: a checked description, all the client is given.

    Attributes:
        cluster: True for a Redis Cluster (database 0 only).
        nodes: The server as one (host, port), or the cluster's start-up nodes.
        db: The database number (always 0 on a cluster).
        username: The ACL user, if any.
        password: The password, if any.
        ssl: Whether TLS is used (`rediss://`, `valkeys://`, or a cluster's `?ssl=true`).
        ca_certs: A CA bundle to trust instead of the system's (`?ssl_ca_certs=PATH`).
        certfile: A client certificate (`?ssl_certfile=PATH`), with its `keyfile`.
        keyfile: The client certificate's key (`?ssl_keyfile=PATH`).
        cert_reqs: `required` (the default), `optional` or `none` (`?ssl_cert_reqs=`).
        check_hostname: Whether the certificate must name the host; off when `cert_reqs`
            is not `required` or the URL says `?ssl_check_hostname=false`.
    """

    cluster: bool
    nodes: tuple[tuple[str, int], ...]
    db: int
    username: str | None = None
    password: str | None = None
    ssl: bool = False
    ca_certs: str | None = None
    certfile: str | None = None
    keyfile: str | None = None
    cert_reqs: str = "required"
    check_hostname: bool = True


def parse_redis_url(url: str, *, allow_db0: bool, empty_db: Callable[[RedisTarget], int]) -> RedisTarget:
    """Parse and check `url`. Raises `ConfigError` when it is malformed or unsafe (see module doc).

    `empty_db(target)` names an empty database to suggest when the URL names none or names 0; it is
    asked only then, so parsing a good URL never touches the network.
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    query = dict(parse_qsl(parts.query))
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    if scheme in _CLUSTER:
        nodes = _cluster_nodes(parts.netloc)
        if parts.path.strip("/") not in ("", "0"):
            raise ConfigError("MEMORY_URL names a database on a Redis Cluster, which has only database 0: drop it")
        tls = scheme.startswith(("rediss", "valkeys")) or query.pop("ssl", "").lower() in ("1", "true", "yes")
        return _target(url, query, cluster=True, nodes=nodes, db=0, username=username, password=password, ssl=tls)
    if scheme not in _PLAIN:
        raise ConfigError(f"MEMORY_URL has scheme {scheme!r}, which is not a Redis scheme")
    if not parts.hostname:
        raise ConfigError(f"MEMORY_URL {redact_url(url)} names no host: use redis://HOST:6379/DB")
    db_text = parts.path.strip("/") or query.pop("db", "")
    query.pop("db", None)
    target = _target(
        url,
        query,
        cluster=False,
        nodes=((parts.hostname, parts.port or 6379),),
        db=0,
        username=username,
        password=password,
        ssl=_PLAIN[scheme] == "rediss",
    )
    base = redact_url(urlunsplit((_PLAIN[scheme], parts.netloc, "", "", "")))
    if not db_text:
        db = empty_db(target)
        raise ConfigError(
            f"MEMORY_URL {redact_url(url)} names no Redis database number; memory will not pick one for you. "
            f"Set MEMORY_URL to {base}/{db} (database {db} is empty now)."
        )
    if not db_text.isdigit():
        raise ConfigError(f"MEMORY_URL {redact_url(url)}: the database must be a number, not {db_text!r}")
    db = int(db_text)
    if db == 0 and not allow_db0:
        suggestion = empty_db(target)
        raise ConfigError(
            f"MEMORY_URL {redact_url(url)} names Redis database 0, where other applications usually keep "
            f"their keys. Use an empty database instead, e.g. MEMORY_URL={base}/{suggestion} "
            f"(empty now), or set MEMORY_ALLOW_DB0=1 to write to database 0 on purpose."
        )
    return replace(target, db=db)


def _cluster_nodes(netloc: str) -> tuple[tuple[str, int], ...]:
    hosts = netloc.rsplit("@", 1)[-1]
    nodes: list[tuple[str, int]] = []
    for item in hosts.split(","):
        host, sep, port = item.strip().rpartition(":")
        if not sep or host.endswith(":"):  # no port given (a bare IPv6 address keeps its colons)
            host, port = item.strip(), "6379"
        host = host.strip("[]")
        if not host or not port.isdigit():
            raise ConfigError(f"MEMORY_URL names a cluster node {item!r} that is not HOST:PORT")
        nodes.append((host, int(port)))
    return tuple(nodes)


def _target(url: str, query: dict[str, str], **fields: Any) -> RedisTarget:
    """The target with the URL's TLS options checked; any other option is an error, not silently dropped."""
    unknown = sorted(set(query) - _TLS_OPTIONS)
    if unknown:
        raise ConfigError(f"MEMORY_URL {redact_url(url)} has Redis options memory does not use: {', '.join(unknown)}")
    cert_reqs = query.get("ssl_cert_reqs", "required").lower()
    if cert_reqs not in _CERT_REQS:
        raise ConfigError(f"MEMORY_URL {redact_url(url)}: ssl_cert_reqs must be required, optional or none")
    return RedisTarget(
        **fields,
        ca_certs=query.get("ssl_ca_certs"),
        certfile=query.get("ssl_certfile"),
        keyfile=query.get("ssl_keyfile"),
        cert_reqs=cert_reqs,
        check_hostname=cert_reqs == "required" and query.get("ssl_check_hostname", "").lower() not in _FALSE,
    )
