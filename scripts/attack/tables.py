"""Mutated tables against every verb that opens one.

Each mutant is judged against the same verb on the intact table, at the same
path: the verb must answer exactly as on the intact table (the mutation left
what it reads valid) or fail with status non-zero and a one-line error that
names the file. `check` must never pass a mutant whose header or records changed.
"""

import os
import random
import struct

from common import run
from xxh3 import xxh3_64

BUILDS = {
    "io7.tab": ["build", "ioiwari"],
    "io.tab": ["build", "ioiwari", "--pits", "5", "--cap", "3"],
    "ka.tab": ["build", "kalah", "--pits", "2", "--seeds", "2"],
    "kav.tab": ["build", "kalah", "--pits", "2", "--seeds", "2", "--values-only"],
    "kas.tab": ["build", "kalah", "--pits", "2", "--seeds", "2", "--no-empty-capture", "--ending", "mover-stuck"],
    "to.tab": ["build", "tonga"],
    "do.tab": ["build", "dominoes"],
}
SMALL = ("io7.tab", "io.tab", "ka.tab", "kav.tab", "kas.tab")
IO_ARGS = ["--beads", "12", "--low", "2", "--high", "3"]
DOMINO = "0-1 2-4 / 3-3 1-4 / 0 2 / 0".split()


def readers(*verbs):
    """The game-free verbs that open a table file: `tabula VERB FILE`."""
    return [(verb, [verb, "{t}"], b"") for verb in verbs]


# Table -> the verbs that open it: (name, argv after the binary with {t} for the file, stdin).
VERBS = {
    "io.tab": [
        *readers("check", "info", "export"),
        ("query", ["query", "ioiwari", "--table", "{t}", "3 3 2 2 2"], b""),
        ("play", ["play", "ioiwari", "--table", "{t}"], b"3 3 2 2 2\n1\n"),
        ("serve", ["serve", "ioiwari", "--table", "{t}"], b"3 3 2 2 2\n1\n"),
        ("verify", ["verify", "ioiwari", "--table", "{t}", *IO_ARGS], b""),
        ("referee", ["referee", "ioiwari", "--table", "{t}", "--agent", "random", *IO_ARGS], b""),
    ],
    "ka.tab": [
        *readers("check", "info", "export"),
        ("query", ["query", "kalah", "--table", "{t}", "2 2 / 2 2"], b""),
        ("play", ["play", "kalah", "--table", "{t}"], b"2\n1\n2\n1\n2\n1\n"),
        ("serve", ["serve", "kalah", "--agent", "optimal", "--table", "{t}"],
         b"kalah 2 2 you are player 1\nyour move: 2 2 / 2 2 stores 0 0\n"),
        ("referee", ["referee", "kalah", "--table", "{t}", "--agent", "random"], b""),
    ],
    "to.tab": [
        *readers("check", "info"),
        ("query", ["query", "tonga", "--table", "{t}"], b""),
    ],
    "do.tab": [
        *readers("check", "info"),
        ("query", ["query", "dominoes", "--table", "{t}", *DOMINO], b""),
    ],
}
VERBS["kav.tab"] = [v for v in VERBS["ka.tab"] if v[0] != "serve"]
VERBS["kas.tab"] = [(n, [a for a in argv], s) for n, argv, s in VERBS["ka.tab"] if n in ("check", "info", "query")]
GAME_OF = {"io.tab": "ioiwari", "ka.tab": "kalah", "kav.tab": "kalah", "kas.tab": "kalah",
           "to.tab": "tonga", "do.tab": "dominoes"}

# Header fields: (name, offset, struct format).
FIELDS = [("version", 8, "<I"), ("header size", 12, "<I"), ("game name", 16, "16s"),
          ("parameter 0", 32, "<I"), ("parameter 1", 36, "<I"), ("parameter 2", 40, "<I"),
          ("parameter 3", 44, "<I"), ("value bytes", 48, "<B"), ("mask bytes", 49, "<B"),
          ("reserved", 50, "<B"), ("entries", 56, "<Q"), ("metadata offset", 64, "<Q"),
          ("metadata length", 72, "<Q"), ("payload offset", 80, "<Q"), ("payload length", 88, "<Q"),
          ("metadata hash", 96, "<Q"), ("payload hash", 104, "<Q"), ("reserved 2", 112, "<Q")]


def build_small(binary, work):
    """The tables the referees need (the small ones)."""
    for name in ("io7.tab",):
        build(binary, work, name)


def build(binary, work, name):
    """Builds one table into work, once."""
    path = os.path.join(work, name)
    if not os.path.exists(path):
        r = run([binary, *BUILDS[name], "-o", path], limit=600)
        if r.rc != 0:
            raise SystemExit(f"error: building {name} failed: {r.err.decode(errors='replace')}")
    return path


def seal(data, meta=False, payload=False):
    """Recomputes the header's checksum (and the metadata's or payload's first)."""
    data = bytearray(data)
    mo, ml, po, pl = struct.unpack_from("<QQQQ", data, 64)
    if meta:
        struct.pack_into("<Q", data, 96, xxh3_64(bytes(data[mo:mo + ml])))
    if payload:
        struct.pack_into("<Q", data, 104, xxh3_64(bytes(data[po:po + pl])))
    struct.pack_into("<Q", data, 120, xxh3_64(bytes(data[:120])))
    return bytes(data)


