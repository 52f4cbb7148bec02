"""The command line: exit status, one-line errors, and the commands of the foundation."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from designer import __version__
from designer.cli.main import main


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "designer", *args], capture_output=True,
                          text=True, timeout=120)


def test_version_and_help():
    out = run("--version")
    assert out.returncode == 0 and __version__ in out.stdout
    helped = run("--help")
    assert helped.returncode == 0
    for command in ("catalog", "validate", "generate", "export"):
        assert command in helped.stdout


@pytest.mark.parametrize("command", ["catalog", "validate", "generate", "generate rail",
                                     "generate fat-tree", "generate dragonfly", "solve",
                                     "export", "export bom", "export ibnetdiscover", "import",
                                     "import ibnetdiscover", "diff", "check-ib"])
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*command.split(), "--help"])
    assert exit_.value.code == 0
    assert "usage:" in capsys.readouterr().out


@pytest.mark.parametrize(("command", "options"), [
    ("validate", ["FILE", "--json", "--catalog", "--strict"]),
    ("solve", ["FILE", "--json", "--catalog", "--strict", "--message-bytes"]),
    ("check-ib", ["FILE", "--json", "--catalog", "--engine", "--keep", "--quiet"]),
    ("diff", ["PLAN", "AS_BUILT", "--json", "--catalog", "--limit"]),
    ("export bom", ["FILE", "--output", "--catalog"]),
    ("catalog", ["--json", "--catalog", "--kind"]),
])
def test_commands_take_their_options(command, options, capsys):
    with pytest.raises(SystemExit):
        main([*command.split(), "--help"])
    text = capsys.readouterr().out
    for option in options:
        assert option.lower() in text.lower(), option


def test_generate_help_shows_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["generate", "rail", "--help"])
    text = capsys.readouterr().out
    assert "default: ib-ndr" in text
    # where the SU default comes from: the rail leaf's radix, as the DGX SuperPOD RAs
    flat = " ".join(text.split())
    assert "32 on QM9700, 72 on Q3400" in flat and "reference architectures" in flat


@pytest.mark.parametrize("content", [b"{\"schema_version\": 1, \"fabric\": ", b"\x00\xff garbage",
                                     b"[]", b"{\"schema_version\": 7}"])
def test_validate_corrupt_file_exits_2_with_one_line(tmp_path, content):
    f = tmp_path / "corrupt.fabric.json"
    f.write_bytes(content)
    out = run("validate", str(f))
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("designer: ")
    assert "Traceback" not in out.stderr


def test_generate_validate_round_trip(tmp_path, capsys):
    f = tmp_path / "pod.fabric.json"
    assert main(["generate", "rail", "--sus", "2", "-o", str(f)]) == 0
    assert "16 leaf, 8 spine" in capsys.readouterr().out
    assert main(["validate", str(f), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["devices"] == 88 and report["links"] == 1024 and report["problems"] == []
    # refuses to overwrite without --force
    assert main(["generate", "rail", "--sus", "2", "-o", str(f)]) == 2


@pytest.mark.parametrize(("args", "message"), [
    (["generate", "rail", "--sus", "16", "--tiers", "2", "--plan"], "at most 2,048 GPUs"),
    (["generate", "fat-tree", "--gpus", "100", "--plan"], "not a whole number"),
    (["generate", "dragonfly", "--p", "20", "--a", "40", "--h", "20", "--plan"], "has 64"),
    (["generate", "rail", "--switch", "sn5600", "--plan"], "Ethernet"),
    (["generate", "rail", "--switch", "nope", "--plan"], "unknown gear 'nope'"),
    (["generate", "fat-tree", "--oversubscription", "1:3000", "--plan"], "1:1000"),
    (["generate", "rail", "--planes", "2", "--plan"], "planes"),
    (["generate", "rail", "--sus", "0", "--plan"], "--sus: must be 1 or more"),
    # balanced defaults on a 128-port router and a*h+1 groups would be 4,196,352 GPUs
    (["generate", "dragonfly", "--gear", "roce-800", "--plan"], "at most 1,048,576: set --groups"),
])
def test_impossible_parameters_exit_2_naming_the_limit(args, message):
    out = run(*args)
    assert out.returncode == 2, out.stdout
    assert message in out.stderr
    assert "Traceback" not in out.stderr


def test_catalog_lists_gear_and_profiles(capsys):
    assert main(["catalog"]) == 0
    text = capsys.readouterr().out
    assert "qm9700" in text and "roce-800" in text and "estimates" in text
    assert main(["catalog", "--json", "--kind", "switch"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {i["kind"] for i in data["items"]} == {"switch"}


def test_missing_file_exits_2(tmp_path):
    out = run("validate", str(tmp_path / "none.fabric.json"))
    assert out.returncode == 2 and "no such file" in out.stderr


def test_catalog_prints_every_name_whole_and_each_port_mode_once(capsys):
    """Names wrap at word boundaries instead of being cut, and a NIC whose modes differ only in
    technology reads "1 x 400G (InfiniBand NDR or Ethernet)", not "1 x 400G or 1 x 400G"."""
    import re

    from designer.core.catalog import builtin_catalog

    assert main(["catalog"]) == 0
    out = capsys.readouterr().out
    words = set(re.findall(r"\S+", out))
    for item in builtin_catalog():
        assert set(item.name.split()) <= words, item.name
    assert "1 x 400G or 1 x 400G" not in out
    line = next(x for x in out.splitlines() if x.strip().startswith("connectx-7 "))
    assert "1 x 400G (InfiniBand NDR or Ethernet)" in line
    assert "1 x 800G (InfiniBand XDR) or 2 x 400G" in out
