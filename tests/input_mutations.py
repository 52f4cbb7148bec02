"""Seeded generators of hostile and odd inputs for the surfaces besides project files: supplier
quotes, sweep specs, LLDP tables, traffic CSVs and perftest output.

Each input is either *written from known figures* in one of the ways real files are written
(a locale's decimal mark and grouping, a delimiter, a byte-order mark, UTF-16, JSON instead of
YAML, a table instead of JSON ...), so that a run that accepts it must read exactly those
figures (else it is a silent wrong figure), or *damaged* (truncated, bytes flipped, a value
swapped for an odd one, a shape changed, a bomb), so that a run must end in a clean refusal or
a sane result. Some inputs are not files at all (a FIFO, /dev/zero). Shared by the fuzz test in
the suite (a small sample) and ``scripts/fuzz_inputs.py`` (thousands).
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import openpyxl
import yaml

from designer.core.catalog import builtin_catalog
from designer.core.ethernet.lldp import write_lldp_view
from designer.core.fileformat import load_project, save_project
from designer.core.generators import generate, params_from_dict
from tests.fuzz_harness import Case

SURFACES = ("quote", "sweep", "lldp", "traffic", "perftest")
ODD_NUMBERS = ("1e308", "nan", "inf", "-inf", "-5", "0", "²", "1_000", "١٢٣", "9" * 400, "",
               "=1+1", "0x10", "1e-320", "  ", "1.2.3", "∞", "NaN", "+", "-")
ODD_TEXT = ("\x1b[2J", "\x00", "\u202e", "a" * 5000, "=cmd|' /C calc'!A0", "\ufeff",
            "line\nbreak", "ü" * 300)


# -- fixtures: the design the inputs refer to ---------------------------------------------------
def make_fixtures(folder: Path) -> dict[str, Path]:
    """A small RoCE design (8 servers of 8 GPUs, 4 leaves and a spine ...) as a project file
    and as the LLDP tables its switches would show."""
    folder.mkdir(parents=True, exist_ok=True)
    cat = builtin_catalog()
    project = generate(params_from_dict("rail", {"sus": 1, "servers_per_su": 8,
                                                 "gear": "roce-400"}), cat)
    path = folder / "base.fabric.json"
    save_project(project, path, keep_backup=False)
    lldp = folder / "lldp-base"
    write_lldp_view(project, project.catalog(cat), lldp)
    return {"project": path, "lldp": lldp, "out": folder / "out"}


def _out(fx: dict[str, Path], name: str) -> str:
    fx["out"].mkdir(exist_ok=True)
    return str(fx["out"] / name)


# -- damage common to every text input ------------------------------------------------------------
def _damage_bytes(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    kind = rng.choice(("truncate", "flip-bytes", "nul-bytes", "repeat", "latin1", "utf16-no-bom"))
    if kind == "truncate" and data:
        return kind, data[: rng.randrange(len(data))]
    if kind == "flip-bytes" and data:
        out = bytearray(data)
        for _ in range(rng.choice((1, 3, 20))):
            out[rng.randrange(len(out))] = rng.randrange(256)
        return kind, bytes(out)
    if kind == "nul-bytes":
        return kind, data.replace(b",", b"\x00,", 3)
    if kind == "repeat":
        return kind, data * rng.choice((2, 50))
    if kind == "latin1":
        return kind, data.decode("utf-8", "replace").replace("a", "ä").encode("latin-1",
                                                                             "replace")
    return "utf16-no-bom", data.decode("utf-8", "replace").encode("utf-16-le")


def _special(rng: random.Random, folder: Path, name: str, suffix: str) -> tuple[str, Path]:
    """Not a regular file: a FIFO, a link to /dev/zero, a folder."""
    kind = rng.choice(("fifo", "dev-zero", "folder"))
    path = folder / f"{name}{suffix}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    return kind, path


# -- supplier quotes ------------------------------------------------------------------------------
QUOTE_PARTS = ("sn5600", "connectx-7", "osfp-2x400g-sr8", "osfp-2x400g-sr8-flt", "fiber-mmf-mpo",
               "qm9700", "dgx-h100", "th5-64x800")


def _price_text(value: float, decimal: str, group: str, cents: str) -> str:
    whole, frac = divmod(round(value * 100), 100)
    digits = f"{whole:,}".replace(",", "\0").replace("\0", group)
    if cents == "never" or (cents == "when-needed" and frac == 0):
        return digits
    return f"{digits}{decimal}{frac:02d}"


def _quote(rng: random.Random) -> tuple[str, dict, list[list[str]], dict]:
    """A quote written from known prices the way one locale writes them: (how, the prices,
    the rows, options)."""
    parts = rng.sample(QUOTE_PARTS, rng.randint(1, len(QUOTE_PARTS)))
    cents = rng.choice(("always", "when-needed", "never"))
    prices = {}
    for p in parts:
        value = rng.choice((rng.randint(1, 999), rng.randint(1000, 600_000),
                            rng.randint(100, 99_999_999) / 100))
        if cents == "never":
            value = float(round(value))
        prices[p] = round(value, 2)
    comma = rng.random() < 0.5
    decimal = "," if comma else "."
    group = rng.choice((".", "", " ", "\u00a0") if comma else (",", "", " ", "'"))
    currency = rng.choice(("", "USD", "$", "EUR", "€"))
    header = rng.choice((["Part ID", "Unit price"], ["part_id", "unit_price"], ["SKU", "Price"],
                         ["catalog id", "unit cost"]))
    rows = [rng.choice(([], ["Quote 17 from Acme"])), header + (["Currency"] if currency in (
        "USD", "EUR") else [])]
    for p, v in prices.items():
        text = _price_text(v, decimal, group, cents)
        if currency in ("$", "€"):
            text = rng.choice((f"{currency}{text}", f"{text} {currency}"))
        row = [rng.choice((p, p.upper())), text] + ([currency] if currency in ("USD", "EUR")
                                                     else [])
        rows.append(row)
        if rng.random() < 0.2:
            rows.append(["SUPPORT-3Y", _price_text(999.0, decimal, group, cents)])
    options = {"eur": currency in ("EUR", "€"), "comma": comma}
    rows = [r for r in rows if r]
    how = f"{'comma' if comma else 'point'}-{cents}-{currency or 'none'}"
    return how, prices, rows, options


def _quote_bytes(rows: list[list[str]], comma: bool, rng: random.Random) -> tuple[str, bytes]:
    # spreadsheets write ';' where the comma is the decimal mark, ',' where the point is
    delimiter = rng.choice((";", "\t") if comma else (",", "\t"))
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator=rng.choice(("\n", "\r\n"))).writerows(rows)
    text = buf.getvalue()
    enc = rng.choice(("utf-8", "utf-8", "utf-8-sig", "utf-16"))
    return f"{'tab' if delimiter == chr(9) else delimiter}-{enc}", text.encode(enc)


def _xlsx_bytes(rows: list[list[str]], prices: dict, typed: bool) -> bytes:
    """A workbook of the rows; ``typed``: the prices as number cells (a currency sign written
    in the text is then gone, and the book is in US dollars as no column says otherwise)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    for r in rows:
        if typed and len(r) > 1 and r[0].lower() in prices:
            ws.append([r[0], prices[r[0].lower()], *r[2:]])  # a number cell
        else:
            ws.append(r)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def quote_cases(rng: random.Random, count: int, folder: Path, fx: dict) -> Iterator[Case]:
    for i in range(count):
        name = f"quote-{i:05d}"
        how, prices, rows, opt = _quote(rng)
        argv_tail = (["--usd-rate", "1.1"] if opt["eur"] else []) + ["-o", _out(fx, f"{name}.json")]
        roll = rng.random()
        check, expect = "", None
        if roll < 0.05:
            kind, path = _special(rng, folder, name, ".csv")
        elif roll < 0.5:  # written from known prices: must read exactly those, or refuse
            if rng.random() < 0.25:
                typed = rng.random() < 0.5
                kind, data, suffix = "xlsx", _xlsx_bytes(rows, prices, typed), ".xlsx"
                if typed and not any(len(r) > 2 and r[2] in ("USD", "EUR") for r in rows):
                    opt = {**opt, "eur": False}
            else:
                enc, data = _quote_bytes(rows, opt["comma"], rng)
                kind, suffix = f"csv-{enc}", ".csv"
            path = folder / f"{name}{suffix}"
            path.write_bytes(data)
            check, expect = "quote", {"prices": prices, "eur": opt["eur"]}
            kind = f"{how}-{kind}"
        else:  # damaged
            _enc, data = _quote_bytes(rows, opt["comma"], rng)
            kind = rng.choice(("bytes", "odd-number", "odd-text", "duplicate", "wide", "many"))
            if kind == "bytes":
                kind, data = _damage_bytes(data, rng)
            elif kind in ("odd-number", "odd-text"):
                r = rng.randrange(1, len(rows))
                rows[r][rng.randrange(len(rows[r]))] = rng.choice(
                    ODD_NUMBERS if kind == "odd-number" else ODD_TEXT)
                data = _quote_bytes(rows, opt["comma"], rng)[1]
            elif kind == "duplicate":
                rows.append([rows[-1][0], "12345", *rows[-1][2:]])
                data = _quote_bytes(rows, opt["comma"], rng)[1]
            elif kind == "wide":
                data = ("part id,unit price," + ",".join("x" * 1000 for _ in range(200))
                        + "\nsn5600,100\n").encode()
            else:
                data = b"part id,unit price\n" + b"sn5600,100\n" * rng.choice((1000, 120_000))
            path = folder / f"{name}.csv"
            path.write_bytes(data)
        yield Case(f"{name}-{kind}", ("prices", "import", str(fx["project"]), str(path),
                                      *argv_tail), check, expect, "quote")


