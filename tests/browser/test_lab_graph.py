"""The graph view in chromium (issue 21, item 4): %engram graph draws the local graph around a note, the wheel zooms,
dragging pans, a checkbox hides an edge type, a click on an entity lists its mentions and a click on a note opens it
in the editor; the activation panel shares the view and keeps isolated nodes off the border."""

from __future__ import annotations

import pytest

from tests.browser.test_lab_notebook import run_cells

pytestmark = pytest.mark.slow
NOTE = "meetings/2026-03-18-sensor-review.md"
CELLS = ["%load_ext engram_lab\n%engram open demo-vault",
         f"%engram graph {NOTE} --depth 2 --limit 60",
         '%engram activation "Who works at the Northern Estuary Research Institute?" --limit 200']


def _transform(panel):
    return panel.locator("g.viewport").get_attribute("transform")


def _visible(panel, selector):
    return panel.locator(selector).evaluate_all("items => items.filter(i => i.style.display !== 'none').length")


# Circles no drawn edge touches, and how far each sits from the panel's border (in screen pixels).
BORDER_GAPS = """svg => {
  const touched = new Set();
  svg.querySelectorAll('line').forEach(l => { touched.add(l.dataset.source); touched.add(l.dataset.target); });
  const box = svg.getBoundingClientRect();
  return [...svg.querySelectorAll('circle')].filter(c => !touched.has(c.dataset.id)).map(c => {
    const r = c.getBoundingClientRect(), x = r.x + r.width / 2, y = r.y + r.height / 2;
    return Math.min(x - box.left, box.right - x, y - box.top, box.bottom - y);
  });
}"""


def test_local_graph_zooms_pans_filters_and_opens_a_note(lab, browser, artifacts):
    page, notebook = run_cells(lab, browser, artifacts, "21-graph", CELLS, {"width": 1300, "height": 1000})
    local = notebook.locator(".engram-graph", has_text="local graph of").first
    local.locator("circle.centre").wait_for(state="attached", timeout=240_000)
    assert NOTE in local.locator(".title").inner_text() and "depth 2" in local.locator(".summary").inner_text()
    circles, lines = local.locator("circle").count(), local.locator("line").count()
    assert 10 < circles <= 60 and lines >= circles - 1
    svg = local.locator("svg.graph")
    svg.scroll_into_view_if_needed()
    local.screenshot(path=str(artifacts / "21-local-graph.png"))

    # The wheel zooms in at the pointer (and shows every label); dragging the background pans.
    before, scale = _transform(local), float(svg.get_attribute("data-scale"))
    box = svg.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(4):
        page.mouse.wheel(0, -250)
        page.wait_for_timeout(100)
    assert float(svg.get_attribute("data-scale")) > scale * 1.5
    assert "zoomed" in svg.get_attribute("class")
    zoomed = _transform(local)
    page.mouse.move(box["x"] + 4, box["y"] + 4)
    page.mouse.down()
    page.mouse.move(box["x"] + 120, box["y"] + 80, steps=5)
    page.mouse.up()
    assert _transform(local) != zoomed, "dragging the background pans"
    local.screenshot(path=str(artifacts / "21-local-graph-zoomed.png"))
    local.locator("button.fit").click()
    assert _transform(local) == before

    # Unticking "mention" hides those edges and no other.
    mentions = local.locator("line[data-type='mention']").count()
    assert mentions > 0
    local.locator("input[data-edge='mention']").uncheck()
    assert _visible(local, "line[data-type='mention']") == 0 and _visible(local, "line") == lines - mentions
    kind = local.locator("input[data-kind]").nth(1)
    hidden_kind = kind.get_attribute("data-kind")
    kind.uncheck()
    assert _visible(local, f"circle[data-kind='{hidden_kind}']") == 0
    local.screenshot(path=str(artifacts / "21-local-graph-filtered.png"))
    local.locator("input[data-edge='mention']").check()
    kind.check()
    assert _visible(local, "line") == lines

    # The activation panel is the same view: zoomable, filterable, no isolated node on its border.
    activation = notebook.locator(".engram-graph", has_text="activation for").first
    activation.locator("circle").first.wait_for(state="attached", timeout=240_000)
    activation.locator("svg.graph").scroll_into_view_if_needed()
    assert activation.locator("input[data-edge]").count() >= 2 and activation.locator("button.fit").count() == 1
    gaps = activation.locator("svg.graph").evaluate(BORDER_GAPS)
    assert gaps and min(gaps) > 40, f"isolated nodes within {min(gaps):.0f} px of the border"
    activation.screenshot(path=str(artifacts / "21-activation-graph.png"))

    # A click on an entity lists where it is mentioned; a click on a note opens it in the editor.
    svg.scroll_into_view_if_needed()
    entity = local.locator("circle.entity").first
    label = entity.locator("title").text_content().split(" · ")[0]
    entity.dispatch_event("click")  # nodes may overlap: click this one, whatever lies on top
    local.locator(".details b", has_text=label).wait_for(timeout=30_000)
    local.locator(".details li a.mention").first.wait_for(timeout=60_000)  # the mentions come from the kernel after the name
    local.screenshot(path=str(artifacts / "21-local-graph-entity-mentions.png"))
    note = local.locator("circle.note:not(.centre)").first
    path = note.locator("title").text_content().split(" · ")[2]
    note.dispatch_event("click")
    name = path.split("/")[-1]
    page.locator(".lm-TabBar-tab.lm-mod-current", has_text=name).first.wait_for(timeout=60_000)
    page.locator(".jp-FileEditor:visible").first.wait_for(timeout=60_000)
    page.screenshot(path=str(artifacts / "21-local-graph-note-opened.png"))
    page.close()


