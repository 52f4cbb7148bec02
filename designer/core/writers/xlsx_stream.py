"""A small, fast xlsx writer for long plain tables (cabling plans of hundreds of thousands of
cables).

openpyxl spends about 20 microseconds per cell serialising XML: a 200,000-cable plan (2.4
million cells) took about 40 s. Here every cell's XML is built once per distinct value of its
column (device names, ports and media repeat) and rows are joined as text, about 15 times
faster. Only what a table needs is supported: text, numbers, a few fixed styles, column
widths, a frozen header and an auto-filter. Text is always an inline string (never a formula);
text a spreadsheet could read as a formula also gets the quote-prefix style. A sheet can also
be set up for paper (``Printed``: A4, grid lines, a page heading, the header row on every page)
with ``Heading`` rows that each start a new page. Formulas and richer layout (the BOM
workbook) go through openpyxl in ``xlsx.py``.
"""

from __future__ import annotations

import io
import os
import re
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from xml.sax.saxutils import escape, quoteattr

from designer.core.writers.output import write_bytes
from designer.core.writers.safety import is_formula_like, xlsx_header_text, xlsx_text

MAX_ROWS = 1_048_576
_CR = {"\r": "&#13;"}
PROGRESS_EVERY = 5000

# cell styles (indexes into cellXfs below)
DEFAULT, HEADER, QUOTED, INT, DEC, TITLE, MUTED, BOLD, BOLD_INT, SECTION = range(10)
KIND_STYLE = {"text": DEFAULT, "int": INT, "dec": DEC}

