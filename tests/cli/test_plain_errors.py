"""Refusals speak the tool's own words, not the validation library's."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field, ValidationError

from designer.cli.main import main
from designer.core.text import plain_error


class _M(BaseModel):
    n: int = Field(1, ge=1, le=10_000)
    x: float = Field(1.0, gt=0)


@pytest.mark.parametrize(("value", "said"), [
    ({"n": 0}, "must be 1 or more"),
    ({"n": 20_000}, "must be 10,000 or less"),
    ({"n": "two"}, "must be a whole number"),
    ({"x": 0}, "must be more than 0"),
    ({"x": "lots"}, "must be a number"),
])
def test_each_rule_in_plain_words(value, said):
    with pytest.raises(ValidationError) as exc:
        _M.model_validate(value)
    assert plain_error(exc.value.errors()[0]) == said


def test_an_unknown_rule_keeps_its_own_message_without_the_prefix():
    assert plain_error({"type": "value_error", "msg": "Value error, radix too small"}) == \
        "radix too small"


def test_generate_says_it_plainly(capsys, tmp_path):
    assert main(["generate", "rail", "--gpus", "0", "-o", str(tmp_path / "x.fabric.json")]) == 2
    err = capsys.readouterr().err
    assert "--gpus: must be 1 or more" in err and "Input should" not in err