def check_quote(stdout: str, case: Case) -> str:
    out = case.argv[case.argv.index("-o") + 1]
    book = load_project(out).sources.price_books[-1]
    want = case.expect["prices"]  # type: ignore[index]
    got = book.prices
    if set(got) != set(want):
        return f"parts {sorted(got)} read, {sorted(want)} written"
    for k, v in want.items():
        if abs(got[k] - v) > 1e-9 * max(1.0, abs(v)):
            return f"{k}: {got[k]} read, {v} written"
    if book.currency != ("EUR" if case.expect["eur"] else "USD"):  # type: ignore[index]
        return f"currency {book.currency}"
    return ""


# -- sweep specs ----------------------------------------------------------------------------------
SPECS = (
    ({"name": "rails", "generate": {"kind": "rail", "gear": "roce-400", "sus": [1, 2],
                                    "servers_per_su": 2}}, 2),
    ({"generate": [{"kind": "fat-tree", "k_ary": 4}, {"kind": "rail", "sus": 1,
                                                      "servers_per_su": 2}]}, 2),
    ({"generate": {"kind": "rail", "sus": {"min": 1, "max": 3}, "servers_per_su": 2}}, 3),
    ({"generate": {"kind": "rail", "sus": 1, "servers_per_su": 2},
      "prices": {"qm9700": [30000, 40000]}}, 2),
    ({"generate": {"kind": "rail", "sus": 1, "servers_per_su": 2},
      "constraints": {"budget": 5e6}, "objectives": ["cost_per_gpu", "bisection_share"]}, 1),
)


