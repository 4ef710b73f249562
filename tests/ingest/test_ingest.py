"""Ingestion of every supported format, and refusal (writing nothing) of what cannot be read."""

from __future__ import annotations

import io

import docx
import pytest

from engram_lab.errors import IngestError
from engram_lab.indexer import index_vault
from engram_lab.ingest import ingest_file
from engram_lab.vault import parse_document
from tests.ingest.pdf_fixture import make_pdf


@pytest.fixture
def outside(tmp_path):
    folder = tmp_path / "incoming"
    folder.mkdir()
    return folder


def ingest(vault, path):
    done = ingest_file(vault, path)
    text = (vault / done.note).read_text(encoding="utf-8")
    return done, text, parse_document(text, done.note, "markdown")


def files_in(vault):
    return sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*") if p.is_file())


def test_txt_keeps_original_bytes_and_writes_note(vault, outside):
    src = outside / "field log.txt"
    src.write_bytes("Boat day at Gull Point.\r\nWind 5 m/s, café closed.\r\n".encode("cp1252"))
    done, text, doc = ingest(vault, src)
    assert (vault / done.source).read_bytes() == src.read_bytes()
    assert done.source == "sources/field log.txt" and done.note == "ingested/field-log.md"
    assert doc.meta["source"] == "sources/field log.txt" and doc.meta["source_format"] == "txt"
    assert "café closed" in text and doc.title == "field log"


def test_html_structure_becomes_markdown(vault, outside):
    src = outside / "page.html"
    src.write_text(
        "<html><head><title>Vendor notes</title><style>p{}</style><script>alert(1)</script></head><body>"
        "<h1>AquaSense</h1><p>The <b>AS-5</b> has a <a href='https://aqua.example/as5'>copper shutter</a>.</p>"
        "<ul><li>conductivity</li><li>depth<ul><li>to 200 m</li></ul></li></ul>"
        "<table><tr><th>Model</th><th>Price</th></tr><tr><td>AS-5</td><td>3,100 | EUR</td></tr></table>"
        "<pre>raw  spacing</pre></body></html>",
        encoding="utf-8",
    )
    done, text, doc = ingest(vault, src)
    assert doc.title == "Vendor notes"
    assert "# AquaSense" in text and "alert(1)" not in text and "p{}" not in text
    assert "The **AS-5** has a [copper shutter](https://aqua.example/as5)." in text
    assert "- conductivity" in text and "  - to 200 m" in text
    (table,) = doc.parts[0].model.tables
    assert [c.text for c in table.header] == ["Model", "Price"]
    assert [c.text for c in table.rows[0]] == ["AS-5", "3,100 | EUR"]
    assert "```\nraw  spacing\n```" in text


@pytest.mark.parametrize(("name", "content"), [("items.csv", "Model;Vendor\nCT-200;Halden\nAS-5;AquaSense;extra\n"), ("items.tsv", "Model\tVendor\nCT-200\tHalden\nAS-5\tAquaSense\textra\n")])
def test_delimited_tables(vault, outside, name, content):
    src = outside / name
    src.write_text(content, encoding="utf-8")
    _, _, doc = ingest(vault, src)
    (table,) = doc.parts[0].model.tables
    assert [c.text for c in table.header] == ["Model", "Vendor", "column 3"]
    assert [[c.text for c in r] for r in table.rows] == [["CT-200", "Halden", ""], ["AS-5", "AquaSense", "extra"]]


def test_pdf_pages_are_marked(vault, outside):
    src = outside / "report.pdf"
    src.write_bytes(make_pdf(["Salinity drift was 0.3 PSU per week.", "The AS-5 showed no drift."], title="Drift report"))
    done, text, doc = ingest(vault, src)
    assert doc.title == "Drift report" and done.format == "pdf"
    headings = [h.text for h in doc.parts[0].model.headings]
    assert headings == ["Drift report", "Page 1", "Page 2"]
    assert text.index("0.3 PSU per week") < text.index("## Page 2") < text.index("no drift")


def test_docx_headings_lists_and_tables(vault, outside):
    document = docx.Document()
    document.core_properties.title = "Permit memo"
    document.add_heading("Permits", level=1)
    document.add_paragraph("Simon Hall issues the permits.")
    document.add_paragraph("night sampling", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Station", "Permit"
    table.cell(1, 0).text, table.cell(1, 1).text = "S5", "yes"
    buffer = io.BytesIO()
    document.save(buffer)
    src = outside / "memo.docx"
    src.write_bytes(buffer.getvalue())
    _, text, doc = ingest(vault, src)
    assert doc.title == "Permit memo"
    assert "## Permits" in text and "Simon Hall issues the permits." in text and "- night sampling" in text
    assert [[c.text for c in r] for r in doc.parts[0].model.tables[0].rows] == [["S5", "yes"]]


def test_same_name_twice_gets_distinct_files_identical_original_reused(vault, outside):
    src = outside / "a.txt"
    src.write_text("first")
    first = ingest_file(vault, src)
    again = ingest_file(vault, src)
    assert again.source == first.source and again.note != first.note
    src.write_text("second, different")
    third = ingest_file(vault, src)
    assert third.source == "sources/a-2.txt"
    assert (vault / first.source).read_text() == "first"


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("slides.pptx", b"PK\x03\x04", "unsupported format .pptx"),
        ("noext", b"text", r"unsupported format \(no suffix\)"),
        ("empty.txt", b"", "the file is empty"),
        ("bin.txt", b"\x00\x01\x02\x03", "binary content"),
        ("broken.pdf", b"%PDF-1.4 not really", "not a readable PDF"),
        ("scan.pdf", make_pdf([""]), "no extractable text"),
        ("broken.docx", b"not a zip", "not a readable .docx"),
        ("bad.html", b"<html><script>only()</script></html>", "nothing readable"),
    ],
)
def test_unreadable_input_writes_nothing(vault, outside, name, data, message):
    src = outside / name
    src.write_bytes(data)
    with pytest.raises(IngestError, match=message) as info:
        ingest_file(vault, src)
    assert name in str(info.value)
    assert files_in(vault) == []


def test_missing_source_file(vault, outside):
    with pytest.raises(IngestError, match="no such file"):
        ingest_file(vault, outside / "nope.txt")


def test_ingested_notes_are_indexed_and_originals_are_not_notes(vault, outside):
    src = outside / "log.txt"
    src.write_text("A log line about Mill Reach.")
    done = ingest_file(vault, src)
    report = index_vault(vault, progress=False)
    assert report.added == [done.note] and report.failed == []
