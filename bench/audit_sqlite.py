"""How the audit reads SQLite (issue 10 item 4): the key columns of a real reference index, several ways.

    python bench/audit_sqlite.py --entries 300000            # generate a project, index it, measure
    python bench/audit_sqlite.py --index PATH --ways scanner,arrow   # in a venv with those pieces

A generated project (``--sessions`` files of equal length, messages of 50 random words) is
caught up into a fresh index by the reference's indexer.  Each way then loads the audit's key
columns (``entries`` without its text, ``entry_source_locations``, ``entries_fts_keys``) into a
DuckDB table and checks the counts; best of ``--repeat``.  Figures only, never assertions;
docs/audit.md "Reading SQLite" has the table.

scanner   DuckDB's sqlite extension LOADed from the ``duckdb-extension-sqlite-scanner`` wheel
arrow     stdlib sqlite3, ``fetchmany`` batches -> pyarrow record batches -> DuckDB
csv       stdlib sqlite3 -> a temporary CSV (csv module) -> ``read_csv`` (loses NULL vs '')
ndjson    stdlib sqlite3 -> a temporary NDJSON (``json.dumps`` per row) -> ``read_json``
msgspec   stdlib sqlite3 -> a temporary NDJSON (msgspec ``encode_lines`` per batch) -> ``read_json``
audit     ``conformance.audit.projection.load_projection`` itself (every view, the shipped mapping)
bare      stdlib sqlite3 reading the same rows, nothing else (the floor of every sqlite3 way)
copy      copying the index file alone (what a WAL with frames costs first)
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import random
import shutil
import sqlite3
import string
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

QUERIES = {
    "entries": "SELECT session_id, entry_key, entry_id, parent_id, entry_type, role, created_at, content_hash "
               "FROM entries",
    "locations": "SELECT entry_key, start_offset, end_offset FROM entry_source_locations",
    "fts_keys": "SELECT fts_rowid, entry_key FROM entries_fts_keys",
}
CHECK = "SELECT (SELECT count(*) FROM entries), (SELECT count(*) FROM locations), (SELECT count(*) FROM fts_keys)"


def _ts(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def generate(root: Path, sessions: int, per_session: int) -> Path:
    """A project of generated sessions caught up by the reference into ``root/index.sqlite``."""
    from reference.recall.catchup import catch_up
    from reference.recall.index_schema import open_index

    project, folder, index = root / "project", root / "sessions", root / "index.sqlite"
    project.mkdir(parents=True)
    folder.mkdir()
    rnd = random.Random(7)
    words = ["".join(rnd.choices(string.ascii_lowercase, k=rnd.randint(2, 9))) for _ in range(5000)]
    connection = open_index(index)
    for number in range(sessions):
        sid, base = f"sess{number:04d}", 1_750_000_000_000 + number * 10_000_000
        lines = [json.dumps({"type": "session", "version": 3, "id": sid, "timestamp": _ts(base), "cwd": str(project)})]
        for i in range(per_session):
            role, text = ("user", "assistant")[i % 2], " ".join(rnd.choices(words, k=50))
            lines.append(json.dumps({"type": "message", "id": f"{number:04x}{i:06x}",
                                     "parentId": f"{number:04x}{i - 1:06x}" if i else None,
                                     "timestamp": _ts(base + i * 1000),
                                     "message": {"role": role, "content": [{"type": "text", "text": text}],
                                                 "timestamp": base + i * 1000}}))
        path = folder / f"2025-06-01T12-00-00-000Z_{sid}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        catch_up(connection, str(path))
    connection.close()
    return index


def _connect() -> duckdb.DuckDBPyConnection:
    return duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False,
                                  "extension_directory": tempfile.mkdtemp()})


def _source(index: Path) -> sqlite3.Connection:
    return sqlite3.connect(index.absolute().as_uri() + "?mode=ro&immutable=1", uri=True)


def way_scanner(index: Path, con: duckdb.DuckDBPyConnection) -> None:
    import duckdb_extension_sqlite_scanner as ext  # type: ignore[import-not-found]

    con.execute(f"LOAD '{next(Path(ext.__file__).parent.rglob('*.duckdb_extension'))}'")
    con.execute(f"ATTACH '{index}' AS s (TYPE sqlite, READ_ONLY)")
    for name, sql in QUERIES.items():
        con.execute(f"CREATE TABLE {name} AS " + sql.replace(" FROM ", " FROM s."))


def way_arrow(index: Path, con: duckdb.DuckDBPyConnection) -> None:
    import pyarrow as pa  # type: ignore[import-not-found]

    for name, sql in QUERIES.items():
        cursor = _source(index).execute(sql)
        names = [d[0] for d in cursor.description]
        batches = []
        while chunk := cursor.fetchmany(50_000):
            batches.append(pa.record_batch([pa.array(c) for c in zip(*chunk, strict=True)], names=names))
        con.register(f"t_{name}", pa.Table.from_batches(batches))
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM t_{name}")


def _via_file(index: Path, con: duckdb.DuckDBPyConnection, suffix: str, write: Callable[..., None],
              reader: str) -> None:
    folder = tempfile.mkdtemp()
    for name, sql in QUERIES.items():
        cursor = _source(index).execute(sql)
        path = os.path.join(folder, name + suffix)
        write(cursor, [d[0] for d in cursor.description], path)
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM {reader}('{path}')")
    shutil.rmtree(folder)


def _write_csv(cursor: sqlite3.Cursor, names: list[str], path: str) -> None:
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(names)
        while chunk := cursor.fetchmany(50_000):
            writer.writerows(chunk)


def _write_ndjson(cursor: sqlite3.Cursor, names: list[str], path: str) -> None:
    with open(path, "w", encoding="utf-8") as out:
        while chunk := cursor.fetchmany(50_000):
            out.write("".join(json.dumps(dict(zip(names, row, strict=True))) + "\n" for row in chunk))


def _write_msgspec(cursor: sqlite3.Cursor, names: list[str], path: str) -> None:
    import msgspec

    encoder = msgspec.json.Encoder()
    with open(path, "wb") as out:
        while chunk := cursor.fetchmany(50_000):
            out.write(encoder.encode_lines([dict(zip(names, row, strict=True)) for row in chunk]))


def way_csv(index: Path, con: duckdb.DuckDBPyConnection) -> None:
    _via_file(index, con, ".csv", _write_csv, "read_csv")


def way_ndjson(index: Path, con: duckdb.DuckDBPyConnection) -> None:
    _via_file(index, con, ".ndjson", _write_ndjson, "read_json")


def way_msgspec(index: Path, con: duckdb.DuckDBPyConnection) -> None:
    _via_file(index, con, ".ndjson", _write_msgspec, "read_json")


def way_audit(index: Path, con: duckdb.DuckDBPyConnection) -> None:
    from conformance.audit.connection import offline_connection
    from conformance.audit.mapping import reference_mapping
    from conformance.audit.projection import load_projection

    with offline_connection() as audit:
        load_projection(audit, index, [], reference_mapping())
        for name, view in (("entries", "proj_entries"), ("locations", "proj_locations"), ("fts_keys", "proj_fts_keys")):
            con.execute(f"CREATE TABLE {name} AS SELECT * FROM range(?)", [audit.execute(
                f"SELECT count(*) FROM {view}").fetchone()[0]])  # type: ignore[index]


def way_bare(index: Path, con: duckdb.DuckDBPyConnection) -> None:
    for sql in QUERIES.values():
        sum(1 for _ in _source(index).execute(sql))


def way_copy(index: Path, con: duckdb.DuckDBPyConnection) -> None:
    with tempfile.TemporaryDirectory() as folder:
        shutil.copyfile(index, Path(folder) / index.name)


def measure(index: Path, way: str, repeat: int) -> dict[str, Any]:
    best, counts = float("inf"), None
    for _ in range(repeat):
        con = _connect()
        started = time.perf_counter()
        globals()[f"way_{way}"](index, con)
        counts = con.execute(CHECK).fetchone() if way not in ("bare", "copy") else None
        best = min(best, time.perf_counter() - started)
    return {"way": way, "seconds": round(best, 3), "counts": counts, "duckdb": duckdb.__version__}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--index", type=Path, help="an existing reference index (else one is generated)")
    parser.add_argument("--entries", type=int, default=300_000)
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--ways", default="msgspec,csv,ndjson,audit,bare,copy")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as scratch:
        index = args.index or generate(Path(scratch), args.sessions, args.entries // args.sessions)
        print(f"index {index}: {index.stat().st_size / 2**20:.0f} MiB", flush=True)
        for way in args.ways.split(","):
            try:
                print(json.dumps(measure(index, way, args.repeat)), flush=True)
            except ImportError as exc:
                print(json.dumps({"way": way, "unavailable": str(exc)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