def _spec_text(spec: dict, rng: random.Random) -> tuple[str, bytes]:
    form = rng.choice(("yaml-block", "yaml-flow", "json", "json-compact", "yaml-comments"))
    if form.startswith("json"):
        text = json.dumps(spec, indent=None if form == "json-compact" else 2)
    else:
        text = yaml.safe_dump(spec, default_flow_style=form == "yaml-flow", sort_keys=False)
        if form == "yaml-comments":
            text = "# a sweep spec\n" + text.replace("\n", "  # note\n", 3)
    enc = rng.choice(("utf-8", "utf-8", "utf-8-sig", "utf-16"))
    nl = rng.choice(("\n", "\r\n"))
    return f"{form}-{enc}", text.replace("\n", nl).encode(enc)


def _swap_spec_value(spec: dict, rng: random.Random) -> dict:
    spec = json.loads(json.dumps(spec))
    block = spec["generate"] if isinstance(spec["generate"], dict) else spec["generate"][0]
    key = rng.choice([*block.keys(), "sus", "samples", "seed", "prices"])
    value = rng.choice((1e9, float("inf"), float("nan"), -1, 0, 1e308, "x", True, None, [],
                        {}, [[1, 2]], {"min": 1, "max": 1e9}, {"min": 1, "max": float("inf")},
                        {"min": 5, "max": 1}, {"min": 1, "max": 10, "step": 1e-9},
                        list(range(300_000)), "\x1b[2J", 2**63, -(2**63)))
    if key in ("samples", "seed"):
        spec[key] = value
        spec["sampling"] = rng.choice(("lhs", "random", "grid", "bogus"))
    elif key == "prices":
        spec["prices"] = {rng.choice(("qm9700", "nope", "\x1b")): value}
    else:
        block[key] = value
    return spec


