"""``designer simulate check DIR``: htsim's output in an export folder beside the tool's
prediction for the same flows and routing."""

from __future__ import annotations

import argparse

from designer.cli.commands._common import print_json
from designer.core.simulate import check, table


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(
        name, help="set a packet simulator's results beside the tool's prediction",
        description="'designer simulate check DIR' reads htsim's output in a folder "
        "'designer export htsim' wrote (after its run.sh ran) and prints, per pattern and "
        "routing, flows finished of listed, throughput min / p1 / median / mean (relative "
        "to each flow's share of its GPU's line rate), the last completion and the "
        "slowdown against an ideal fabric: htsim's, the tool's for the same flows and "
        "routing (written into the folder at export), and their ratio.")
    acts = p.add_subparsers(dest="action", metavar="ACTION", required=True,
                            parser_class=type(p))
    ck = acts.add_parser("check", help="htsim's output beside the tool's prediction",
                         description="htsim's output in an export folder beside the tool's "
                         "prediction for the same flows and routing; exit 2 when the folder "
                         "holds no prediction or no output yet.")
    ck.add_argument("folder", metavar="DIR", help="the folder 'designer export htsim' wrote")
    ck.add_argument("--json", action="store_true", help="print JSON")
    ck.set_defaults(run=run_check)


def run_check(args: argparse.Namespace) -> int:
    rows = check(args.folder)
    if args.json:
        print_json({"folder": str(args.folder), "rows": [r.to_json() for r in rows]})
    else:
        print(table(rows))
    return 0