def field_values(rng, old, fmt):
    """A few hostile values for a header field."""
    if fmt == "16s":
        return [b"kalah".ljust(16, b"\0"), b"ioiwari".ljust(16, b"\0"), b"\xff" * 16, b"tonga\0x".ljust(16, b"\0")]
    top = (1 << (8 * struct.calcsize(fmt))) - 1
    values = {0, 1, 2, old + 1, max(old - 1, 0), top, top >> 1, rng.randrange(top + 1)}
    return sorted(v for v in values if v != old)


def mutants(data, rng, small):
    """(kind, name, bytes) of every mutant of one table, one at a time
    (a list of them all would hold a copy of a large table per mutant)."""
    mo, ml, po, pl = struct.unpack_from("<QQQQ", data, 64)
    regions = [("header", 0, 128), ("metadata", mo, mo + ml), ("payload", po, po + pl)]
    if po > mo + ml:
        regions.append(("padding", mo + ml, po))
    flips = 6 if small else 2
    for region, lo, hi in regions:
        for _ in range(flips if region != "payload" or small else 1):
            i, bit = rng.randrange(lo, hi), rng.randrange(8)
            m = bytearray(data)
            m[i] ^= 1 << bit
            yield (("bit flip", f"bit {bit} of byte {i} ({region})", bytes(m)))
    for n in sorted({0, 1, 64, 127, 128, 4095, po, po + 1, len(data) - 1, rng.randrange(len(data))}):
        if n < len(data):
            yield (("truncation", f"cut to {n} bytes", data[:n]))
    for extra in (b"\0", b"\0" * 4096, bytes(rng.randrange(256) for _ in range(100))):
        yield (("extension", f"{len(extra)} bytes appended", data + extra))
    for name, offset, fmt in FIELDS:
        (old,) = struct.unpack_from(fmt, data, offset)
        values = field_values(rng, old, fmt)
        if not small:
            values = values[:2]
        for value in values:
            m = bytearray(data)
            struct.pack_into(fmt, m, offset, value)
            show = value if fmt != "16s" else value.rstrip(b"\0").decode(errors="replace")
            yield (("header field", f"{name} = {show}", bytes(m)))
            yield (("header field, sealed", f"{name} = {show}, header hash recomputed", seal(m)))
    m = bytearray(data)
    m[mo:mo + ml] = bytes(rng.randrange(32, 127) for _ in range(ml))
    yield (("metadata forged, sealed", "metadata rewritten, hashes recomputed", seal(m, meta=True)))
    if small:
        rec = data[48] + data[49]
        for _ in range(6):
            m = bytearray(data)
            i = po + rng.randrange(pl // rec) * rec + rng.randrange(rec)
            m[i] = (m[i] + rng.randrange(1, 256)) % 256
            yield (("payload forged, sealed", f"byte {i} changed, hashes recomputed",
                        seal(m, payload=True)))


def attack(binary, work, tally, seed, games=None):
    """Every mutant of every table against every verb that opens it."""
    rng = random.Random(seed)
    for table, verbs in VERBS.items():
        if games and GAME_OF[table] not in games:
            continue
        intact = open(build(binary, work, table), "rb").read()
        target = os.path.join(work, "mutant-" + table)
        with open(target, "wb") as f:
            f.write(intact)
        reference = {name: run(cmd(binary, argv, target), stdin) for name, argv, stdin in verbs}
        for name, ref in reference.items():
            if b"unexpected argument" in ref.err or b"Usage:" in ref.err or ref.panicked():
                raise SystemExit(f"error: `{name}` fails on the intact {table}: {ref.err.decode(errors='replace')}")
        for kind, what, data in mutants(intact, rng, table in SMALL):
            with open(target, "wb") as f:
                f.write(data)
            changed = data[:len(intact)] != intact or len(data) < len(intact)
            for name, argv, stdin in verbs:
                r = run(cmd(binary, argv, target), stdin, limit=300)
                failures = judge(r, reference[name], name, target, changed)
                tally.case(f"{GAME_OF[table]} {table[:-4]} {name}", failures,
                           f"{kind}: {what}: rc {r.rc}: {r.err[-300:]!r} {r.out[:200]!r}")
                if failures:
                    print(f"FAIL {table} {name} {kind}: {what}: {failures} rc {r.rc} "
                          f"{r.err[-300:]!r} {r.out[:200]!r}", flush=True)
            print(f"ok   {table} {kind}: {what}", flush=True)


def cmd(binary, argv, target):
    """The command line of one verb on the table at target."""
    return [binary, *[a.replace("{t}", target) for a in argv]]


def judge(r, ref, verb, target, changed):
    """Failure kinds of one verb on one mutant."""
    if r.hung:
        return ["hang"]
    if r.panicked():
        return ["panic or signal"]
    if (r.rc, r.out, r.err) == (ref.rc, ref.out, ref.err):
        if verb == "check" and changed:
            return ["check passed a changed table"]
        return []
    if r.rc == 0:
        # info prints the header as it is: a changed field shows, rightly.
        return [] if verb == "info" else ["wrong answer"]
    lines = [l for l in r.err.decode(errors="replace").splitlines() if l and not l.startswith("progress:")]
    if len(lines) != 1 or target not in lines[0] or not lines[0].startswith("error:"):
        return ["unclear error"]
    return []


KIND_COLUMNS = ["hang", "panic or signal", "wrong answer", "unclear error", "check passed a changed table"]