def _bomb(depth: int) -> str:
    node = '&a0 ["x","x","x","x","x","x","x","x","x"]'
    for i in range(1, depth):
        node = f"&a{i} [{node}" + f",*a{i - 1}" * 8 + "]"
    return f"name: bomb\ngenerate: {{kind: rail, sus: [{node}]}}\n"


def sweep_cases(rng: random.Random, count: int, folder: Path, fx: dict) -> Iterator[Case]:
    for i in range(count):
        name = f"sweep-{i:05d}"
        spec, points = rng.choice(SPECS)
        roll = rng.random()
        check, expect = "", None
        if roll < 0.05:
            kind, path = _special(rng, folder, name, ".sweep.yaml")
        else:
            if roll < 0.35:  # written from a known spec: the points it has, or a refusal
                kind, data = _spec_text(spec, rng)
                check, expect = "sweep", points
            else:
                kind = rng.choice(("swap", "swap", "bytes", "bomb", "deep", "keys", "long"))
                if kind == "swap":
                    data = json.dumps(_swap_spec_value(spec, rng)).encode()
                elif kind == "bytes":
                    kind, data = _damage_bytes(_spec_text(spec, rng)[1], rng)
                elif kind == "bomb":
                    data = _bomb(rng.choice((3, 6, 8))).encode()
                elif kind == "deep":
                    data = ("[" * rng.choice((1000, 100_000))).encode()
                elif kind == "keys":
                    data = json.dumps({**spec, rng.choice(ODD_TEXT): 1}).encode()
                else:
                    data = json.dumps({**spec, "name": "n" * rng.choice((300, 2_000_000))}
                                      ).encode()
            path = folder / f"{name}.sweep.yaml"
            path.write_bytes(data)
        yield Case(f"{name}-{kind}", ("sweep", str(path), "--workers", "0", "--json"), check,
                   expect, "sweep")


def check_sweep(stdout: str, case: Case) -> str:
    got = json.loads(stdout)["points"]
    return "" if got == case.expect else f"{got} points, the spec has {case.expect}"


# -- LLDP tables ----------------------------------------------------------------------------------
def _to_json0(data: dict) -> dict:
    """lldpcli's ``-f json0`` form of a ``-f json`` table: every value a list."""
    out = []
    for item in data["lldp"]["interface"]:
        for local, info in item.items():
            (remote, ch), = info["chassis"].items()
            out.append({"name": local, "via": "LLDP",
                        "chassis": [{"name": [{"value": remote}],
                                     "capability": [dict(c) for c in ch.get("capability", [])]}],
                        "port": [{"id": [{"type": "ifname",
                                          "value": info["port"]["id"]["value"]}],
                                  "descr": [{"value": info["port"]["descr"]}]}]})
    return {"lldp": [{"interface": out}]}


def _to_table(data: dict) -> str:
    """SONiC's ``show lldp table`` form."""
    lines = ["Capability codes: (R) Router, (B) Bridge, (O) Other",
             "LocalPort    RemoteDevice    RemotePortID    Capability    RemotePortDescr",
             "-----------  --------------  --------------  ------------  -----------------"]
    for item in data["lldp"]["interface"]:
        for local, info in item.items():
            (remote, ch), = info["chassis"].items()
            caps = "BR" if ch.get("capability") else "O"
            port = info["port"]["id"]["value"]
            lines.append(f"{local:<12} {remote:<15} {port:<15} {caps:<13} {port}")
    lines.append("-" * 40)
    lines.append(f"Total entries displayed:  {len(data['lldp']['interface'])}")
    return "\n".join(lines) + "\n"


