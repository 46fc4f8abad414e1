"""The Redis store's path to a Redis Cluster: redis-py's cluster client behind a `run(commands)` shape.

A cluster needs slot maps and redirections, which redis-py handles; a standalone server goes
through `_resp`, which is much cheaper to import. `ClusterRunner.run` sends a batch as one
redis-py cluster pipeline (one round trip per node involved) and returns the replies, with
redis-py's reply conversions (a hash is a dict, INFO a dict per node).

Failure: `translate` maps redis-py's exceptions onto ours: unreachable nodes, timeouts and a
failed cluster state -> `StoreUnavailable`; bad credentials and anything else -> `StoreError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memory_core.errors import StoreError, StoreUnavailable
from memory_core.store._redis_url import RedisTarget, connection_options
from memory_core.store._resp import AUTH_CODES, UNAVAILABLE_CODES

__all__ = ["ClusterRunner", "translate"]


class ClusterRunner:
    """A connected redis-py `RedisCluster` that runs batches of raw commands."""

    def __init__(self, target: RedisTarget, *, timeout: float) -> None:
        from redis.cluster import ClusterNode, RedisCluster

        options: dict[str, Any] = {
            **connection_options(timeout),
            **dict(target.query),
            "decode_responses": True,
            "username": target.username,
            "password": target.password,
            "ssl": target.ssl,
        }
        nodes = [ClusterNode(host, port) for host, port in target.nodes]  # type: ignore[no-untyped-call]
        self._cluster: Any = RedisCluster(startup_nodes=nodes, **options)  # connects: learns the slot map

    def run(self, commands: Sequence[Sequence[object]]) -> list[Any]:
        """Send `commands` (one pipeline, split by node) and return their replies in order."""
        if len(commands) == 1:
            return [self._cluster.execute_command(*commands[0])]
        pipe = self._cluster.pipeline()
        for command in commands:  # execute_command: redis-py's cluster pipeline has no `eval`
            pipe.execute_command(*command)
        return list(pipe.execute())

    def close(self) -> None:
        """Close every node connection."""
        self._cluster.close()


def translate(exc: Exception, display: str) -> StoreError | None:
    """Our error for a redis-py exception, or None when `exc` is not one of redis-py's."""
    from redis import exceptions as rx

    if isinstance(exc, rx.AuthenticationError):
        return StoreError(f"redis cluster {display}: authentication failed: {exc}")
    if isinstance(exc, (rx.ConnectionError, rx.TimeoutError, rx.ClusterError)):
        return StoreUnavailable(f"redis cluster {display} unreachable: {exc or type(exc).__name__}")
    if isinstance(exc, rx.RedisClusterException):
        # Raised while discovering the cluster's slots: unreachable start-up nodes end up here.
        if isinstance(exc.__cause__, (rx.ConnectionError, rx.TimeoutError, OSError)):
            return StoreUnavailable(f"redis cluster {display} unreachable: {exc}")
        return StoreError(f"redis cluster {display}: {exc}")
    if isinstance(exc, rx.ResponseError):
        message = str(exc)
        if message.startswith(UNAVAILABLE_CODES):
            return StoreUnavailable(f"redis cluster {display} unavailable: {message}")
        if message.startswith(AUTH_CODES):
            return StoreError(f"redis cluster {display}: authentication failed: {message}")
        return StoreError(f"redis cluster {display}: {message}")
    if isinstance(exc, rx.RedisError):
        return StoreError(f"redis cluster {display}: {exc}")
    return None
