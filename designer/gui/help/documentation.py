"""Help > Documentation: the site's pages read inside the app (they ship with the package), a
list of pages in the site's order beside the page, links between pages followed, Back and
Forward, and the site itself when a built copy sits beside the checkout."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QImage, QKeySequence, QTextDocument
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
)

from designer.core.docs import Page, docs_dir, page_markdown, pages

PATH_ROLE = 0x0100 + 1  # Qt.UserRole + 1


class DocBrowser(QTextBrowser):
    """Renders the pages' Markdown; a link to another page opens it here, with its anchor."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._follow)
        self.current = ""
        self.back: list[str] = []
        self.forward: list[str] = []
        self.external: list[QUrl] = []  # links out of the pages: handed to the system

    def loadResource(self, kind: int, url: QUrl):
        """Pictures scaled down to the page's width: the window's screenshots are wider than a
        reading column."""
        res = super().loadResource(kind, url)
        if kind == QTextDocument.ResourceType.ImageResource.value:
            img = res if isinstance(res, QImage) else QImage.fromData(res)
            width = max(self.viewport().width() - 40, 200)
            if not img.isNull() and img.width() > width:
                return img.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
        return res

    def show_page(self, rel: str, remember: bool = True) -> None:
        rel, _, anchor = rel.partition("#")
        if remember and self.current and rel != self.current:
            self.back.append(self.current)
            self.forward.clear()
        self.current = rel
        folder = (docs_dir() / rel).parent
        self.document().setBaseUrl(QUrl.fromLocalFile(str(folder) + "/"))
        self.setSearchPaths([str(folder), str(docs_dir())])
        self.setMarkdown(page_markdown(rel))
        if anchor:
            self.scrollToAnchor(anchor)
        else:
            self.verticalScrollBar().setValue(0)

    def go_back(self) -> None:
        if self.back:
            self.forward.append(self.current)
            self.show_page(self.back.pop(), remember=False)

    def go_forward(self) -> None:
        if self.forward:
            self.back.append(self.current)
            self.show_page(self.forward.pop(), remember=False)

    def _follow(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https", "mailto"):
            from PySide6.QtGui import QDesktopServices

            self.external.append(url)
            QDesktopServices.openUrl(url)
            return
        target = url.toString()
        if target.startswith("#"):
            self.scrollToAnchor(target[1:])
            return
        if url.isLocalFile():
            path = url.toLocalFile()
            root = str(docs_dir())
            target = path[len(root) + 1:] if path.startswith(root) else path
            if url.fragment():
                target += "#" + url.fragment()
        base = self.current.rpartition("/")[0]
        page, _, anchor = target.partition("#")
        if not page.startswith(("/", str(docs_dir()))) and base and "/" not in page.lstrip("./"):
            page = f"{base}/{page}"
        page = _normalise(page)
        if page.endswith("/"):
            page += "index.md"
        self.show_page(page + (f"#{anchor}" if anchor else ""))


def _normalise(path: str) -> str:
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
        else:
            parts.append(part)
    return "/".join(parts)


class DocumentationDialog(QDialog):
    def __init__(self, parent=None, start: str = "index.md") -> None:
        super().__init__(parent)
        self.setWindowTitle("Fabric Designer documentation")
        self.resize(1100, 760)
        lay = QVBoxLayout(self)
        bar = QHBoxLayout()
        self.back = QPushButton("Back")
        self.back.setShortcut(QKeySequence.StandardKey.Back)
        self.back.setToolTip("The page before (Alt+Left)")
        self.fwd = QPushButton("Forward")
        self.fwd.setShortcut(QKeySequence.StandardKey.Forward)
        self.fwd.setToolTip("The page after (Alt+Right)")
        bar.addWidget(self.back)
        bar.addWidget(self.fwd)
        bar.addStretch(1)
        lay.addLayout(bar)
        split = QSplitter()
        self.toc = QListWidget()
        self.toc.setMinimumWidth(240)
        self.toc.setMaximumWidth(340)
        self.toc.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.toc.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.browser = DocBrowser()
        split.addWidget(self.toc)
        split.addWidget(self.browser)
        split.setStretchFactor(1, 1)
        lay.addWidget(split, 1)
        self.pages: list[Page] = pages()
        section = None
        for p in self.pages:
            if p.section and p.section != section:
                head = QListWidgetItem(p.section)
                f = head.font()
                f.setBold(True)
                head.setFont(f)
                head.setFlags(head.flags() & ~head.flags())  # a heading: not selectable
                self.toc.addItem(head)
                section = p.section
            item = QListWidgetItem(f"  {p.title}")
            item.setData(PATH_ROLE, p.path)
            item.setToolTip(p.path)
            self.toc.addItem(item)
        self.toc.itemActivated.connect(self._open_item)
        self.toc.itemClicked.connect(self._open_item)
        self.back.clicked.connect(self.browser.go_back)
        self.fwd.clicked.connect(self.browser.go_forward)
        self.browser.show_page(start)

    def _open_item(self, item: QListWidgetItem) -> None:
        rel = item.data(PATH_ROLE)
        if rel:
            self.browser.show_page(rel)
