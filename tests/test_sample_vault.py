"""The bundled sample vault is realistic, indexes cleanly, and search points back at real text."""

from __future__ import annotations

import json

from engram_lab.engine import Engine
from engram_lab.sample import copy_sample_vault
from engram_lab.vault import parse_document, scan_vault


def test_sample_vault_has_what_the_demo_needs(tmp_path):
    vault = copy_sample_vault(tmp_path / "sample")
    files = scan_vault(vault).files
    assert 20 <= len(files) <= 30
    assert any(f.kind == "notebook" for f in files)
    texts = {f.rel_path: f.abs_path.read_text(encoding="utf-8") for f in files}
    corpus = "\n".join(texts.values())
    for name in ("Northern Estuary Research Institute", "NERI", "Nothern Estuary Research Institute"):
        assert name in corpus
    learned = [p for p in texts if p.startswith("learned/")]
    assert learned and all("status: pending-review" in texts[p] for p in learned)
    catalog = parse_document(texts["project/sensor-catalog.md"], "project/sensor-catalog.md", "markdown")
    assert len(catalog.parts[0].model.tables[0].rows) >= 5


def test_sample_vault_indexes_without_failures_and_search_has_provenance(tmp_path):
    engine = Engine(copy_sample_vault(tmp_path / "sample"))
    report = engine.index(progress=False)
    assert report.failed == [] and report.warnings == []
    assert engine.status().counts["pending-review"] == 1
    results = engine.search("Which sensor vendor did we finally choose?", k=3)
    assert results and results[0].path in {"orgs/aquasense.md", "meetings/2026-03-18-sensor-review.md"}
    for result in results:
        source = (engine.vault / result.path).read_text(encoding="utf-8")
        assert source[result.span[0] : result.span[1]] == result.text


def test_notebook_results_point_at_the_cell(tmp_path):
    engine = Engine(copy_sample_vault(tmp_path / "sample"))
    engine.index(progress=False)
    (hit,) = [r for r in engine.search("isohaline salt-wedge position", k=5) if r.path.endswith(".ipynb")][:1]
    assert hit.doc == "notebooks/freshet-exploration.ipynb#cell=wedge"
    cells = json.loads((engine.vault / hit.path).read_text())["cells"]
    source = "".join(next(c for c in cells if c.get("id") == "wedge")["source"])
    assert source[hit.span[0] : hit.span[1]] == hit.text
