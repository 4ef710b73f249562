"""One converter per external format, chosen by file suffix. Pure: bytes in, Markdown out."""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass

from engram_lab.errors import IngestError
from engram_lab.ingest.html_markdown import html_to_markdown
from engram_lab.ingest.tables import markdown_table
from engram_lab.ingest.textdecode import decode_external_text


@dataclass(frozen=True)
class Conversion:
    title: str | None  # from the file itself (HTML <title>, PDF or DOCX metadata), if it has one
    markdown: str
    format: str


def _txt(data: bytes, name: str) -> Conversion:
    text = decode_external_text(data, name).replace("\r\n", "\n")
    return Conversion(None, text, "txt")


def _html(data: bytes, name: str) -> Conversion:
    title, markdown = html_to_markdown(decode_external_text(data, name))
    return Conversion(title or None, markdown, "html")


def _delimited(delimiter: str | None) -> Callable[[bytes, str], Conversion]:
    def convert(data: bytes, name: str) -> Conversion:
        text = decode_external_text(data, name)
        sep = delimiter
        if sep is None:  # European spreadsheets write ';'; the header line tells which one this is
            header = text.split("\n", 1)[0]
            sep = ";" if header.count(";") > header.count(",") else ","
        try:
            rows = [row for row in csv.reader(io.StringIO(text, newline=""), delimiter=sep) if any(c.strip() for c in row)]
        except csv.Error as exc:
            raise IngestError(f"{name}: malformed {'TSV' if sep == chr(9) else 'CSV'}: {exc}") from None
        if not rows:
            raise IngestError(f"{name}: no rows to convert")
        return Conversion(None, markdown_table(rows[0], rows[1:]), "tsv" if sep == "\t" else "csv")

    return convert


def _pdf(data: bytes, name: str) -> Conversion:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise IngestError(f"{name}: the PDF is password-protected")
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
        title = reader.metadata.title if reader.metadata and reader.metadata.title else None
    except IngestError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise IngestError(f"{name}: not a readable PDF: {exc}") from None
    if not any(pages):
        raise IngestError(f"{name}: the PDF has no extractable text (a scanned image? OCR is not supported)")
    blocks = [f"## Page {number}\n\n{text}" for number, text in enumerate(pages, start=1)]
    return Conversion(str(title) if title else None, "\n\n".join(blocks), "pdf")


def _docx(data: bytes, name: str) -> Conversion:
    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = docx.Document(io.BytesIO(data))
    except (zipfile.BadZipFile, PackageNotFoundError, KeyError, ValueError) as exc:
        raise IngestError(f"{name}: not a readable .docx file: {exc}") from None
    blocks: list[str] = []
    for element in document.element.body.iterchildren():
        tag = element.tag.rsplit("}", 1)[-1]
        if tag == "p":
            block = _docx_paragraph(Paragraph(element, document))
            if block:
                blocks.append(block)
        elif tag == "tbl":
            rows = [[cell.text for cell in row.cells] for row in Table(element, document).rows]
            if rows:
                blocks.append(markdown_table(rows[0], rows[1:]))
    title = document.core_properties.title or None
    return Conversion(title, "\n\n".join(blocks), "docx")


def _docx_paragraph(paragraph: object) -> str:
    text = paragraph.text.strip()  # type: ignore[attr-defined]
    if not text:
        return ""
    style = (paragraph.style.name if paragraph.style is not None else "") or ""  # type: ignore[attr-defined]
    if style == "Title":
        return f"# {text}"
    if style.startswith("Heading "):
        level = style.removeprefix("Heading ")
        return f"{'#' * min(int(level) + 1, 6) if level.isdigit() else '##'} {text}"
    if style.startswith("List Number"):
        return f"1. {text}"
    if style.startswith("List"):
        return f"- {text}"
    return text


_CONVERTERS: dict[str, Callable[[bytes, str], Conversion]] = {
    ".txt": _txt,
    ".html": _html,
    ".htm": _html,
    ".csv": _delimited(None),
    ".tsv": _delimited("\t"),
    ".pdf": _pdf,
    ".docx": _docx,
}
SUPPORTED_SUFFIXES = tuple(sorted(_CONVERTERS))


def convert_file(data: bytes, name: str) -> Conversion:
    """Convert the bytes of ``name`` by its suffix; raises IngestError for unknown or broken input."""
    suffix = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
    converter = _CONVERTERS.get(suffix)
    if converter is None:
        raise IngestError(f"{name}: unsupported format {suffix or '(no suffix)'}; supported: {', '.join(SUPPORTED_SUFFIXES)}")
    if not data.strip():
        raise IngestError(f"{name}: the file is empty")
    conversion = converter(data, name)
    if not conversion.markdown.strip():
        raise IngestError(f"{name}: nothing readable came out of the conversion")
    return conversion
