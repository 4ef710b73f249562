// Provenance of one search result: the note text with the span highlighted, the graph, the triples,
// authorship and extraction, and any overlay or supersession touching it. No network, no CDN.
function esc(text) {
  const div = document.createElement("div");
  div.textContent = text == null ? "" : String(text);
  return div.innerHTML;
}

export function labUrl(path) {
  let base = "/";
  const config = document.getElementById("jupyter-config-data");
  if (config) { try { base = JSON.parse(config.textContent).baseUrl || "/"; } catch (e) { /* default */ } }
  return base.replace(/\/?$/, "/") + "lab/tree/" + path.split("/").map(encodeURIComponent).join("/");
}

export function openNote(el, detail) {
  // The labextension listens for this event and opens the note scrolled to the span;
  // without it, the link opens the note through JupyterLab's URL.
  const event = new CustomEvent("engram:open", { detail, bubbles: true, cancelable: true });
  return el.dispatchEvent(event);
}

function render({ model, el }) {
  const draw = () => {
    const d = model.get("data") || {};
    if (!d.text) { el.innerHTML = "<div class='engram-panel muted'>no provenance to show</div>"; return; }
    const [start, end] = d.span || [0, 0];
    const before = d.text.slice(Math.max(0, start - 300), start);
    const inside = d.text.slice(start, end);
    const after = d.text.slice(end, end + 300);
    const triples = (d.triples || []).map((t) =>
      `<tr><td>${esc(t.subject)}</td><td>${esc(t.predicate)}</td><td>${esc(t.object)}</td><td class="muted">${t.start}–${t.end}</td></tr>`).join("");
    const overlays = (d.overlays || []).map((o) => `<div>${esc(o.verdict)} by ${esc(o.actor)}: <span class="muted">${esc(o.subject)} / ${esc(o.object)}</span></div>`).join("");
    const supersessions = (d.supersessions || []).map((s) =>
      `<div>${esc(s.status)}: <i>${esc(s.earlier.text)}</i> → <i>${esc(s.later.text)}</i></div>`).join("");
    el.innerHTML = `<div class="engram-panel">
      <h4><a class="open" href="${esc(labUrl(d.path))}" target="_blank">${esc(d.doc)}</a> <span class="muted">${esc(d.heading)} · chars ${start}–${end}</span></h4>
      ${d.superseded ? `<div class="warn">${esc(d.superseded)}</div>` : ""}
      ${d.status === "pending-review" ? `<div class="warn">pending review: not in the graph</div>` : ""}
      <table>
        <tr><th>named graph</th><td>${esc(d.graph)}</td></tr>
        <tr><th>author</th><td>${esc(d.author)}</td></tr>
        <tr><th>extractor</th><td>${esc(d.extractor)} ${esc(d.extractor_version || "")}${d.model ? " · model " + esc(d.model) : ""}</td></tr>
        <tr><th>extracted at</th><td>${esc(d.extracted_at)}</td></tr>
      </table>
      <pre class="note">${esc(before)}<mark>${esc(inside)}</mark>${esc(after)}</pre>
      ${triples ? `<table><tr><th>subject</th><th>predicate</th><th>object</th><th>span</th></tr>${triples}</table>` : "<div class='muted'>no triple extracted from this span</div>"}
      ${overlays ? `<div><b>resolution overlay</b>${overlays}</div>` : ""}
      ${supersessions ? `<div><b>supersession</b>${supersessions}</div>` : ""}
    </div>`;
    el.querySelector("a.open").addEventListener("click", (event) => {
      const handled = !openNote(el, { vault: d.vault, path: d.path, cell_id: d.cell_id, start, end });
      if (handled) event.preventDefault();
      model.send({ type: "opened", path: d.path });
    });
  };
  model.on("change:data", draw);
  draw();
}

export default { render };
