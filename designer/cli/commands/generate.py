"""``designer generate KIND [options] -o FILE``: write a generated design to a project file."""

from __future__ import annotations

import argparse
import sys
import time

from designer.cli.commands._common import (
    add_catalog_option,
    catalog_from,
    kept_existing,
    project_name,
    whole_number,
)
from designer.core.fileformat import SUFFIX, save_project
from designer.core.generators import GEAR_PROFILES, generate, params_from_dict, plan
from designer.core.layout import compact_if_wide
from designer.core.networks import parse_network_names, with_networks
from designer.core.physical import for_new_design, parse_sections
from designer.core.transport import TRANSPORT_IDS, check_fits, get_transport

COMMON_OPTIONS = (
    "gear",
    "switch",
    "spine_switch",
    "radix",
    "server",
    "gpus_per_server",
    "planes",
    "plane_split",
    "nic",
    "nics",
    "name",
)


def section_list(text: str) -> list[str]:
    try:
        return parse_sections(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _common(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("gear (defaults follow the DGX SuperPOD)")
    g.add_argument(
        "--gear",
        choices=GEAR_PROFILES,
        default="ib-ndr",
        help="gear profile (default: %(default)s)",
    )
    g.add_argument(
        "--transport", choices=TRANSPORT_IDS, default=None,
        help="the design's transport (default: the gear profile's; see 'designer catalog')",
    )
    g.add_argument(
        "--switch",
        metavar="ID",
        help="switch catalog id (default: the profile's, qm9700 for ib-ndr)",
    )
    g.add_argument(
        "--spine-switch",
        metavar="ID",
        help="switch for the spine and core tiers (default: --switch)",
    )
    g.add_argument(
        "--radix", type=whole_number, metavar="K",
        help="use a generic K-port switch at the profile's speed",
    )
    g.add_argument("--server", metavar="ID",
                   help="GPU server or rack-scale system catalog id, e.g. gb200-nvl72 (default: "
                   "the profile's)")
    g.add_argument(
        "--gpus-per-server",
        type=whole_number,
        metavar="G",
        help="GPUs (one NIC port each per plane) per server (default: the server's; 1 for "
        "--k-ary)",
    )
    g.add_argument(
        "--planes",
        type=whole_number,
        metavar="P",
        help="parallel planes, one GPU port per plane (default: the profile's, or one per NIC "
        "port of each GPU)",
    )
    g.add_argument(
        "--plane-split", type=int, choices=(1, 2, 4, 8), metavar="P",
        help="lanes to planes: split each NIC port into P ports of 1/P its speed, one plane "
        "each (an 800G port as 8 x 100G); the switches run their mode of that speed",
    )
    g.add_argument("--nic", metavar="ID",
                   help="NIC catalog id (default: the server's, or the profile's when the "
                   "server's cannot run its technology)")
    g.add_argument("--nics", type=whole_number, metavar="N",
                   help="NICs per server or tray (default: the server's; fewer than its GPUs "
                   "makes GPUs share a NIC)")
    n = p.add_argument_group("networks of the cluster")
    n.add_argument(
        "--networks", metavar="LIST", default="backend",
        help="networks to build, comma-separated: backend, frontend (in-band), storage, oob "
        "(out-of-band management); default: %(default)s alone. The others are generated "
        "from the back-end's servers by their reference layouts (see the Networks page)")
    b = p.add_argument_group("bill of materials")
    b.add_argument(
        "--bom-off", metavar="LIST", type=section_list, default=[],
        help="BOM sections to leave off, comma-separated (a new design has racks, "
        "power-cords and spares on; 'designer bom-lines' switches them later)")
    out = p.add_argument_group("output")
    out.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help=f"project file to write (*{SUFFIX}); required unless --plan",
    )
    out.add_argument("--name", type=project_name,
                     help="project name (default: a description of the design)")
    out.add_argument(
        "--plan", action="store_true", help="print what would be built and write nothing"
    )
    out.add_argument("--force", action="store_true", help="overwrite an existing file")
    add_catalog_option(p)


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(
        name,
        help="generate a fabric into a project file",
        description="Generate a fabric from a few parameters. Impossible "
        "parameters are refused with the limit that stops them.",
    )
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True, parser_class=type(p))

    r = kinds.add_parser(
        "rail",
        help="rail-optimized (DGX SuperPOD style)",
        description="Scalable units of S servers (or of racks of a rack-scale system such as "
        "gb200-nvl72); one leaf per rail per SU, a rail being a GPU's position in its "
        "scale-up domain; spines and cores as the published table of the size has them, "
        "else the fewest that hold every uplink, links spread as evenly as the ports allow "
        "(balanced striping); a core tier past the 2-tier limit.",
        allow_abbrev=False,
    )
    size = r.add_mutually_exclusive_group()
    size.add_argument(
        "--sus", "--units", type=whole_number, metavar="N",
        help="scalable units (default: 4, or enough for --servers or --gpus; two tiers while "
        "one plane's leaves fit a spine's ports, then a core tier)",
    )
    r.add_argument(
        "--servers-per-su",
        type=whole_number,
        metavar="S",
        help="servers per SU (default: what one rail leaf serves at 1:1, one server a down "
        "port: 32 on QM9700, 72 on Q3400, 64 on SN5610 as 128 x 400G, the DGX SuperPOD "
        "reference architectures' SUs; the plan's 'layout:' line says published or derived)",
    )
    r.add_argument(
        "--racks-per-su",
        type=whole_number,
        metavar="R",
        help="rack-scale systems: racks per SU (default: 8, 576 GPUs of NVL72 racks, as the "
        "DGX SuperPOD GB200 reference architecture)",
    )
    r.add_argument(
        "--servers",
        type=whole_number,
        metavar="N",
        help="total servers or trays, for a partial last SU (default: every slot)",
    )
    r.add_argument(
        "--gpus",
        type=whole_number,
        metavar="N",
        help="total GPUs: a whole number of servers, or of racks of a rack-scale system",
    )
    r.add_argument(
        "--reserve-leaf-ports",
        type=whole_number,
        default=0,
        metavar="N",
        help="leaf ports for UFM/management appliances; frees ceil(N/G) server "
        "slots (default: %(default)s)",
    )
    r.add_argument(
        "--tiers",
        type=whole_number,
        choices=(2, 3),
        help="force 2 or 3 tiers (default: 2 up to the 2-tier limit, then 3)",
    )
    _common(r)
    r.set_defaults(run=run)

    f = kinds.add_parser(
        "fat-tree",
        help="fat-tree / folded Clos",
        description="A 2- or 3-tier folded Clos with per-tier "
        "oversubscription; --k-ary K builds Al-Fares' k-ary fat-tree.",
        allow_abbrev=False,
    )
    size = f.add_mutually_exclusive_group()
    size.add_argument("--gpus", type=whole_number, metavar="N",
                      help="GPUs (default: 1024; 8 racks of a rack-scale system)")
    size.add_argument(
        "--k-ary",
        type=whole_number,
        metavar="K",
        help="Al-Fares k-ary fat-tree: K-port switches, K^3/4 hosts",
    )
    f.add_argument(
        "--tiers",
        type=whole_number,
        choices=(2, 3),
        help="force 2 or 3 tiers (default: chosen from the size)",
    )
    f.add_argument(
        "--oversubscription",
        default="1:1",
        metavar="R[,R]",
        help="down:up per tier from the bottom, e.g. 1:1,7:1; 1:2 gives a tier twice the uplink "
             "(default: %(default)s)",
    )
    f.add_argument(
        "--placement",
        choices=("rail", "tor"),
        default="tor",
        help="rail: a server's GPUs over G leaves; tor: all under one ToR (default: %(default)s)",
    )
    f.add_argument(
        "--servers-per-leaf",
        type=whole_number,
        metavar="N",
        help="servers per ToR (tor) or per rail group (rail) (default: as many as "
        "the leaf's down ports take)",
    )
    f.add_argument(
        "--pod-gpus",
        type=whole_number,
        metavar="N",
        help="GPUs per pod in 3 tiers (default: as many as one spine tier takes)",
    )
    f.add_argument(
        "--striping",
        choices=("balanced", "uniform"),
        default="balanced",
        help="balanced: the fewest spines and cores that hold every uplink, each switch's "
        "uplinks spread round-robin over the tier above (link counts differ by at most one; "
        "no port idles beyond less than a switch a tier; a cut can cross slightly less than "
        "full bisection and static ECMP loads single links harder, the plan says so); "
        "uniform: every leaf as many links to every spine (the divisor rule), whatever "
        "ports it idles, priced in the plan. Oversubscribed spine tiers and --k-ary are "
        "always uniform (default: %(default)s)",
    )
    _common(f)
    f.set_defaults(run=run)

    d = kinds.add_parser(
        "dragonfly",
        help="dragonfly (Kim et al. 2008)",
        description="Groups of a routers wired all-to-all, h global links per "
        "router, p GPU ports per router. Defaults: balanced (a = 2p = 2h) "
        "from the router radix, and the most groups (a*h + 1).",
        allow_abbrev=False,
    )
    d.add_argument("--p", type=whole_number, help="GPU ports per router (default: balanced)")
    d.add_argument("--a", type=whole_number, help="routers per group (default: balanced)")
    d.add_argument("--h", type=whole_number, help="global links per router (default: balanced)")
    d.add_argument("--groups", type=whole_number, metavar="G", help="groups (default: a*h + 1)")
    d.add_argument(
        "--links-per-pair",
        type=whole_number,
        metavar="M",
        help="global links between each pair of groups (default: as many as fit)",
    )
    d.add_argument(
        "--arrangement",
        choices=("absolute", "relative", "circulant"),
        default="absolute",
        help="global-link arrangement (default: %(default)s)",
    )
    _common(d)
    d.set_defaults(run=run)

    o = kinds.add_parser(
        "rail-only",
        help="rail-only: a network per rail, no spine (arXiv 2307.12169)",
        description="One network per rail (a NIC port position of the scale-up domain): a "
        "single switch when the rail's domains fit its ports, else a two-tier Clos of that "
        "rail. No spine joins the rails; GPUs on different rails reach each other by "
        "forwarding through their scale-up domain (NVLink), which the load model and the "
        "estimates count.",
        allow_abbrev=False,
    )
    o.add_argument("--gpus", type=whole_number, metavar="N",
                   help="GPUs (default: 1024; 8 racks of a rack-scale system)")
    o.add_argument("--tiers", type=whole_number, choices=(1, 2),
                   help="tiers within a rail (default: 1 when a rail fits one switch)")
    _common(o)
    o.set_defaults(run=run)