def _lldp_damage(data: object, rng: random.Random) -> object:
    """Replace one node of the JSON tree, at any depth, with an odd value."""
    nodes: list[tuple[object, object]] = []

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                nodes.append((x, k))
                walk(v)
        elif isinstance(x, list):
            for k, v in enumerate(x):
                nodes.append((x, k))
                walk(v)

    walk(data)
    parent, key = rng.choice(nodes)
    parent[key] = rng.choice(("x", 1, [], {}, None, True, [1, 2], {"a": 1}, *ODD_TEXT,
                              "Ethernet99999999999999", "Ethernet" + "9" * 5000, 2**70))
    return data


def _write_repeated(path: Path, data: dict, times: int) -> None:
    """``json.dumps`` of ``data`` with its interface list repeated ``times`` over, the same
    bytes written one repeat at a time (dumping the whole list took seconds a file)."""
    items = data["lldp"]["interface"]
    if not items:
        path.write_text(json.dumps(data))
        return
    data["lldp"]["interface"] = "\0"
    head, tail = json.dumps(data).split('"\\u0000"')
    one = ", ".join(json.dumps(x) for x in items)
    with path.open("w") as fh:
        fh.write(f"{head}[{one}")
        for _ in range(times - 1):
            fh.write(f", {one}")
        fh.write(f"]{tail}")


def lldp_cases(rng: random.Random, count: int, folder: Path, fx: dict) -> Iterator[Case]:
    base: Path = fx["lldp"]
    project = load_project(fx["project"])
    cables = int(project.fabric.links.count.sum())
    files = sorted(base.iterdir())
    for i in range(count):
        name = f"lldp-{i:05d}"
        target = folder / name
        shutil.copytree(base, target)
        roll = rng.random()
        check, expect = "", None
        victims = rng.sample(files, rng.randint(1, len(files)))
        if roll < 0.05:
            kind, path = _special(rng, folder, f"{name}-x", ".json")
            target = path
        elif roll < 0.35:  # the same neighbours written another way lldpcli or SONiC writes
            kind = rng.choice(("json0", "table", "dict-interfaces", "indent", "crlf"))
            for f in victims:
                data = json.loads(f.read_text())
                (target / f.name).unlink()
                if kind == "json0":
                    (target / f.name).write_text(json.dumps(_to_json0(data)))
                elif kind == "table":
                    (target / f"{f.stem}.txt").write_text(_to_table(data))
                elif kind == "dict-interfaces":
                    merged = {k: v for item in data["lldp"]["interface"] for k, v in item.items()}
                    (target / f.name).write_text(json.dumps({"lldp": {"interface": merged}}))
                elif kind == "indent":
                    (target / f.name).write_text(json.dumps(data, indent=rng.choice((0, 8))))
                else:
                    (target / f.name).write_bytes(json.dumps(data, indent=1).replace(
                        "\n", "\r\n").encode())
            check, expect = "lldp", cables
        else:
            kind = rng.choice(("shape", "shape", "bytes", "deep", "big"))
            f = rng.choice(files)
            if kind == "shape":
                data = _lldp_damage(json.loads(f.read_text()), rng)
                (target / f.name).write_text(json.dumps(data))
            elif kind == "bytes":
                kind, raw = _damage_bytes(f.read_bytes(), rng)
                (target / f.name).write_bytes(raw)
            elif kind == "deep":
                (target / f.name).write_text('{"lldp": ' + "[" * 100_000)
            else:
                _write_repeated(target / f.name, json.loads(f.read_text()), 20_000)
        yield Case(f"{name}-{kind}", ("import", "lldp", str(target), "-o",
                                      _out(fx, f"{name}.fabric.json"), "--force"),
                   check, expect, "lldp")


def check_lldp(stdout: str, case: Case) -> str:
    out = case.argv[case.argv.index("-o") + 1]
    got = int(load_project(out).fabric.links.count.sum())
    return "" if got == case.expect else f"{got} cables read, {case.expect} in the tables"


