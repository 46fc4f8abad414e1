"""Reading a Redis/Valkey store URL, and the safety rules that come with it.

Schemes: `redis://` and `valkey://` (plain TCP), `rediss://` and `valkeys://` (TLS), and
`redis+cluster://` / `valkey+cluster://` (a Redis Cluster, reached through any of its nodes;
`?ssl=true` for TLS). A standalone URL must name its database (`redis://host:6379/3`): a URL
without one, or one naming database 0 without `MEMORY_ALLOW_DB0=1`, is a `ConfigError`,
because database 0 is where other applications keep their keys and writing there is a
surprise. The message names the variable to change and suggests a database that is empty
right now (asked of the server with the same timeout; database 1 if it cannot be asked).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

from memory_core.errors import ConfigError

__all__ = ["RedisTarget", "parse_redis_url", "display_url", "connection_options"]

_PLAIN = {"redis": "redis", "valkey": "redis", "rediss": "rediss", "valkeys": "rediss"}
_CLUSTER = {"redis+cluster", "valkey+cluster", "rediss+cluster", "valkeys+cluster"}
_MAX_DB_SUGGESTION = 16
"""Redis ships with 16 databases; a suggestion beyond that would not exist on a default server."""


@dataclass(frozen=True, slots=True)
class RedisTarget:
    """Where a Redis store lives.

    Attributes:
        url: A URL redis-py understands (`redis://` or `rediss://`), database included.
        cluster: True for a Redis Cluster (database 0 only).
        nodes: The cluster's start-up nodes as (host, port).
        ssl: Whether TLS is used (cluster only; a standalone URL says it with its scheme).
        db: The database number (always 0 on a cluster).
        username: The ACL user, if any.
        password: The password, if any.
        query: The URL's query parameters other than `db` and `ssl` (TLS files and the like).
    """

    url: str
    cluster: bool
    nodes: tuple[tuple[str, int], ...]
    ssl: bool
    db: int
    username: str | None
    password: str | None
    query: tuple[tuple[str, str], ...]


def display_url(url: str) -> str:
    """`url` with its password replaced by `***`."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit((parts.scheme, f"{user}:***@{host}", parts.path, parts.query, parts.fragment))


def parse_redis_url(url: str, *, allow_db0: bool, timeout: float) -> RedisTarget:
    """Parse and check `url`. Raises `ConfigError` when it is malformed or unsafe (see module doc)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    query = dict(parse_qsl(parts.query))
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    if scheme in _CLUSTER:
        return _cluster_target(parts.netloc, parts.path, scheme, query, username, password)
    if scheme not in _PLAIN:
        raise ConfigError(f"MEMORY_URL has scheme {scheme!r}, which is not a Redis scheme")
    if not parts.hostname:
        raise ConfigError(f"MEMORY_URL {display_url(url)} names no host: use redis://HOST:6379/DB")
    db_text = parts.path.strip("/") or query.pop("db", "")
    query.pop("db", None)
    base = urlunsplit((_PLAIN[scheme], parts.netloc, "", "", ""))
    if not db_text:
        db = _empty_db(base, timeout)
        raise ConfigError(
            f"MEMORY_URL {display_url(url)} names no Redis database number; memory will not pick one for you. "
            f"Set MEMORY_URL to {display_url(base)}/{db} (database {db} is empty now)."
        )
    if not db_text.isdigit():
        raise ConfigError(f"MEMORY_URL {display_url(url)}: the database must be a number, not {db_text!r}")
    db = int(db_text)
    if db == 0 and not allow_db0:
        suggestion = _empty_db(base, timeout)
        raise ConfigError(
            f"MEMORY_URL {display_url(url)} names Redis database 0, where other applications usually keep "
            f"their keys. Use an empty database instead, e.g. MEMORY_URL={display_url(base)}/{suggestion} "
            f"(empty now), or set MEMORY_ALLOW_DB0=1 to write to database 0 on purpose."
        )
    return RedisTarget(
        url=f"{base}/{db}",
        cluster=False,
        nodes=((parts.hostname, parts.port or 6379),),
        ssl=_PLAIN[scheme] == "rediss",
        db=db,
        username=username,
        password=password,
        query=tuple(sorted(query.items())),
    )


def _cluster_target(
    netloc: str, path: str, scheme: str, query: dict[str, str], username: str | None, password: str | None
) -> RedisTarget:
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
    if path.strip("/") not in ("", "0"):
        raise ConfigError("MEMORY_URL names a database on a Redis Cluster, which has only database 0: drop it")
    ssl = scheme.startswith(("rediss", "valkeys")) or query.pop("ssl", "").lower() in ("1", "true", "yes")
    query.pop("ssl", None)
    first_host, first_port = nodes[0]
    return RedisTarget(
        url=f"{'rediss' if ssl else 'redis'}://{first_host}:{first_port}/0",
        cluster=True,
        nodes=tuple(nodes),
        ssl=ssl,
        db=0,
        username=username,
        password=password,
        query=tuple(sorted(query.items())),
    )


def connection_options(timeout: float) -> dict[str, Any]:
    """redis-py options shared by every client we build: bounded time, no retries, no extra round trips.

    No retries: the hook path has a 1 s budget, and a retry would spend it twice. No
    `CLIENT SETINFO`: it costs two round trips on every new connection and tells us nothing.
    """
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    options: dict[str, Any] = {
        "socket_connect_timeout": timeout,
        "socket_timeout": timeout,
        "retry": Retry(NoBackoff(), 0),
        "health_check_interval": 0,
    }
    try:
        import redis.driver_info  # noqa: F401 - redis-py 7+: `driver_info=None` turns CLIENT SETINFO off
    except ImportError:  # redis-py 5 and 6 spell it lib_name/lib_version
        options.update(lib_name=None, lib_version=None)
    else:
        options["driver_info"] = None
    return options


def _empty_db(base: str, timeout: float) -> int:
    """The lowest database above 0 that holds no key, asked of the server; 1 if it cannot be asked."""
    from memory_core.store._resp import RespConnection

    parts = urlsplit(base)
    connection = RespConnection(
        parts.hostname or "127.0.0.1",
        parts.port or 6379,
        db=0,
        timeout=timeout,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password is not None else None,
        tls=parts.scheme == "rediss",
    )
    try:
        (keyspace,) = connection.run([("INFO", "keyspace")])
    except Exception:  # noqa: BLE001 - only a suggestion: an unreachable server must not hide the real error
        return 1
    finally:
        connection.close()
    used = {int(line[2:].split(":", 1)[0]) for line in str(keyspace).splitlines() if line[:2] == "db" and ":" in line}
    return next((n for n in range(1, _MAX_DB_SUGGESTION) if n not in used), 1)
