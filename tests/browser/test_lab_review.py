"""The resolution review panel in chromium (issue 21, item 5): pages with next / previous and "page n of N",
every evidence number under its name, a rule's pairs dismissed with one click and brought back by undo."""

from __future__ import annotations

import re

import pytest

from tests.browser.test_lab_notebook import run_cells

pytestmark = pytest.mark.slow
CELL = ("%load_ext engram_lab\n%engram open demo-vault\n"
        "from engram_lab.engine import Engine\nfrom engram_lab.jupyter.widgets import ResolutionReview\n"
        "ResolutionReview(Engine('demo-vault'), page_size=4)")


def test_review_panel_pages_dismisses_a_rule_and_undo_brings_it_back(lab, browser, artifacts):
    page, notebook = run_cells(lab, browser, artifacts, "21-review", [CELL], {"width": 1300, "height": 1000})
    panel = notebook.locator(".engram-panel", has=page.locator(".pager")).first
    where = panel.locator(".pager .where")
    where.wait_for(timeout=240_000)
    # Earlier tests share this lab's demo vault and may have judged a pair: count what is waiting, then check
    # that the pages, the dismissal and the undo agree with it.
    waiting = int(re.search(r"of (\d+)$", where.inner_text()).group(1))
    assert 4 < waiting <= 8, where.inner_text()
    assert where.inner_text().startswith(f"page 1 of 2 · pairs 1–4 of {waiting}"), where.inner_text()
    assert panel.locator(".row").count() == 4 and panel.locator("select.size").input_value() == "4"
    numbers = panel.locator(".numbers").first.inner_text()
    assert "label cosine" in numbers and "name similarity (Jaro-Winkler)" in numbers and "shared notes" in numbers, numbers
    panel.screenshot(path=str(artifacts / "21-review-page-1.png"))

    panel.locator("button.next").click()
    panel.locator(".pager .where", has_text="page 2 of 2").wait_for(timeout=60_000)
    assert panel.locator(".row").count() == waiting - 4

    dismiss = panel.locator("button.dismiss", has_text="surname")
    surname = int(re.search(r"\d+", dismiss.inner_text()).group(0))
    dismiss.click()
    panel.locator(".muted", has_text=f"dismissed {surname} pairs from rule 'surname'").wait_for(timeout=120_000)
    assert f"of {waiting - surname}" in panel.locator(".pager .where").inner_text()
    panel.screenshot(path=str(artifacts / "21-review-dismissed.png"))

    panel.locator("button.undo").click()
    panel.locator(".muted", has_text="are back for review").wait_for(timeout=120_000)
    assert f"of {waiting}" in panel.locator(".pager .where").inner_text()
    panel.screenshot(path=str(artifacts / "21-review-undone.png"))
    page.close()
