"""Shared helpers of the export tests: small designs and a formula evaluator for read-back."""

from __future__ import annotations

import re

from openpyxl.utils import column_index_from_string, get_column_letter

_REF = r"(?:(\w+)!)?\$?([A-Z]{1,3})\$?(\d+)"


class Sheets:
    """Evaluates the formulas this project writes (products, sums, quotients, references to
    other sheets) over the values openpyxl reads back, as a spreadsheet program would."""

    FORMULA = re.compile(r"^=[A-Za-z0-9!$:,*/+\-(). ]+$")

    def __init__(self, wb) -> None:
        self.wb = wb
        self.overrides: dict[tuple[str, str], object] = {}

    def set(self, sheet: str, ref: str, value: object) -> None:
        self.overrides[(sheet, ref)] = value

    def value(self, sheet: str, ref: str) -> float:
        if (sheet, ref) in self.overrides:
            return float(self.overrides[(sheet, ref)])  # type: ignore[arg-type]
        cell = self.wb[sheet][ref]
        v = cell.value
        if cell.data_type == "f":
            return self.evaluate(sheet, str(v))
        return float(v or 0)

    def _range(self, sheet: str, a: str, b: str) -> list[float]:
        ca, ra = re.match(r"([A-Z]+)(\d+)", a).groups()
        cb, rb = re.match(r"([A-Z]+)(\d+)", b).groups()
        out = []
        for col in range(column_index_from_string(ca), column_index_from_string(cb) + 1):
            for row in range(int(ra), int(rb) + 1):
                out.append(self.value(sheet, f"{get_column_letter(col)}{row}"))
        return out

    def evaluate(self, sheet: str, formula: str) -> float:
        assert self.FORMULA.match(formula), f"unexpected formula {formula!r}"
        expr = formula[1:]

        def sums(m: re.Match) -> str:
            total = 0.0
            for part in m.group(1).split(","):
                if ":" in part:
                    a, b = part.split(":")
                    total += sum(self._range(sheet, a.strip(), b.strip()))
                else:
                    total += self._ref(sheet, part.strip())
            return repr(total)

        expr = re.sub(r"SUM\(([^()]*)\)", sums, expr)
        expr = re.sub(_REF, lambda m: repr(self._ref(sheet, m.group(0))), expr)
        assert re.fullmatch(r"[0-9eE.+\-*/() ]+", expr), expr
        return float(eval(expr))  # arithmetic only, checked above

    def _ref(self, sheet: str, ref: str) -> float:
        m = re.fullmatch(_REF, ref)
        assert m, ref
        other, col, row = m.groups()
        return self.value(other or sheet, f"{col}{row}")
