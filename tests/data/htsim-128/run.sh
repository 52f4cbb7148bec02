#!/bin/sh
# htsim runs of 2-tier fat-tree (128 GPUs, tor placement), RoCE Ethernet 400G, as 'designer export htsim' wrote them.
# ECMP: htsim_roce (lossless RoCE with PFC, one hashed path per flow);
# spraying: htsim_eqds (EQDS, every packet on one of 32 path ids).
# Hosts at the design's line rate (-linkspeed, Mb/s); -end (us) is 20 times the
# flows' completion on an ideal fabric plus 1 ms.
# Usage: sh run.sh [PATTERN ...]   (default: every pattern)
#        ROUTINGS=ecmp sh run.sh ...  (default: ecmp spray)
# Programs: $HTSIM_BIN/htsim_roce and htsim_eqds, else found on PATH.
# Then: designer simulate check <this folder>
cd "$(dirname "$0")" || exit 1
prog() {
    if [ -n "$HTSIM_BIN" ] && [ -x "$HTSIM_BIN/$1" ]; then echo "$HTSIM_BIN/$1"
    elif command -v "$1" >/dev/null 2>&1; then command -v "$1"
    else echo "run.sh: $1 not found: build csg-htsim (make in sim/, then sim/datacenter) and put sim/datacenter on PATH or set HTSIM_BIN" >&2; return 1; fi
}
ROCE=$(prog htsim_roce) || exit 127
EQDS=$(prog htsim_eqds) || exit 127
PATTERNS="${*:-ring incast permutation}"
ROUTINGS="${ROUTINGS:-ecmp spray}"
for p in $PATTERNS; do
    [ -f "$p.cm" ] || { echo "run.sh: no $p.cm here" >&2; exit 2; }
    case "$p" in
        ring) END=2573 ;;
        incast) END=101664 ;;
        permutation) END=7711 ;;
    esac
    common="-topo design.topo -tm $p.cm -nodes 128 -linkspeed 400000 -end $END"
    for r in $ROUTINGS; do
        case "$r" in
        ecmp) echo "$p: ECMP (htsim_roce) -> $p.ecmp.out"
            "$ROCE" $common -strat ecmp_host -paths 1 -o "$p.ecmp.dat" > "$p.ecmp.out" 2>&1 || echo "run.sh: htsim_roce failed on $p (see $p.ecmp.out)" >&2 ;;
        spray) echo "$p: spraying (htsim_eqds) -> $p.spray.out"
            "$EQDS" $common -strat ecmp_host -paths 32 -o "$p.spray.dat" > "$p.spray.out" 2>&1 || echo "run.sh: htsim_eqds failed on $p (see $p.spray.out)" >&2 ;;
        *) echo "run.sh: routing $r: ecmp or spray" >&2; exit 2 ;;
        esac
    done
done
