"""The Redis store on a 3-master Redis Cluster the suite starts on loopback: conformance, slots, round trips."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from memory_core.models import Scope
from memory_core.store.redis import RedisStore
from memory_testing.requirements import require
from memory_testing.servers import flush_redis, redis_cluster
from memory_testing.store_conformance import StoreConformance, make_record

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture(scope="module")
def cluster_url() -> Iterator[str]:
    require(bool(shutil.which("redis-server") and shutil.which("redis-cli")), "redis-server and redis-cli")
    with redis_cluster() as url:
        yield url


@pytest.fixture
def empty_cluster(cluster_url: str) -> str:
    flush_redis(cluster_url)
    return cluster_url


class TestRedisClusterConformance(StoreConformance):
    @pytest.fixture
    def store(self, empty_cluster: str) -> Iterator[RedisStore]:
        store = RedisStore.from_url(empty_cluster)
        yield store
        store.close()


def _cluster(url: str):  # type: ignore[no-untyped-def]
    from redis.cluster import RedisCluster

    host, _, port = url.split("://", 1)[1].rpartition(":")
    return RedisCluster(host=host, port=int(port), decode_responses=True)


def test_each_scope_lives_in_one_slot_and_scopes_spread_over_masters(empty_cluster: str) -> None:
    store = RedisStore.from_url(empty_cluster)
    scopes = [Scope("project", f"github.com/acme/repo{n}") for n in range(12)]
    for n, scope in enumerate(scopes):
        store.put(make_record(f"r{n}", "retry policy", scope=scope, author=f"a{n}"), {"retry": 1, "policy": 1})
    store.close()
    cluster = _cluster(empty_cluster)
    try:
        keys = list(cluster.scan_iter("*"))
        slots_by_scope: dict[str, set[int]] = {}
        for key in keys:
            tag = key[key.index("{") + 1 : key.index("}")]
            slots_by_scope.setdefault(tag, set()).add(int(cluster.keyslot(key)))
        nodes = {cluster.get_node_from_key(key).name for key in keys}
    finally:
        cluster.close()
    assert all(len(slots) == 1 for slots in slots_by_scope.values())
    assert len(slots_by_scope) == 13  # twelve projects and the global tag
    assert len(nodes) >= 2


def _commands_processed(url: str) -> int:
    from redis.cluster import RedisCluster

    cluster = _cluster(url)
    try:
        stats = cluster.info("stats", target_nodes=RedisCluster.PRIMARIES)
    finally:
        cluster.close()
    values = stats.values() if isinstance(next(iter(stats.values())), dict) else [stats]
    return sum(int(v["total_commands_processed"]) for v in values)


def _seed(store: RedisStore, scope: Scope, first: int, count: int) -> None:
    for n in range(first, first + count):
        common = {"retry": 1, "policy": 1} if n % 3 == 0 else {"cache": 1}
        store.put(make_record(f"r{n}", "x", scope=scope, created_at=1.0 + n, seq=n), {**common, f"t{n}": 1})


def test_recall_round_trips_do_not_grow_with_the_scope(empty_cluster: str) -> None:
    """The reads recall makes cost the same number of server commands at 200 and at 1,200 records."""
    project, user = Scope("project", "github.com/acme/widgets"), Scope("user", "alice")
    store = RedisStore.from_url(empty_cluster)

    def recall_cost() -> int:
        store.ping()  # connections open before counting
        before = _commands_processed(empty_cluster)
        store.index_stats([project, user])
        found = store.postings([project, user], ["retry", "policy", "nothing"], max_df=100_000)
        ids = sorted({p.record_id for tp in found.values() for p in tp.postings})[:5]
        store.get(ids)
        store.session_records(project, "s1", [0, 1, 2])
        return _commands_processed(empty_cluster) - before

    _seed(store, project, 0, 200)
    small = recall_cost()
    _seed(store, project, 200, 1000)
    large = recall_cost()
    store.close()
    assert large == small


def test_scope_keys_and_authors_with_braces_colons_and_unicode_work_on_a_cluster(empty_cluster: str) -> None:
    store = RedisStore.from_url(empty_cluster)
    scopes = [Scope("project", "gitlab.com/a}b{c"), Scope("project", "ünïcode/项目:main"), Scope("user", "Zoë O'Brien")]
    for n, scope in enumerate(scopes):
        record = make_record(f"odd-{n}", f"retry policy {n}", scope=scope, author="Zoë O'Brien", session_id="s:{1}")
        assert store.put(record, {"retry": 1, "polici": 1})
    assert store.count(scopes) == 3
    assert store.postings(scopes, ["retry"])["retry"].df == 3
    assert [r.id for r in store.scan(scopes, author="Zoë O'Brien")] == ["odd-0", "odd-1", "odd-2"]
    assert [r.scope for r in store.get(["odd-2", "odd-0"])] == [scopes[2], scopes[0]]
    assert [r.id for r in store.session_records(scopes[1], "s:{1}", [0])] == ["odd-1"]
    assert store.delete(["odd-0", "odd-1", "odd-2"]) == 3
    assert store.index_stats(scopes).documents == 0
    store.close()
