"""The JSON Schemas the documentation publishes (generated from the loader's pydantic models by
``docs/hooks/reference_tables.py``) describe the files the tool really reads: every bundled
project, catalog file and sweep spec passes, and a file the loader refuses fails."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from tests._paths import ROOT


def _hook():
    path = ROOT / "docs" / "hooks" / "reference_tables.py"
    spec = importlib.util.spec_from_file_location("reference_tables", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCHEMAS = _hook().SCHEMAS


def _validator(name: str) -> jsonschema.Draft202012Validator:
    schema = SCHEMAS[name][0]()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("path", sorted((ROOT / "projects").glob("*.fabric.json")),
                         ids=lambda p: p.name)
def test_every_example_project_fits_the_project_schema(path: Path) -> None:
    _validator("project").validate(json.loads(path.read_text()))


def test_a_link_to_port_zero_breaks_the_project_schema() -> None:
    """Ports are numbered from 1: the loader refuses port 0, and so does the schema."""
    raw = json.loads((ROOT / "projects" / "k-ary-fat-tree-k8.fabric.json").read_text())
    raw["fabric"]["links"]["a_port"][0] = 0
    assert not _validator("project").is_valid(raw)


def test_an_unknown_top_level_key_breaks_the_project_schema() -> None:
    raw = json.loads((ROOT / "projects" / "k-ary-fat-tree-k8.fabric.json").read_text())
    raw["colour"] = "blue"
    assert not _validator("project").is_valid(raw)


@pytest.mark.parametrize("path", sorted((ROOT / "resources" / "catalog").glob("*.json")),
                         ids=lambda p: p.name)
def test_every_catalog_file_fits_the_catalog_schema(path: Path) -> None:
    _validator("catalog").validate(json.loads(path.read_text()))


@pytest.mark.parametrize("path", sorted((ROOT / "projects").glob("*.sweep.yaml")),
                         ids=lambda p: p.name)
def test_every_bundled_sweep_spec_fits_the_sweep_schema(path: Path) -> None:
    _validator("sweep-spec").validate(yaml.load(path.read_text(), Loader=yaml.CSafeLoader))
