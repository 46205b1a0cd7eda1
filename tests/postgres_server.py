"""A real PostgreSQL server for the tests, started once per test session: `initdb` and
`pg_ctl` (run as the `postgres` user when the tests run as root, as PostgreSQL refuses
root) in a temporary folder, listening on a Unix socket in that folder and on localhost
at a free port, stopped and removed at the end. A role `histnorm` logs in over TCP with
a password (`scram-sha-256`), so the tests pass a password in the connection string.

Where PostgreSQL is not installed the tests fail, saying what to install."""

from __future__ import annotations

import glob
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PASSWORD = "s3cret-Pg-pw"
ROLE = "histnorm"
INSTALL = (
    "PostgreSQL's server programs (initdb, pg_ctl, postgres) were not found on PATH or "
    "in /usr/lib/postgresql/*/bin: install them (Debian: apt-get install postgresql)"
)


def _program(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Server:
    folder: Path
    port: int
    user: list[str]
    """The command prefix that runs a program as the server's owner."""

    def admin(self, sql: str) -> None:
        import psycopg

        dsn = f"host={self.folder} port={self.port} user=postgres dbname=postgres"
        with psycopg.connect(dsn, autocommit=True) as db:
            db.execute(sql)

    def database(self, name: str) -> str:
        """A new, empty database owned by the `histnorm` role: its connection string."""
        base = re.sub(r"[^a-z0-9]+", "_", name.lower())[:40]
        dbname = f"t_{base}_{os.urandom(3).hex()}"
        self.admin(f'CREATE DATABASE "{dbname}" OWNER {ROLE}')
        return f"postgresql://{ROLE}:{PASSWORD}@127.0.0.1:{self.port}/{dbname}"

    @staticmethod
    def free_port() -> int:
        return free_port()


def server_for_tests() -> Iterator[Server]:
    """Start the server, yield it, stop it (for a session-scoped fixture)."""
    initdb, pg_ctl = _program("initdb"), _program("pg_ctl")
    if initdb is None or pg_ctl is None:
        pytest.fail(INSTALL, pytrace=False)
    user: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="histnorm-pg-"))
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        user = ["runuser", "-u", "postgres", "--"]
    data, log = folder / "data", folder / "server.log"
    port = free_port()
    try:
        subprocess.run(
            [*user, initdb, "-D", str(data), "-U", "postgres", "--auth-local=trust",
             "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C"],
            check=True, capture_output=True,
        )  # fmt: skip
        options = (
            f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={folder} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        subprocess.run(
            [*user, pg_ctl, "-D", str(data), "-l", str(log), "-o", options, "-w", "start"],
            check=True, capture_output=True,
        )  # fmt: skip
        server = Server(folder, port, user)
        server.admin(f"CREATE ROLE {ROLE} LOGIN PASSWORD '{PASSWORD}'")
        yield server
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(
                [*user, pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop"],
                check=False, capture_output=True,
            )  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)