def test_the_lab_graph_panel_follows_the_note_in_the_editor(lab, browser, artifacts):
    page = browser.new_page(viewport={"width": 1500, "height": 950})
    page.goto(f"{lab['url']}/lab/tree/demo-vault/{NOTE}")
    page.locator(".jp-FileEditor").first.wait_for(timeout=60_000)
    panel = page.locator("#engram-local-graph")
    if not panel.is_visible():
        page.locator(".lm-TabBar-tab", has=page.locator(".jp-engram-graph-icon")).first.click()
    panel.locator(".engram-graph .title", has_text=f"local graph of {NOTE}").wait_for(timeout=60_000)
    one = panel.locator("circle").count()
    assert one > 5 and panel.locator("circle.centre").count() == 1
    assert panel.evaluate("n => n.scrollWidth <= n.clientWidth + 1"), "the panel overflows sideways"
    panel.locator("select.jp-engram-graph-depth").select_option("2")
    panel.locator(".engram-graph .summary", has_text="depth 2").wait_for(timeout=60_000)
    assert panel.locator("circle").count() > one
    no_news = page.get_by_role("button", name="No", exact=True)  # the "official Jupyter news?" toast
    if no_news.count():
        no_news.first.click()
    page.screenshot(path=str(artifacts / "21-lab-local-graph.png"))

    # A click on a note opens it in the editor, and the panel follows to that note's graph.
    note = panel.locator("circle.note:not(.centre)").first
    path = note.locator("title").text_content().split(" · ")[2]
    note.dispatch_event("click")
    page.locator(".lm-TabBar-tab.lm-mod-current", has_text=path.split("/")[-1]).first.wait_for(timeout=60_000)
    panel.locator(".engram-graph .title", has_text=f"local graph of {path}").wait_for(timeout=60_000)
    entity = panel.locator("circle.entity").first
    label = entity.locator("title").text_content().split(" · ")[0]
    entity.dispatch_event("click")
    panel.locator(".details b", has_text=label).wait_for(timeout=30_000)
    panel.locator(".details li a.mention").first.wait_for(timeout=30_000)
    page.screenshot(path=str(artifacts / "21-lab-local-graph-followed.png"))
    page.close()
