"""The Redis store's one path to a server: redis-py behind a `run(commands)` shape.

`RedisClient(target, timeout=...)` builds a redis-py client from a checked `RedisTarget`
(never from a URL: the URL rules live in `_redis_url`): `redis.Redis` for one Redis or
Valkey server, plain or TLS, `redis.cluster.RedisCluster` for a cluster. `run` sends a batch
as one pipeline (one round trip; on a cluster, one per node involved) and returns the
replies in order, with redis-py's reply conversions (a hash is a dict, a set a set, INFO a
dict, or a dict per node on a cluster). The connections stay open between calls, so a warm
worker pays the connect once.

Promises: every connect and every read is bounded by `timeout`; nothing is retried (the hook
path has one budget, a retry would spend it twice); no health checks and no `CLIENT SETINFO`
(round trips that tell us nothing); TLS checks the certificate and the host name unless the
target says otherwise. A standalone client connects on its first command; a cluster client
connects when built (it learns the slot map).

Failure: `translate` maps redis-py's exceptions onto ours: unreachable, silent, loading,
read-only, in failover or in a failed cluster state -> `StoreUnavailable`; bad credentials
and any other error reply -> `StoreError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memory_core.errors import StoreError, StoreUnavailable
from memory_core.store._redis_url import RedisTarget

__all__ = ["RedisClient", "empty_db", "translate"]

_BUSY_CODES = ("BUSY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "LOADING", "READONLY")
"""Error replies that mean "not now" (a long script, a failover, a load): an outage, not a bug."""
_MAX_DB_SUGGESTION = 16
"""Redis ships with 16 databases; a suggestion beyond that would not exist on a default server."""


def _options(target: RedisTarget, timeout: float) -> dict[str, Any]:
    options: dict[str, Any] = {
        "socket_connect_timeout": timeout,
        "socket_timeout": timeout,
        "health_check_interval": 0,
        "decode_responses": True,
        "username": target.username,
        "password": target.password,
    }
    try:
        import redis.driver_info  # noqa: F401 - redis-py 7+: `driver_info=None` turns CLIENT SETINFO off
    except ImportError:  # redis-py 5 and 6 spell it lib_name/lib_version
        options.update(lib_name=None, lib_version=None)
    else:
        options["driver_info"] = None
    if target.ssl:
        options.update(
            ssl=True,
            ssl_ca_certs=target.ca_certs,
            ssl_certfile=target.certfile,
            ssl_keyfile=target.keyfile,
            ssl_cert_reqs=target.cert_reqs,
            ssl_check_hostname=target.check_hostname,
        )
    return options


class RedisClient:
    """A redis-py client for one target that runs batches of raw commands. Thread-safe (redis-py's pool)."""

    def __init__(self, target: RedisTarget, *, timeout: float) -> None:
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        options = _options(target, timeout)
        no_retry = Retry(NoBackoff(), 0)
        self._client: Any
        if target.cluster:
            from redis.cluster import ClusterNode, RedisCluster

            nodes = [ClusterNode(host, port) for host, port in target.nodes]  # type: ignore[no-untyped-call]
            self._client = RedisCluster(startup_nodes=nodes, retry=no_retry, **options)
        else:
            from redis import Redis

            host, port = target.nodes[0]
            self._client = Redis(host=host, port=port, db=target.db, retry=no_retry, **options)

    def run(self, commands: Sequence[Sequence[object]]) -> list[Any]:
        """Send `commands` in one pipeline and return their replies in order (raises the first error)."""
        if len(commands) == 1:
            return [self._client.execute_command(*commands[0])]
        pipe = self._client.pipeline(transaction=False)
        for command in commands:  # execute_command: a cluster pipeline has no `eval`
            pipe.execute_command(*command)
        return list(pipe.execute())

    def close(self) -> None:
        """Close every connection. Idempotent."""
        self._client.close()


def empty_db(target: RedisTarget, timeout: float) -> int:
    """The lowest database above 0 that holds no key, asked of the server; 1 if it cannot be asked."""
    client = RedisClient(target, timeout=timeout)
    try:
        (keyspace,) = client.run([("INFO", "keyspace")])
    except Exception:  # noqa: BLE001 - only a suggestion: an unreachable server must not hide the real error
        return 1
    finally:
        client.close()
    used = {int(name[2:]) for name in keyspace if name[:2] == "db" and name[2:].isdigit()}
    return next((n for n in range(1, _MAX_DB_SUGGESTION) if n not in used), 1)


def translate(exc: Exception, display: str) -> StoreError | None:
    """Our error for a redis-py exception, or None when `exc` is not one of redis-py's."""
    from redis import exceptions as rx

    if isinstance(exc, (rx.AuthenticationError, rx.AuthorizationError, rx.NoPermissionError)):
        return StoreError(f"redis store {display}: authentication failed: {exc}")
    if isinstance(exc, (rx.BusyLoadingError, rx.ClusterError, rx.ReadOnlyError, rx.TryAgainError)):
        return StoreUnavailable(f"redis store {display} unavailable: {exc or type(exc).__name__}")
    if isinstance(exc, (rx.ConnectionError, rx.TimeoutError)):  # refused, reset, silent, TLS refused
        return StoreUnavailable(f"redis store {display} unreachable: {exc or type(exc).__name__}")
    if isinstance(exc, rx.RedisClusterException):
        # Raised while discovering the cluster's slots: unreachable start-up nodes end up here.
        if isinstance(exc.__cause__, (rx.ConnectionError, rx.TimeoutError, OSError)):
            return StoreUnavailable(f"redis store {display} unreachable: {exc}")
        return StoreError(f"redis store {display}: {exc}")
    if isinstance(exc, rx.ResponseError) and str(exc).startswith(_BUSY_CODES):
        return StoreUnavailable(f"redis store {display} unavailable: {exc}")
    if isinstance(exc, rx.RedisError):
        return StoreError(f"redis store {display}: {exc}")
    return None