KIND_OPTIONS = {
    "rail": ("sus", "servers_per_su", "racks_per_su", "servers", "gpus", "reserve_leaf_ports",
             "tiers"),
    "fat-tree": (
        "gpus",
        "k_ary",
        "tiers",
        "oversubscription",
        "placement",
        "servers_per_leaf",
        "pod_gpus",
        "striping",
    ),
    "dragonfly": ("p", "a", "h", "groups", "links_per_pair", "arrangement"),
    "rail-only": ("gpus", "tiers"),
}


def run(args: argparse.Namespace) -> int:
    values = {k: getattr(args, k) for k in COMMON_OPTIONS + KIND_OPTIONS[args.kind]}
    values = {k: v for k, v in values.items() if v is not None}
    params = params_from_dict(args.kind, values)
    networks = parse_network_names(args.networks)
    cat = catalog_from(args)
    transport = getattr(args, "transport", None)
    if transport:
        check_fits(get_transport(transport), cat.profile(params.gear).tech, "--transport")
    pl = plan(params, cat)
    if args.plan:
        print(pl.describe())
        return 0
    if not args.output:
        print(
            "designer generate: -o FILE is required (or --plan to only print the plan)",
            file=sys.stderr,
        )
        return 2
    from pathlib import Path

    out = Path(args.output)
    if kept_existing(out, args.force, "generate"):
        return 2
    t0 = time.perf_counter()
    # a design far wider than tall is written with its SUs or pods wrapped into rows, as the
    # window generates it, so it reads whole when opened
    project = compact_if_wide(generate(params, cat))
    if transport:
        project = project.evolve(transport=transport)
    if networks:
        project = with_networks(project, networks, project.catalog(cat))
    project = for_new_design(project, off=args.bom_off)
    t1 = time.perf_counter()
    save_project(project, out)
    t2 = time.perf_counter()
    print(pl.describe())
    for name, net in (project.networks or {}).items():
        switches = sum(d.tier != "storage-node" for d in net.devices)
        print(f"  {name}: {switches:,} switches, {len(net.links):,} links")
    print(
        f"wrote {out} ({len(project.fabric.devices):,} devices, "
        f"{project.fabric.links.n_cables:,} links; generated in {t1 - t0:.2f} s, saved in "
        f"{t2 - t1:.2f} s)"
    )
    return 0
