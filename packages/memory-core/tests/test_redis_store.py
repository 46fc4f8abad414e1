"""The Redis store on a throwaway Redis of the test run (database 13, flushed around each test).

Conformance, the URL rules (database 0, a missing database number, schemes), and the key layout;
racing writers and neighbours fetched with `get` through `conftest`'s checks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from memory_core.errors import ConfigError
from memory_core.models import Scope
from memory_core.store import open_store
from memory_core.store.redis import RedisStore
from memory_testing.requirements import require
from memory_testing.servers import flush_redis, local_redis_available, redis_server_available, throwaway_redis_url
from memory_testing.store_conformance import StoreConformance, make_record

pytestmark = pytest.mark.redis


@pytest.fixture
def redis_url() -> Iterator[str]:
    require(redis_server_available(), "redis-server (a throwaway Redis for the tests)")
    url = throwaway_redis_url(13)
    flush_redis(url)
    yield url
    flush_redis(url)


class TestRedisConformance(StoreConformance):
    @pytest.fixture
    def store(self, redis_url: str) -> Iterator[RedisStore]:
        store = RedisStore.from_url(redis_url)
        yield store
        store.close()


def test_database_zero_is_refused_naming_the_variable_and_an_empty_database() -> None:
    require(local_redis_available(), "Redis on 127.0.0.1:6379")
    with pytest.raises(ConfigError) as caught:
        open_store("redis://127.0.0.1:6379/0")
    message = str(caught.value)
    assert "MEMORY_ALLOW_DB0=1" in message
    assert "MEMORY_URL=redis://127.0.0.1:6379/" in message
    suggested = int(message.split("MEMORY_URL=redis://127.0.0.1:6379/", 1)[1].split()[0])
    assert suggested > 0


def test_database_zero_is_allowed_on_purpose() -> None:
    store = open_store("redis://127.0.0.1:6379/0", allow_db0=True)
    assert isinstance(store, RedisStore)
    store.close()


def test_a_url_without_a_database_number_is_an_error() -> None:
    with pytest.raises(ConfigError, match="names no Redis database number"):
        open_store("redis://127.0.0.1:6379")
    with pytest.raises(ConfigError, match="names no Redis database number"):
        open_store("valkey://127.0.0.1:6379/")


def test_the_database_may_also_come_from_the_query() -> None:
    store = open_store("redis://127.0.0.1:6379?db=13")
    assert isinstance(store, RedisStore)
    store.close()


def test_schemes_and_cluster_urls_parse() -> None:
    tls = open_store("rediss://user:secret@cache.example:6380/2")
    assert isinstance(tls, RedisStore)
    assert "secret" not in tls.display_url
    assert "***" in tls.display_url
    valkey = open_store("valkey://127.0.0.1:6379/4")
    assert isinstance(valkey, RedisStore)
    for scheme in ("redis+cluster", "valkey+cluster", "rediss+cluster", "valkeys+cluster"):
        assert isinstance(open_store(f"{scheme}://127.0.0.1:7000"), RedisStore)
    with pytest.raises(ConfigError, match="only database 0"):
        open_store("redis+cluster://127.0.0.1:7000/3")


def test_a_url_option_memory_does_not_use_is_an_error_not_a_silent_drop() -> None:
    with pytest.raises(ConfigError, match="socket_keepalive"):
        open_store("redis://127.0.0.1:6379/13?socket_keepalive=true")
    with pytest.raises(ConfigError, match="ssl_cert_reqs"):
        open_store("rediss://127.0.0.1:6379/13?ssl_cert_reqs=sometimes")


def test_every_key_of_a_scope_shares_one_hash_tag(redis_url: str) -> None:
    import redis

    store = RedisStore.from_url(redis_url)
    scope = Scope("project", "github.com/acme/widgets")
    for n in range(5):
        record = make_record(f"r{n}", f"retry policy number {n}", scope=scope, session_id="s", seq=n)
        store.put(record, {"retry": 1, "policy": 1, f"n{n}": 1})
    store.put(make_record("u1", "user pref", scope=Scope("user", "alice")), {"user": 1})
    store.close()
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    keys = sorted(client.keys("*"))
    client.close()
    tags = {key[key.index("{") + 1 : key.index("}")] for key in keys}
    assert tags == {"project:github.com/acme/widgets", "user:alice", "g"}
    assert all(key.startswith("memory:{") for key in keys)


def test_neighbours_fetched_with_get_answer_session_records_like_the_server(
    redis_url: str, neighbours_like_the_server: Callable[[str], None]
) -> None:
    neighbours_like_the_server(redis_url)


def test_rediss_speaks_tls_and_checks_the_certificate() -> None:
    import shutil

    from memory_core.errors import StoreUnavailable
    from memory_testing.servers import redis_tls

    require(bool(shutil.which("redis-server") and shutil.which("openssl")), "redis-server with TLS, and openssl")
    with redis_tls() as url:
        store = open_store(url)
        assert store.ping().startswith(("Redis", "Valkey"))
        assert store.put(make_record("r1", "over tls"), {"tls": 1})
        assert [r.text for r in store.get(["r1"])] == ["over tls"]
        store.close()
        plain = open_store(url.replace("rediss://", "redis://").split("?", 1)[0], timeout=0.5)
        with pytest.raises(StoreUnavailable):
            plain.ping()
        plain.close()
        unverified = open_store(url.split("?", 1)[0], timeout=0.5)  # no CA given: the self-signed cert is refused
        with pytest.raises(StoreUnavailable):
            unverified.ping()
        unverified.close()


def test_passwords_and_acl_users_authenticate_and_a_wrong_one_is_a_store_error() -> None:
    import shutil

    from memory_core.errors import StoreError, StoreUnavailable
    from memory_testing.servers import redis_server

    require(bool(shutil.which("redis-server")), "redis-server")
    with redis_server("--requirepass", "s3cret", "--user", "alice", "on", ">wonderland", "~*", "&*", "+@all") as (
        host,
        port,
    ):
        for url in (f"redis://:s3cret@{host}:{port}/2", f"redis://alice:wonderland@{host}:{port}/2"):
            store = open_store(url)
            assert store.put(make_record("r1", "authenticated"), {"auth": 1}) in (True, False)
            assert [r.text for r in store.get(["r1"])] == ["authenticated"]
            assert "s3cret" not in store.display_url
            assert "wonderland" not in store.display_url
            store.close()
        for url in (f"redis://:wrong@{host}:{port}/2", f"redis://{host}:{port}/2"):
            store = open_store(url)
            with pytest.raises(StoreError) as caught:
                store.count(None)
            assert not isinstance(caught.value, StoreUnavailable)
            store.close()


def test_two_writers_racing_on_one_turn_exactly_one_claims_it(
    redis_url: str, race_for_a_turn: Callable[[str], None]
) -> None:
    race_for_a_turn(redis_url)


def test_two_write_events_racing_for_one_prompt_exactly_one_gets_it(
    redis_url: str, race_for_a_prompt: Callable[[str], None]
) -> None:
    race_for_a_prompt(redis_url)
