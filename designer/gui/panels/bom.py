"""The bill of materials table: live, sortable, with category subtotals and the grand total.

Rows come from the latest result's BOM. Each category is a bold heading row carrying its
subtotal; sorting (a ``QSortFilterProxyModel``) orders the items within their category and
keeps the headings and the grand total (last) in place.
Editing a unit price overrides that item's price in the project as one undoable command; the
edited row and the totals follow at once, and the next solve confirms them. Clearing the cell
(or typing the catalog's price) returns to the catalog's price. GPU servers are listed below
the total for information, as the solver does: they are compute, not network.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QStyledItemDelegate,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from designer.core.errors import DesignerError
from designer.core.solver import CATEGORY_ORDER, BomLine, Result
from designer.core.writers import category_label, order_cells
from designer.gui.panels import fmt
from designer.gui.project import commands

COLUMNS = ("Item", "Qty", "Unit price", "Total", "Power", "Price source")
ITEM, QTY, UNIT, TOTAL, POWER, SOURCE = range(len(COLUMNS))
NUMERIC = (QTY, UNIT, TOTAL, POWER)
ITEM_ROW, SUBTOTAL, GRAND, COMPUTE, COMPUTE_SUBTOTAL = range(5)
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
GROUP_ROLE = Qt.ItemDataRole.UserRole + 2
ID_ROLE = Qt.ItemDataRole.UserRole + 3
MAX_PRICE = 1e9  # the project file's limit


@dataclass(frozen=True)
class _Row:
    kind: int
    category: str
    item: str = ""
    catalog_id: str = ""
    qty: int = 0
    unit: float = 0.0
    total: float = 0.0
    power: float = 0.0
    catalog_price: float | None = None  # when the project overrides the price
    price_kind: str = ""  # catalog | assumption | book | project
    price_source: str = ""
    price_date: str = ""
    order: str = ""  # what to order it by: vendor, part number, supplier SKU, lead time

    @property
    def group(self) -> tuple[int, int]:
        """(category rank, 0 subtotal heading / 1 item): the order sorting must not change."""
        if self.kind == GRAND:
            return (len(CATEGORY_ORDER) + 2, 0)
        if self.kind in (COMPUTE, COMPUTE_SUBTOTAL):
            return (len(CATEGORY_ORDER) + 1, int(self.kind == COMPUTE))
        rank = CATEGORY_ORDER.index(self.category) if self.category in CATEGORY_ORDER else 99
        return (rank, int(self.kind == ITEM_ROW))

    @property
    def editable(self) -> bool:
        return self.kind in (ITEM_ROW, COMPUTE) and bool(self.catalog_id)


class BomModel(QAbstractTableModel):
    """The rows of one BOM. ``priceEdited(catalog_id, price or None)`` asks for an override."""

    priceEdited = Signal(str, object)
    # new figures in the same cells (no row or width changed): views repaint, nothing moves
    figuresChanged = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[_Row] = []
        # new figures may replace old ones in place (False while the view sorts by a column:
        # new figures may reorder the rows, which a reset does)
        self.in_place = True
        self._memo: dict[tuple, object] = {}  # (row, column, role) -> data, until a reset
        self.total_usd = 0.0
        self.gpus = 0

    # -- filling --------------------------------------------------------------------------------
    def set_result(self, result: Result, overridden: dict[str, float] | None = None,
                   catalog_price=None) -> None:
        """Show ``result``'s BOM; ``overridden``: the project's price overrides;
        ``catalog_price(id)``: the price without them (for the tooltip)."""
        overridden = overridden or {}

        def row(line: BomLine, kind: int) -> _Row:
            base = None
            if line.catalog_id in overridden and catalog_price is not None:
                base = catalog_price(line.catalog_id)
            return _Row(kind, line.category, line.item, line.catalog_id, line.qty,
                        line.unit_usd, line.total_usd, line.power_w, base, line.price_kind,
                        line.price_source, line.price_date, order_text(line))

        rows = self._with_subtotals([row(x, ITEM_ROW) for x in result.bom.lines],
                                    [row(x, COMPUTE) for x in result.bom.compute_lines])
        self.gpus = result.gpus
        if rows == self.rows:
            return  # most edits leave the BOM as it was: no relayout, no repaint
        if self.in_place and self.rows and self._shape(rows) == self._shape(self.rows):
            # the same lines with other figures (a switch more or less), no wider: only the
            # cells' figures are new, so the table repaints them (``figuresChanged``). A reset
            # has the table measure every cell again to size rows and columns to their
            # contents, to the same sizes (25 ms of a result's turn at 131,040 GPUs).
            self.rows = rows
            self._memo.clear()
            self.figuresChanged.emit()
            return
        self.beginResetModel()
        self._memo.clear()
        self.rows = rows
        self.endResetModel()

    def _shape(self, rows: list[_Row]) -> tuple:
        """What the table's order, row heights and column widths follow: each row's kind,
        words and fonts, and the widest figure of each column in characters (digits are as
        wide as each other)."""
        lines = [(r.kind, r.category, r.item, r.catalog_id, r.catalog_price is None,
                  self._text(r, SOURCE)) for r in rows]
        widths = [max(len(self._text(r, c)) for r in rows) for c in NUMERIC]
        return lines, widths

    def _with_subtotals(self, items: list[_Row], compute: list[_Row]) -> list[_Row]:
        out: list[_Row] = []
        grand = grand_power = 0.0
        for cat in [*CATEGORY_ORDER, *sorted({r.category for r in items} - set(CATEGORY_ORDER))]:
            mine = [r for r in items if r.category == cat]
            if not mine:
                continue
            tot, pw = sum(r.total for r in mine), sum(r.power for r in mine)
            out.append(_Row(SUBTOTAL, cat, category_label(cat),
                            qty=sum(r.qty for r in mine), total=tot, power=pw))
            out.extend(mine)
            grand += tot
            grand_power += pw
        self.total_usd = grand
        if compute:
            out.append(_Row(COMPUTE_SUBTOTAL, "server", "GPU servers (compute, not in the total)",
                            qty=sum(r.qty for r in compute), total=sum(r.total for r in compute),
                            power=sum(r.power for r in compute)))
            out.extend(compute)
        out.append(_Row(GRAND, "", "Network total", total=grand, power=grand_power))
        return out

    def _recount(self) -> None:
        """Subtotals and total again after a local price change."""
        items = [r for r in self.rows if r.kind == ITEM_ROW]
        compute = [r for r in self.rows if r.kind == COMPUTE]
        self.beginResetModel()
        self._memo.clear()
        self.rows = self._with_subtotals(items, compute)
        self.endResetModel()

    # -- Qt model ---------------------------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal:
            if role == Qt.ItemDataRole.DisplayRole:
                return COLUMNS[section]
            if role == Qt.ItemDataRole.TextAlignmentRole and section in NUMERIC:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if role == Qt.ItemDataRole.ToolTipRole and section == UNIT:
                return "Double-click to override the price for this project (Ctrl+Z undoes)"
        return None

    def flags(self, index: QModelIndex):
        f = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == UNIT and self.rows[index.row()].editable:
            f |= Qt.ItemFlag.ItemIsEditable
        return f

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        # the table sizes its rows and columns to their contents: after each new result it
        # asks every cell for several roles, more than once; the rows only change by a reset
        key = (index.row(), index.column(), role)
        try:
            return self._memo[key]
        except KeyError:
            pass
        out = self._cell(self.rows[index.row()], index.column(), role)
        self._memo[key] = out
        return out

    def _cell(self, r: _Row, c: int, role):
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(r, c)
        if role == Qt.ItemDataRole.EditRole:
            return r.unit if c == UNIT else self._text(r, c)
        if role == SORT_ROLE:
            return (r.item.lower(), r.qty, r.unit, r.total, r.power,
                    self._text(r, SOURCE).lower())[c]
        if role == GROUP_ROLE:
            return r.group
        if role == ID_ROLE:
            return r.catalog_id
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if c in NUMERIC:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and (
                r.kind in (SUBTOTAL, GRAND, COMPUTE_SUBTOTAL)
                or (c == UNIT and r.catalog_price is not None)):
                f = QFont()
                f.setBold(r.kind in (SUBTOTAL, GRAND, COMPUTE_SUBTOTAL))
                f.setItalic(c == UNIT and r.catalog_price is not None)
                return f
        if role == Qt.ItemDataRole.ForegroundRole:
            if r.kind in (COMPUTE, COMPUTE_SUBTOTAL) and not (c == UNIT and r.catalog_price):
                return QColor("#7a8491")
            if c == UNIT and r.catalog_price is not None:
                return QColor("#1f5fa8")
        if role == Qt.ItemDataRole.BackgroundRole:
            if r.kind in (SUBTOTAL, COMPUTE_SUBTOTAL):
                return QColor("#f1f4f7")
            if r.kind == GRAND:
                return QColor("#e1e8f0")
        if role == Qt.ItemDataRole.ToolTipRole:
            if c == UNIT and r.catalog_price is not None:
                return (f"Overridden in this project; catalog price "
                        f"{fmt.money_exact(r.catalog_price)}. Clear the cell to go back.")
            if c == UNIT and r.editable:
                return "Double-click to override this price for the project"
            if c == ITEM and r.catalog_id:
                return f"{r.item}\ncatalog id: {r.catalog_id}\n{r.order}"
            if c == SOURCE and r.price_kind:
                return source_tip(r)
            if r.kind == COMPUTE_SUBTOTAL:
                return "GPU servers are compute: listed for information, not in the network total"
        return None

    @staticmethod
    def _text(r: _Row, c: int) -> str:
        if c == ITEM:
            return ("    " + r.item) if r.kind in (ITEM_ROW, COMPUTE) else r.item
        if c == QTY:
            return f"{r.qty:,}" if r.kind != GRAND else ""
        if c == UNIT:
            return fmt.money_exact(r.unit) if r.kind in (ITEM_ROW, COMPUTE) else ""
        if c == TOTAL:
            return f"${r.total:,.0f}"
        if c == POWER:
            return fmt.power(r.power) if r.power else ""
        if c == SOURCE and r.kind in (ITEM_ROW, COMPUTE):
            return source_text(r)
        return ""

    def setData(self, index: QModelIndex, value, role=Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or index.column() != UNIT:
            return False
        r = self.rows[index.row()]
        if not r.editable:
            return False
        price = parse_price(value)
        if price is False:
            return False
        self.priceEdited.emit(r.catalog_id, price)
        return True

    def show_price(self, catalog_id: str, price: float, catalog_price: float | None) -> None:
        """Show a new unit price at once (the next solve confirms it)."""
        self.rows = [replace(r, unit=price, total=price * r.qty, catalog_price=catalog_price)
                     if r.catalog_id == catalog_id and r.kind in (ITEM_ROW, COMPUTE) else r
                     for r in self.rows]
        self._recount()


def order_text(line: BomLine) -> str:
    """The item tooltip's ordering lines: part number (and vendor), the book's SKU and lead."""
    vendor, part, sku, lead, _src = order_cells(line)
    out = f"part number: {part}" + (f" ({vendor})" if vendor else "")
    if sku:
        out += f"\nsupplier SKU: {sku}"
    if lead:
        out += f"\nlead time: {lead}"
    return out


def source_text(r: _Row) -> str:
    """The Price source cell: the book's name, the project, or the catalog's date."""
    if r.price_kind == "book":
        # the book's name only: its currency and date are in the tooltip
        name = r.price_source.split("'", 2)[1] if r.price_source.count("'") >= 2 else \
            r.price_source
        return f"book: {name}"
    if r.price_kind == "project":
        return "this project"
    when = f" · {r.price_date}" if r.price_date else ""
    return ("assumed" if r.price_kind == "assumption" else "catalog") + when


def source_tip(r: _Row) -> str:
    if r.price_kind == "book":
        return f"Unit price from {r.price_source}"
    if r.price_kind == "project":
        return "Unit price set in this project (clear the cell to go back)"
    what = "An assumption" if r.price_kind == "assumption" else "Catalog estimate"
    when = f" ({r.price_date})" if r.price_date else ""
    return f"{what}{when}: {r.price_source}"


def parse_price(value) -> float | bool | None:
    """A price from what the user typed: a number (``$1,900`` is fine), None for an empty
    cell (back to the catalog's price), False when it is not a price."""
    if value is None:
        return None
    if isinstance(value, int | float):
        x = float(value)
    else:
        text = str(value).strip().replace("$", "").replace(",", "").replace(" ", "")
        if not text:
            return None
        mult = 1.0
        if text[-1:].lower() in ("k", "m"):
            mult = 1e3 if text[-1].lower() == "k" else 1e6
            text = text[:-1]
        try:
            x = float(text) * mult
        except ValueError:
            return False
    if not (0 <= x <= MAX_PRICE):
        return False
    return x


class BomProxy(QSortFilterProxyModel):
    """Sorts items within their category; subtotals and the total keep their places."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterKeyColumn(ITEM)

    def lessThan(self, left: QModelIndex, right: QModelIndex) -> bool:
        src = self.sourceModel()
        gl = src.data(left, GROUP_ROLE)
        gr = src.data(right, GROUP_ROLE)
        if gl != gr:
            # descending order asks lessThan(right, left): answer so the groups stay put
            if self.sortOrder() == Qt.SortOrder.DescendingOrder:
                return gr < gl
            return gl < gr
        a, b = src.data(left, SORT_ROLE), src.data(right, SORT_ROLE)
        try:
            return a < b
        except TypeError:
            return str(a) < str(b)

    def filterAcceptsRow(self, row: int, parent: QModelIndex) -> bool:
        src = self.sourceModel()
        r = src.rows[row]
        if r.kind not in (ITEM_ROW, COMPUTE) or not self.filterRegularExpression().pattern():
            return True
        needle = self.filterRegularExpression().pattern().lower()
        return (needle in r.item.lower() or needle in r.catalog_id.lower()
                or needle in r.category.lower())


class _PriceDelegate(QStyledItemDelegate):
    """A plain text editor for prices: "$1,900", "1.9k" or empty (the catalog's price)."""

    def createEditor(self, parent, option, index):
        editor = QLineEdit(parent)
        editor.setPlaceholderText("catalog price")
        editor.setAlignment(Qt.AlignmentFlag.AlignRight)
        return editor

    def setEditorData(self, editor, index) -> None:
        value = index.data(Qt.ItemDataRole.EditRole)
        editor.setText(f"{value:.2f}".rstrip("0").rstrip(".") if isinstance(value, float)
                       else str(value or ""))
        editor.selectAll()

    def setModelData(self, editor, model, index) -> None:
        model.setData(index, editor.text(), Qt.ItemDataRole.EditRole)


class BomPanel(QWidget):
    def __init__(self, service, document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        self.model = BomModel(self)
        self.proxy = BomProxy(self)
        self.proxy.setSourceModel(self.model)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(4)
        top = QHBoxLayout()
        self.summary = QLabel("–")
        self.summary.setObjectName("sectionTitle")
        self.filter = QLineEdit()
        self.filter.setObjectName("search")
        self.filter.setPlaceholderText("Filter items…")
        self.filter.setClearButtonEnabled(True)
        self.filter.setMaximumWidth(220)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        top.addWidget(self.summary, 1)
        top.addWidget(self.filter)
        lay.addLayout(top)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the BOM's own order
        self.table.setItemDelegateForColumn(UNIT, _PriceDelegate(self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed
                                   | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(20)
        # names and sources wrap onto more lines rather than being cut (a BOM has tens of
        # lines, so measuring each row's height costs nothing)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(False)
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        head = self.table.horizontalHeader()
        # figures always whole (a BOM is read to the dollar); the item name takes the rest
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(ITEM, QHeaderView.ResizeMode.Stretch)
        # the source is a pointer (its tooltip has the whole story): never wider than this
        head.setSectionResizeMode(SOURCE, QHeaderView.ResizeMode.Interactive)
        self.table.setColumnWidth(SOURCE, 116)
        head.setHighlightSections(False)
        lay.addWidget(self.table, 1)
        self.hint = QLabel("Double-click a unit price to override it for this project; "
                           "Ctrl+Z undoes.")
        self.hint.setObjectName("hint")
        lay.addWidget(self.hint)
        # physical cables and paid-for switch ports left unused, under the table they cost in
        self.note = QLabel("")
        self.note.setObjectName("hint")
        self.note.setWordWrap(True)
        lay.addWidget(self.note)
        # queued: the override resets the model, which must not happen inside the editor's commit
        self.model.priceEdited.connect(self.set_price, Qt.ConnectionType.QueuedConnection)
        service.resultReady.connect(self.show_result)
        self.model.figuresChanged.connect(self.table.viewport().update)
        self.table.horizontalHeader().sortIndicatorChanged.connect(
            lambda column, _order: setattr(self.model, "in_place", column < 0))

    def _catalog_price(self, catalog_id: str) -> float | None:
        """The price without the project's own override: the catalog's, or a price book's."""
        project = self.doc.project
        bare = project.model_copy(update={
            "overrides": project.overrides.model_copy(update={"prices": {}})})
        try:
            return bare.catalog(self.doc.base_catalog).price(catalog_id)
        except DesignerError:
            return None

    def show_result(self, _revision: int, r: Result) -> None:
        self.model.set_result(r, dict(self.doc.project.overrides.prices), self._catalog_price)
        self._summary()
        self._note(r)

    def _note(self, r: Result) -> None:
        parts = [f"{r.cables.total:,} physical cables for {r.links.total:,} links"]
        for g in r.ports.stranded:
            parts.append(f"{g.switches:,} {g.model} {g.tier} switch(es) use {g.used:,} of "
                         f"{g.total:,} ports: {fmt.money(g.unused_usd)} of switch price unused")
        self.note.setText(" · ".join(parts) if r.links.total else "")

    def _summary(self) -> None:
        m = self.model
        n = len(self.doc.project.overrides.prices)
        per = f" · {fmt.money_exact(round(m.total_usd / m.gpus))} per GPU" if m.gpus else ""
        over = f" · {fmt.plural(n, 'price')} overridden" if n else ""
        books = len(self.doc.project.sources.price_books)
        if books:
            over += f" · {fmt.plural(books, 'price book')}"
        self.summary.setText(f"Network total {fmt.money_exact(round(m.total_usd))}{per}{over}")

    def set_price(self, catalog_id: str, price: float | None) -> None:
        """Override (or reset, with None) a unit price: one undoable command."""
        base = self._catalog_price(catalog_id)
        if price is not None and base is not None and abs(price - base) < 0.005:
            price = None  # the catalog's own price: no override needed
        current = self.doc.project.overrides.prices.get(catalog_id)
        if price == current:
            return
        try:
            self.doc.push(commands.set_price(self.doc, catalog_id, price))
        except DesignerError as exc:
            self.doc.say(str(exc), True)
            return
        shown = price if price is not None else base
        if shown is not None:
            self.model.show_price(catalog_id, shown, base if price is not None else None)
            self._summary()