# -- traffic CSVs ---------------------------------------------------------------------------------
def _servers(project) -> list[tuple[str, int, int]]:
    """(device id, first GPU, GPUs) of every GPU server, in GPU order."""
    cat = builtin_catalog()
    out, base = [], 0
    for d in project.fabric.devices:
        if d.role.value == "gpu-server":
            n = cat.server(d.model).gpus
            out.append((d.id, base, n))
            base += n
    return out


def traffic_cases(rng: random.Random, count: int, folder: Path, fx: dict) -> Iterator[Case]:
    servers = _servers(load_project(fx["project"]))
    for i in range(count):
        name = f"traffic-{i:05d}"
        rows = []
        for _ in range(rng.randint(1, 300)):
            a, b = rng.sample(servers, 2)  # different servers: every flow crosses the fabric
            ka, kb = rng.randrange(a[2]), rng.randrange(b[2])
            src = f"{a[0]}:{ka}" if rng.random() < 0.3 else str(a[1] + ka)
            dst = f"{b[0]}:{kb}" if rng.random() < 0.3 else str(b[1] + kb)
            size = rng.choice((str(rng.randint(1, 2**40)),
                               f"{rng.randint(1, 9)}e{rng.randint(0, 12)}",
                               f"{rng.random() * 1e6 + 1:.3f}"))
            rows.append([src, dst, size])
        header = [["src", "dst", "bytes"]] if rng.random() < 0.5 else []
        buf = io.StringIO()
        csv.writer(buf, lineterminator=rng.choice(("\n", "\r\n"))).writerows(header + rows)
        text = buf.getvalue()
        roll = rng.random()
        check, expect = "", None
        if roll < 0.05:
            kind, path = _special(rng, folder, name, ".csv")
        else:
            if roll < 0.35:
                kind = rng.choice(("plain", "bom", "spaces"))
                data = ("\ufeff" + text if kind == "bom" else text.replace(",", ", ")
                        if kind == "spaces" else text).encode()
                check, expect = "traffic", len(rows)
            else:
                kind = rng.choice(("bytes", "odd-number", "odd-gpu", "many", "short-row"))
                if kind == "bytes":
                    kind, data = _damage_bytes(text.encode(), rng)
                elif kind == "odd-number":
                    r = rng.choice(rows)
                    r[2] = rng.choice(ODD_NUMBERS)
                    data = "\n".join(",".join(x) for x in header + rows).encode()
                elif kind == "odd-gpu":
                    r = rng.choice(rows)
                    r[rng.randrange(2)] = rng.choice(("-1", "99999999999999999999", "²", "١",
                                                      "nope:1", f"{servers[0][0]}:999",
                                                      f"{servers[0][0]}:-1", *ODD_TEXT[:3]))
                    data = "\n".join(",".join(x) for x in header + rows).encode()
                elif kind == "many":
                    data = ("0,9,100\n" * rng.choice((10_000, 2_100_000))).encode()
                else:
                    data = (text + "1,2\n").encode()
            path = folder / f"{name}.csv"
            path.write_bytes(data)
        yield Case(f"{name}-{kind}", ("load", str(fx["project"]), "--pattern", str(path),
                                      "--routing", "adaptive", "--json"), check, expect,
                   "traffic")


def check_traffic(stdout: str, case: Case) -> str:
    got = json.loads(stdout)["connections"]
    return "" if got == case.expect else f"{got} connections, {case.expect} flows written"


# -- perftest output ------------------------------------------------------------------------------
PERFTEST_HEAD = """\
---------------------------------------------------------------------------------------
                    Send Latency Test
 Dual-port       : OFF\t\tDevice         : mlx5_0
 Number of qps   : 1\t\tTransport type : IB
 Connection type : RC\t\tUsing SRQ      : OFF
 TX depth        : 1
 Mtu             : 4096[B]
 Link type       : Ethernet
 GID index       : 3
 Max inline data : 236[B]
---------------------------------------------------------------------------------------
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    \
t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
"""


