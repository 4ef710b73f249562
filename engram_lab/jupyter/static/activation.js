// Personalized PageRank activation: seeds, where activation spread, edge types and weights, and which
// passages won. Nodes sized by activation; a click asks the kernel for the node's mentions.
// A small force layout written here (no library, no CDN); the kernel caps the nodes sent (500).
const COLORS = { relation: "#4e79a7", synonym: "#f28e2b", hierarchy: "#59a14f", mention: "#bab0ac", link: "#b07aa1", about: "#76b7b2" };

function esc(text) {
  const div = document.createElement("div");
  div.textContent = text == null ? "" : String(text);
  return div.innerHTML;
}

export function layout(nodes, edges, width, height, iterations) {
  const index = new Map(nodes.map((n, i) => [n.id, i]));
  const pos = nodes.map((n, i) => ({ x: width / 2 + Math.cos(i) * (20 + i), y: height / 2 + Math.sin(i) * (20 + i) }));
  const k = Math.sqrt((width * height) / Math.max(1, nodes.length)) * 0.6;
  for (let step = 0; step < iterations; step++) {
    const disp = pos.map(() => ({ x: 0, y: 0 }));
    for (let i = 0; i < pos.length; i++) {
      for (let j = i + 1; j < pos.length; j++) {
        const dx = pos[i].x - pos[j].x, dy = pos[i].y - pos[j].y;
        const d2 = Math.max(dx * dx + dy * dy, 0.01), f = (k * k) / d2;
        disp[i].x += dx * f; disp[i].y += dy * f; disp[j].x -= dx * f; disp[j].y -= dy * f;
      }
    }
    for (const e of edges) {
      const a = index.get(e.source), b = index.get(e.target);
      if (a === undefined || b === undefined) continue;
      const dx = pos[a].x - pos[b].x, dy = pos[a].y - pos[b].y, d = Math.sqrt(dx * dx + dy * dy) || 0.01, f = d / k;
      disp[a].x -= dx * f; disp[a].y -= dy * f; disp[b].x += dx * f; disp[b].y += dy * f;
    }
    const temperature = (width / 10) * (1 - step / iterations);
    pos.forEach((p, i) => {
      const d = Math.sqrt(disp[i].x ** 2 + disp[i].y ** 2) || 1;
      p.x = Math.min(width - 10, Math.max(10, p.x + (disp[i].x / d) * Math.min(d, temperature)));
      p.y = Math.min(height - 10, Math.max(10, p.y + (disp[i].y / d) * Math.min(d, temperature)));
    });
  }
  return pos;
}

function render({ model, el }) {
  const draw = () => {
    const g = model.get("graph") || { nodes: [], edges: [] };
    const width = 760, height = 480;
    const started = performance.now();
    const pos = layout(g.nodes, g.edges, width, height, g.nodes.length > 200 ? 60 : 150);
    const index = new Map(g.nodes.map((n, i) => [n.id, i]));
    const maxAct = Math.max(1e-12, ...g.nodes.map((n) => n.activation));
    const lines = g.edges.map((e) => {
      const a = pos[index.get(e.source)], b = pos[index.get(e.target)];
      return a && b ? `<line pointer-events="stroke" x1="${a.x}" y1="${a.y}" x2="${b.x}" y2="${b.y}" stroke="${COLORS[e.type] || "#999"}" stroke-width="${Math.min(4, 0.5 + e.weight)}" opacity="0.6"><title>${esc(e.type)} · ${e.weight.toFixed(2)}</title></line>` : "";
    }).join("");
    const circles = g.nodes.map((n, i) => {
      const r = 3 + 14 * Math.sqrt(n.activation / maxAct);
      const fill = n.won ? "#2ca02c" : n.type === "passage" ? "#9ecae1" : "#fdae6b";
      const stroke = n.seed > 0 ? "#d62728" : "#555";
      return `<circle data-id="${n.id}" cx="${pos[i].x}" cy="${pos[i].y}" r="${r}" fill="${fill}" stroke="${stroke}" stroke-width="${n.seed > 0 ? 2.5 : 0.8}"><title>${esc(n.label)} · activation ${n.activation.toExponential(2)}${n.seed > 0 ? " · seed " + n.seed.toFixed(3) : ""}</title></circle>`;
    }).join("");
    const labels = g.nodes.slice(0, 25).map((n, i) => `<text x="${pos[i].x + 6}" y="${pos[i].y - 6}" font-size="10" pointer-events="none">${esc(n.label).slice(0, 28)}</text>`).join("");
    const mentions = (model.get("mentions") || []).map((m) => `<li>${esc(m.path)} ${m.start == null ? "" : `<span class="muted">chars ${m.start}–${m.end}</span>`} ${esc(m.surface || "")}</li>`).join("");
    const selected = model.get("selected");
    el.innerHTML = `<div class="engram-panel">
      <h4>activation for "${esc(model.get("query"))}" <span class="muted">${g.shown} of ${g.total} active nodes shown${g.capped ? " (capped: only the most activated are drawn)" : ""}</span></h4>
      <div class="legend muted"><span>● red ring: seed</span><span style="color:#2ca02c">● winning passage</span><span style="color:#3182bd">● passage</span><span style="color:#e6550d">● entity</span>${Object.entries(COLORS).map(([t, c]) => `<span style="color:${c}">— ${t}</span>`).join("")}</div>
      <svg width="${width}" height="${height}">${lines}${circles}${labels}</svg>
      <div class="muted">layout ${(performance.now() - started).toFixed(0)} ms</div>
      ${selected ? `<div><b>${esc(selected)}</b><ul>${mentions || "<li class='muted'>no located mention</li>"}</ul></div>` : "<div class='muted'>click a node to see its mentions</div>"}
    </div>`;
    el.querySelectorAll("circle").forEach((c) => c.addEventListener("click", () => model.send({ type: "node", id: Number(c.dataset.id) })));
  };
  model.on("change:graph", draw);
  model.on("change:mentions", draw);
  draw();
}

export default { render };