_STYLES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<numFmts count="1"><numFmt numFmtId="164" formatCode="#,##0.0"/></numFmts>
<fonts count="6">
<font><sz val="11"/><name val="Calibri"/><family val="2"/></font>
<font><b/><sz val="11"/><color rgb="FFFFFFFF"/><name val="Calibri"/><family val="2"/></font>
<font><b/><sz val="14"/><name val="Calibri"/><family val="2"/></font>
<font><i/><sz val="11"/><color rgb="FF555555"/><name val="Calibri"/><family val="2"/></font>
<font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font>
<font><b/><sz val="12"/><color rgb="FF1F3B5C"/><name val="Calibri"/><family val="2"/></font>
</fonts>
<fills count="4"><fill><patternFill patternType="none"/></fill>
<fill><patternFill patternType="gray125"/></fill>
<fill><patternFill patternType="solid"><fgColor rgb="FF1F3B5C"/><bgColor indexed="64"/>\
</patternFill></fill>
<fill><patternFill patternType="solid"><fgColor rgb="FFEEF2F7"/><bgColor indexed="64"/>\
</patternFill></fill></fills>
<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>
<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>
<cellXfs count="10">
<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>
<xf numFmtId="0" fontId="1" fillId="2" borderId="0" xfId="0" applyFont="1" applyFill="1" \
applyAlignment="1"><alignment vertical="center" wrapText="1"/></xf>
<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0" quotePrefix="1"/>
<xf numFmtId="3" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
<xf numFmtId="0" fontId="2" fillId="0" borderId="0" xfId="0" applyFont="1"/>
<xf numFmtId="0" fontId="3" fillId="0" borderId="0" xfId="0" applyFont="1"/>
<xf numFmtId="0" fontId="4" fillId="0" borderId="0" xfId="0" applyFont="1"/>
<xf numFmtId="3" fontId="4" fillId="0" borderId="0" xfId="0" applyFont="1" \
applyNumberFormat="1"/>
<xf numFmtId="0" fontId="5" fillId="3" borderId="0" xfId="0" applyFont="1" applyFill="1"/>
</cellXfs>
<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>
</styleSheet>
"""


@dataclass(frozen=True)
class StreamColumn:
    header: str
    width: float = 12
    kind: str = "text"  # text | int | dec


@dataclass(frozen=True)
class Heading:
    """A row of one text cell in the section style; on a printed sheet it starts a new page
    (but the first)."""

    text: str


@dataclass(frozen=True)
class Printed:
    """A sheet set up for paper: A4 landscape, fitted to the page width, grid lines printed,
    ``heading`` at the top of every page, the header row repeated on every page and the page
    number at the foot."""

    heading: str


@dataclass
class StreamSheet:
    """A sheet: optional lines above the table (text, style), then a header and rows."""

    name: str
    columns: Sequence[StreamColumn]
    rows: Iterable[Sequence[object] | Heading]  # a Heading: a section title row
    preamble: Sequence[tuple[object, int]] = ()
    footer: Sequence[Sequence[tuple[object, int]]] = ()
    total: int = 0  # expected rows, for progress
    filter: bool = True
    printed: Printed | None = None
    _parts: list[str] = field(default_factory=list)


def _col_letter(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(65 + r) + s
    return s


def _text_xml(value: str, style: int = DEFAULT) -> str:
    text = xlsx_text(value)
    if style == DEFAULT and is_formula_like(text):
        style = QUOTED
    space = ' xml:space="preserve"' if text != text.strip() else ""
    s = f' s="{style}"' if style else ""
    # a bare CR would be read back as LF (XML line-end rules): keep it as a character reference
    return f'<c t="inlineStr"{s}><is><t{space}>{escape(text, _CR)}</t></is></c>'


def _cell_xml(value: object, style: int) -> str:
    if value is None or value == "":
        return "<c/>" if not style else f'<c s="{style}"/>'
    if isinstance(value, str):
        return _text_xml(value, DEFAULT if style in (INT, DEC) else style)
    s = f' s="{style}"' if style else ""
    if isinstance(value, bool):
        return f'<c t="b"{s}><v>{int(value)}</v></c>'
    number = float(value)  # type: ignore[arg-type]
    if number != number or number in (float("inf"), float("-inf")):
        return "<c/>"
    v = repr(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)
    return f"<c{s}><v>{v}</v></c>"


def _header_footer_xml(text: str) -> str:
    """A page heading centred: '&' starts a code there (&P is the page number), so the text's
    own '&' is doubled."""
    return escape("&C" + xlsx_header_text(text))


def _printed_xml(printed: Printed, breaks: list[int]) -> str:
    out = ['<printOptions gridLines="1"/>'
           '<pageMargins left="0.75" right="0.75" top="1" bottom="1" header="0.5" footer="0.5"/>'
           '<pageSetup orientation="landscape" paperSize="9" fitToWidth="1" fitToHeight="0"/>'
           f"<headerFooter><oddHeader>{_header_footer_xml(printed.heading)}</oddHeader>"
           f"<oddFooter>{escape('&CPage &P of &N')}</oddFooter></headerFooter>"]
    if breaks:
        out.append(f'<rowBreaks count="{len(breaks)}" manualBreakCount="{len(breaks)}">'
                   + "".join(f'<brk id="{b}" max="16383" man="1"/>' for b in breaks)
                   + "</rowBreaks>")
    return "".join(out)


def _sheet_xml(sheet: StreamSheet, first_sheet: bool,
               progress: Callable[[int, int], None] | None) -> tuple[bytes, int, str | None]:
    cols = sheet.columns
    out: list[str] = [
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        # print all columns across one page width
        '<sheetPr><pageSetUpPr fitToPage="1"/></sheetPr>'
    ]
    header_row = len(sheet.preamble) + (2 if sheet.preamble else 1)
    pane = (
        f'<pane ySplit="{header_row}" topLeftCell="A{header_row + 1}" activePane="bottomLeft"'
        ' state="frozen"/><selection pane="bottomLeft"/>'
    )
    selected = ' tabSelected="1"' if first_sheet else ""
    out.append(f'<sheetViews><sheetView workbookViewId="0"{selected}>{pane}</sheetView>'
               "</sheetViews>")
    out.append("<cols>" + "".join(
        f'<col min="{i + 1}" max="{i + 1}" width="{c.width}" customWidth="1"/>'
        for i, c in enumerate(cols)) + "</cols><sheetData>")
    r = 0
    for value, style in sheet.preamble:
        r += 1
        out.append(f'<row r="{r}">{_cell_xml(value, style)}</row>')
    if sheet.preamble:
        r += 1  # a blank line between the notes and the table
    r += 1
    out.append(f'<row r="{r}" ht="30" customHeight="1">'
               + "".join(_text_xml(c.header, HEADER) for c in cols) + "</row>")
    styles = [KIND_STYLE[c.kind] for c in cols]
    caches: list[dict] = [{} for _ in cols]
    n = 0
    chunk: list[str] = []
    breaks: list[int] = []  # rows a new page follows
    headings = 0
    for row in sheet.rows:
        r += 1
        n += 1
        if r > MAX_ROWS:
            raise OverflowError("sheet full")
        if type(row) is Heading:
            if headings:
                breaks.append(r - 1)
            headings += 1
            chunk.append(f'<row r="{r}">{_text_xml(row.text, SECTION)}</row>')
            continue
        parts = []
        for v, cache, st in zip(row, caches, styles, strict=True):
            x = cache.get(v)
            if x is None:
                x = _cell_xml(v, st)
                if len(cache) < 200_000:
                    cache[v] = x
            parts.append(x)
        chunk.append(f'<row r="{r}">{"".join(parts)}</row>')
        if n % PROGRESS_EVERY == 0:
            out.append("".join(chunk))
            chunk.clear()
            if progress is not None:
                progress(n, sheet.total)
    out.append("".join(chunk))
    last_table_row = r
    for line in sheet.footer:
        r += 1
        out.append(f'<row r="{r}">' + "".join(_cell_xml(v, s) for v, s in line) + "</row>")
    out.append("</sheetData>")
    ref = None
    if sheet.filter:
        ref = f"A{header_row}:{_col_letter(len(cols) - 1)}{max(last_table_row, header_row)}"
        out.append(f'<autoFilter ref="{ref}"/>')
    if sheet.printed is not None:
        out.append(_printed_xml(sheet.printed, breaks) + "</worksheet>")
    else:
        out.append('<pageMargins left="0.5" right="0.5" top="0.75" bottom="0.75" header="0.3" '
                   'footer="0.3"/><pageSetup orientation="landscape" fitToWidth="1" '
                   'fitToHeight="0"/></worksheet>')
    return "".join(out).encode("utf-8"), header_row, ref


def _split(sheets: Sequence[StreamSheet]) -> list[StreamSheet]:
    """Sheets longer than a spreadsheet allows continue on '(2)', '(3)' ... sheets."""
    out: list[StreamSheet] = []
    for s in sheets:
        per = MAX_ROWS - len(s.preamble) - len(s.footer) - 3
        it = iter(s.rows)
        part = 0
        while True:
            block = _take(it, per)
            if part and not block:
                break
            part += 1
            name = s.name if part == 1 else f"{s.name} ({part})"
            out.append(StreamSheet(name[:31], s.columns, block,
                                   s.preamble if part == 1 else (), s.footer, s.total, s.filter,
                                   s.printed))
            if len(block) < per:
                break
    return out


def _take(it, n: int) -> list:
    block = []
    for row in it:
        block.append(row)
        if len(block) == n:
            break
    return block


def workbook_bytes(sheets: Sequence[StreamSheet], title: str = "",
                   progress: Callable[[int, int], None] | None = None) -> bytes:
    sheets = _split(sheets)
    buf = io.BytesIO()
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    names = [s.name for s in sheets]
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=5) as z:
        z.writestr("[Content_Types].xml", _content_types(len(sheets)))
        z.writestr("_rels/.rels", _ROOT_RELS)
        z.writestr("docProps/core.xml", _core(title, now))
        z.writestr("docProps/app.xml", _APP)
        z.writestr("xl/styles.xml", _STYLES)
        z.writestr("xl/_rels/workbook.xml.rels", _workbook_rels(len(sheets)))
        refs = []
        titles: list[int | None] = []  # the header row repeated on every printed page
        for i, s in enumerate(sheets):
            data, header_row, ref = _sheet_xml(s, i == 0, progress)
            refs.append(ref)
            titles.append(header_row if s.printed is not None else None)
            z.writestr(f"xl/worksheets/sheet{i + 1}.xml", data)
        z.writestr("xl/workbook.xml", _workbook(names, refs, titles))
    return buf.getvalue()


def write_workbook(path: str | os.PathLike[str], sheets: Sequence[StreamSheet], title: str = "",
                   progress: Callable[[int, int], None] | None = None) -> None:
    write_bytes(path, workbook_bytes(sheets, title, progress))


_ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="xl/workbook.xml"/>'
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/'
    'metadata/core-properties" Target="docProps/core.xml"/>'
    '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/extended-properties" Target="docProps/app.xml"/></Relationships>'
)
_APP = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties">'
    "<Application>Fabric Designer</Application></Properties>"
)


def _core(title: str, now: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/'
        'core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" '
        'xmlns:dcterms="http://purl.org/dc/terms/" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        f"<dc:title>{escape(xlsx_text(title))}</dc:title><dc:creator>Fabric Designer</dc:creator>"
        f'<dcterms:created xsi:type="dcterms:W3CDTF">{now}</dcterms:created>'
        "</cp:coreProperties>"
    )


def _content_types(n: int) -> str:
    sheets = "".join(
        f'<Override PartName="/xl/worksheets/sheet{i + 1}.xml" ContentType="application/'
        'vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' for i in range(n)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/'
        'vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/'
        'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/styles.xml" ContentType="application/'
        'vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
        '<Override PartName="/docProps/core.xml" ContentType="application/'
        'vnd.openxmlformats-package.core-properties+xml"/>'
        '<Override PartName="/docProps/app.xml" ContentType="application/'
        'vnd.openxmlformats-officedocument.extended-properties+xml"/>'
        f"{sheets}</Types>"
    )


def _workbook_rels(n: int) -> str:
    rels = "".join(
        f'<Relationship Id="rId{i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/'
        f'2006/relationships/worksheet" Target="worksheets/sheet{i + 1}.xml"/>' for i in range(n)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'{rels}<Relationship Id="rId{n + 1}" Type="http://schemas.openxmlformats.org/'
        'officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>'
    )


def _quote_sheet(name: str) -> str:
    return "'" + name.replace("'", "''") + "'"


def _workbook(names: Sequence[str], refs: Sequence[str | None],
              titles: Sequence[int | None]) -> str:
    sheets = "".join(
        f'<sheet name={quoteattr(xlsx_text(n))} sheetId="{i + 1}" '
        f'r:id="rId{i + 1}"/>' for i, n in enumerate(names)
    )
    defined = "".join(
        f'<definedName name="_xlnm._FilterDatabase" localSheetId="{i}" hidden="1">'
        f"{escape(_quote_sheet(n))}!{_abs(ref)}</definedName>"
        for i, (n, ref) in enumerate(zip(names, refs, strict=True)) if ref
    ) + "".join(
        f'<definedName name="_xlnm.Print_Titles" localSheetId="{i}">'
        f"{escape(_quote_sheet(n))}!${t}:${t}</definedName>"
        for i, (n, t) in enumerate(zip(names, titles, strict=True)) if t
    )
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        '<bookViews><workbookView activeTab="0"/></bookViews>'
        f"<sheets>{sheets}</sheets>"
        + (f"<definedNames>{defined}</definedNames>" if defined else "")
        + "</workbook>"
    )


def _abs(ref: str) -> str:
    return re.sub(r"([A-Z]+)(\d+)", r"$\1$\2", ref)