def _perftest(rng: random.Random) -> tuple[str, float]:
    sizes = [2] if rng.random() < 0.5 else [2 ** k for k in range(1, rng.randint(2, 23))]
    lines = [PERFTEST_HEAD]
    typical = 0.0
    for s in sizes:
        typical = round(rng.uniform(0.8, 30.0), 2)
        lines.append(f" {s:<7} {1000:<13} {typical - 0.05:<14.2f} {typical + 3:<12.2f} "
                     f"{typical:<8.2f}\t       {typical + 0.01:.2f}        \t0.04   \t\t"
                     f"{typical + 0.1:.2f}    \t\t{typical + 2:.2f}   \n")
    lines.append("-" * 87 + "\n")
    return "".join(lines), typical


def perftest_cases(rng: random.Random, count: int, folder: Path, fx: dict) -> Iterator[Case]:
    for i in range(count):
        name = f"perftest-{i:05d}"
        text, typical = _perftest(rng)
        roll = rng.random()
        check, expect = "", None
        if roll < 0.05:
            kind, path = _special(rng, folder, name, ".txt")
        else:
            if roll < 0.35:
                kind = rng.choice(("plain", "crlf", "trailing", "preamble"))
                data = (text.replace("\n", "\r\n") if kind == "crlf" else
                        text.replace("\n", "   \n") if kind == "trailing" else
                        "$ ib_send_lat -a 10.0.0.1\n" + text if kind == "preamble" else text)
                check, expect = "perftest", typical
                data_b = data.encode()
            else:
                kind = rng.choice(("bytes", "odd-number", "no-header", "huge"))
                if kind == "bytes":
                    kind, data_b = _damage_bytes(text.encode(), rng)
                elif kind == "odd-number":
                    lines = text.splitlines(keepends=True)
                    k = rng.randrange(len(PERFTEST_HEAD.splitlines()), len(lines) - 1)
                    parts = lines[k].split()
                    parts[rng.choice((0, 4))] = rng.choice(ODD_NUMBERS) or "x"
                    lines[k] = " " + "   ".join(parts) + "\n"
                    data_b = "".join(lines).encode()
                elif kind == "no-header":
                    data_b = text.replace("t_typical", "t_median").encode()
                else:
                    data_b = text.encode() * 30_000
            path = folder / f"{name}.txt"
            path.write_bytes(data_b)
        yield Case(f"{name}-{kind}", ("latency", "import", str(fx["project"]), str(path),
                                      "--tech", "eth", "-o", _out(fx, f"{name}.fabric.json")),
                   check, expect, "perftest")


def check_perftest(stdout: str, case: Case) -> str:
    out = case.argv[case.argv.index("-o") + 1]
    m = load_project(out).sources.latency[-1]
    got = m.end_to_end_us
    return "" if got == case.expect else f"{got} us read, {case.expect} us written"


CHECKS: dict[str, Callable[[str, Case], str]] = {
    "quote": check_quote, "sweep": check_sweep, "lldp": check_lldp, "traffic": check_traffic,
    "perftest": check_perftest,
}
GENERATORS = {"quote": quote_cases, "sweep": sweep_cases, "lldp": lldp_cases,
              "traffic": traffic_cases, "perftest": perftest_cases}


def cases(per_surface: int, seed: int, folder: Path,
          surfaces: tuple[str, ...] = SURFACES) -> list[Case]:
    """``per_surface`` cases of each surface, written under ``folder``; the same for the same
    seed."""
    fx = make_fixtures(folder / "fixtures")
    out: list[Case] = []
    for s in surfaces:
        rng = random.Random(f"{seed}-{s}")
        sub = folder / s
        sub.mkdir(parents=True, exist_ok=True)
        out += list(GENERATORS[s](rng, per_surface, sub, fx))
    return out


# -- the third round's surfaces: InfraGraph, acceptance results, traces, writers ------------------
from tests.input_mutations_third import (  # noqa: E402
    ALWAYS,
    CHECKS_THIRD,
    GENERATORS_THIRD,
    SURFACES_THIRD,
)

CHECKS.update(CHECKS_THIRD)
GENERATORS.update(GENERATORS_THIRD)
ALL_SURFACES = SURFACES + SURFACES_THIRD
__all__ = ["ALL_SURFACES", "ALWAYS"]
