// The graph view of engram-lab panels: the local graph around a note or an entity (%engram graph) and the
// Personalized PageRank activation of a query (%engram activation). SVG and a small force layout written here
// (no library, no CDN). Wheel zooms at the pointer (nodes and labels keep their size on screen, so zooming spreads
// them apart), dragging the background pans; checkboxes hide edge types
// and node kinds; a click on a note opens it in the editor (the lab extension's "engram:open" event), a click
// on an entity asks the kernel for its mentions. Isolated nodes are pulled to the middle, never to the border.
const EDGE_COLORS = { relation: "#4e79a7", synonym: "#f28e2b", hierarchy: "#59a14f", mention: "#bab0ac", link: "#b07aa1", about: "#76b7b2" };
const KIND_COLORS = { note: "#9ecae1", passage: "#9ecae1", Person: "#e15759", Organization: "#f28e2b", Place: "#59a14f",
  Event: "#b07aa1", Artifact: "#9c755f", Project: "#edc948", Concept: "#fdae6b", Time: "#bab0ac", Quantity: "#d4a6c8", entity: "#fdae6b" };
const PALETTE = ["#ff9da7", "#76b7b2", "#a0cbe8", "#8cd17d", "#b6992d", "#f1ce63", "#86bcb6", "#d37295"];
const WIDTH = 760, HEIGHT = 480, LABEL_ZOOM = 1.8;

// The drawing's size: 760 x 480 in a notebook; in a narrower place (the lab's sidebar) as wide as it is, and
// a little taller than wide, so nodes are not shrunk to dots.
export function viewSize(available) {
  if (!(available > 0) || available >= WIDTH) return { width: WIDTH, height: HEIGHT };
  const width = Math.max(240, Math.floor(available));
  return { width, height: Math.round(width * 1.15) };
}

function esc(text) {
  const div = document.createElement("div");
  div.textContent = text == null ? "" : String(text);
  return div.innerHTML;
}

export function kindOf(node) {
  return node.kind || node.type || "entity";
}

export function kindColor(kind) {
  if (KIND_COLORS[kind]) return KIND_COLORS[kind];
  let h = 0;
  for (const c of String(kind)) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length];
}

// Fruchterman-Reingold with gravity towards the middle: every node feels a pull proportional to its distance
// from the centre, isolated nodes (no edge among the drawn ones) a much stronger one, so they gather in the
// middle instead of being pushed out to the rim. Positions are not clamped; the view fits them afterwards.
export function layout(nodes, edges, width, height, iterations) {
  const n = nodes.length, cx = width / 2, cy = height / 2;
  const index = new Map(nodes.map((node, i) => [node.id, i]));
  const degree = new Array(n).fill(0);
  const links = [];
  for (const e of edges) {
    const a = index.get(e.source), b = index.get(e.target);
    if (a === undefined || b === undefined || a === b) continue;
    links.push([a, b]); degree[a]++; degree[b]++;
  }
  const golden = Math.PI * (3 - Math.sqrt(5));
  const spread = Math.min(width, height) / 2.5;
  const pos = nodes.map((_, i) => {
    const r = spread * Math.sqrt((i + 0.5) / Math.max(1, n));
    return { x: cx + r * Math.cos(i * golden), y: cy + r * Math.sin(i * golden) };
  });
  const k = Math.sqrt((width * height) / Math.max(1, n)) * 0.55;
  for (let step = 0; step < iterations; step++) {
    const disp = pos.map(() => ({ x: 0, y: 0 }));
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const dx = pos[i].x - pos[j].x, dy = pos[i].y - pos[j].y;
        const d2 = Math.max(dx * dx + dy * dy, 0.01), f = (k * k) / d2;
        disp[i].x += dx * f; disp[i].y += dy * f; disp[j].x -= dx * f; disp[j].y -= dy * f;
      }
    }
    for (const [a, b] of links) {
      const dx = pos[a].x - pos[b].x, dy = pos[a].y - pos[b].y, d = Math.sqrt(dx * dx + dy * dy) || 0.01, f = d / k;
      disp[a].x -= dx * f; disp[a].y -= dy * f; disp[b].x += dx * f; disp[b].y += dy * f;
    }
    for (let i = 0; i < n; i++) {  // weaker sideways, so the graph spreads to the view's shape
      const gravity = (degree[i] === 0 ? 1.5 : 0.08) * Math.sqrt(n);
      disp[i].x -= (pos[i].x - cx) * gravity * (height / width); disp[i].y -= (pos[i].y - cy) * gravity;
    }
    const temperature = (width / 10) * (1 - step / iterations) + 0.5;
    pos.forEach((p, i) => {
      const d = Math.sqrt(disp[i].x ** 2 + disp[i].y ** 2) || 1;
      p.x += (disp[i].x / d) * Math.min(d, temperature);
      p.y += (disp[i].y / d) * Math.min(d, temperature);
    });
  }
  return stretch(pos, width / height);
}

// A round cloud in a wide view leaves the sides empty: widen (or heighten) it towards the view's shape, at most 1.6x.
function stretch(pos, aspect) {
  if (pos.length < 3) return pos;
  const xs = pos.map((p) => p.x), ys = pos.map((p) => p.y);
  const w = Math.max(1, Math.max(...xs) - Math.min(...xs)), h = Math.max(1, Math.max(...ys) - Math.min(...ys));
  const mx = (Math.max(...xs) + Math.min(...xs)) / 2, my = (Math.max(...ys) + Math.min(...ys)) / 2;
  const fx = Math.min(1.6, Math.max(1, aspect / (w / h))), fy = Math.min(1.6, Math.max(1, (w / h) / aspect));
  return pos.map((p) => ({ x: mx + (p.x - mx) * fx, y: my + (p.y - my) * fy }));
}

// The transform that fits positions into the view with a margin: {s, tx, ty} for translate(tx,ty) scale(s).
export function fit(pos, width, height, margin = 30) {
  if (!pos.length) return { s: 1, tx: 0, ty: 0 };
  const xs = pos.map((p) => p.x), ys = pos.map((p) => p.y);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
  const s = Math.min((width - 2 * margin) / Math.max(1, x1 - x0), (height - 2 * margin) / Math.max(1, y1 - y0), 2);
  return { s, tx: width / 2 - s * (x0 + x1) / 2, ty: height / 2 - s * (y0 + y1) / 2 };
}

function radius(node, max) {
  const value = node.activation ?? node.score ?? 1;
  return node.depth === 0 ? 14 : 3.5 + 11 * Math.sqrt(Math.max(0, value) / max);
}

function nodeStyle(node) {
  const fill = node.won ? "#2ca02c" : kindColor(kindOf(node));
  if (node.depth === 0) return { fill, stroke: "#222", width: 3 };
  if (node.seed > 0) return { fill, stroke: "#d62728", width: 2.5 };
  return { fill, stroke: "#555", width: 0.8 };
}

function tooltip(node) {
  const parts = [node.label, kindOf(node)];
  if (node.path) parts.push(node.path);
  if (node.activation !== undefined) parts.push("activation " + node.activation.toExponential(2));
  if (node.seed > 0) parts.push("seed " + node.seed.toFixed(3));
  if (node.depth !== undefined) parts.push("depth " + node.depth);
  return parts.join(" · ");
}

function checkboxes(name, counts, colors) {
  return Object.entries(counts).map(([value, count]) =>
    `<label class="filter"><input type="checkbox" data-${name}="${esc(value)}" checked> <span style="color:${colors(value)}">${value === "passage" ? "note" : esc(value)}</span> <span class="muted">${count}</span></label>`).join("");
}

function count(items, key) {
  const out = {};
  for (const item of items) out[key(item)] = (out[key(item)] || 0) + 1;
  return out;
}

export function openNote(el, detail) {
  // The labextension listens for this event and opens the note (at the span, if any) in the editor.
  return el.dispatchEvent(new CustomEvent("engram:open", { detail, bubbles: true, cancelable: true }));
}

function render({ model, el }) {
  let view = { s: 1, tx: 0, ty: 0 }, home = view, nodes = [], byId = new Map();
  el.innerHTML = `<div class="engram-panel engram-graph">
    <h4><span class="title"></span> <span class="muted summary"></span></h4>
    <div class="filters"><div class="edge-filters"></div><div class="kind-filters"></div></div>
    <div class="controls"><button class="zoom-in" title="zoom in">+</button><button class="zoom-out" title="zoom out">−</button><button class="fit" title="fit the graph to the view">fit</button>
      <span class="muted">wheel: zoom · drag: pan · click a note to open it, an entity to list its mentions</span></div>
    <svg class="graph"><g class="viewport"></g></svg>
    <div class="muted timing"></div>
    <div class="details"></div>
  </div>`;
  const svg = el.querySelector("svg.graph"), viewport = el.querySelector("g.viewport");
  let size = { width: WIDTH, height: HEIGHT };

  const apply = () => {
    viewport.setAttribute("transform", `translate(${view.tx},${view.ty}) scale(${view.s})`);
    viewport.style.fontSize = `${10 / view.s}px`;
    viewport.style.setProperty("--halo", `${3 / view.s}px`);
    svg.classList.toggle("zoomed", view.s >= LABEL_ZOOM);
    svg.dataset.scale = view.s.toFixed(3);
    viewport.querySelectorAll("circle").forEach((c) => c.setAttribute("r", Number(c.dataset.r) / view.s));  // same size on screen
    viewport.querySelectorAll("text").forEach((t) => {
      t.setAttribute("x", Number(t.dataset.x) + 6 / view.s); t.setAttribute("y", Number(t.dataset.y) - 6 / view.s);
    });
  };
  const zoomAt = (factor, x, y) => {
    const s = Math.min(20, Math.max(0.2, view.s * factor));
    view = { s, tx: x - (x - view.tx) * (s / view.s), ty: y - (y - view.ty) * (s / view.s) };
    apply();
  };
  const toSvg = (event) => {
    const box = svg.getBoundingClientRect();
    return [(event.clientX - box.left) * (size.width / box.width), (event.clientY - box.top) * (size.height / box.height)];
  };
  svg.addEventListener("wheel", (event) => {
    event.preventDefault();
    zoomAt(Math.exp(-event.deltaY * 0.0015), ...toSvg(event));
  }, { passive: false });
  let drag = null;
  svg.addEventListener("pointerdown", (event) => {
    if (event.target.closest("circle")) return;
    drag = { at: toSvg(event), from: { ...view } };
    svg.setPointerCapture(event.pointerId);
    svg.classList.add("panning");
  });
  svg.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const [x, y] = toSvg(event);
    view = { ...drag.from, tx: drag.from.tx + x - drag.at[0], ty: drag.from.ty + y - drag.at[1] };
    apply();
  });
  const stop = () => { drag = null; svg.classList.remove("panning"); };
  svg.addEventListener("pointerup", stop);
  svg.addEventListener("pointercancel", stop);
  el.querySelector(".zoom-in").addEventListener("click", () => zoomAt(1.4, size.width / 2, size.height / 2));
  el.querySelector(".zoom-out").addEventListener("click", () => zoomAt(1 / 1.4, size.width / 2, size.height / 2));
  el.querySelector(".fit").addEventListener("click", () => { view = { ...home }; apply(); });

  const filter = () => {
    const hiddenKinds = new Set([...el.querySelectorAll("input[data-kind]:not(:checked)")].map((c) => c.dataset.kind));
    const hiddenTypes = new Set([...el.querySelectorAll("input[data-edge]:not(:checked)")].map((c) => c.dataset.edge));
    viewport.querySelectorAll("[data-node]").forEach((item) => {
      item.style.display = hiddenKinds.has(item.dataset.kind) ? "none" : "";
    });
    viewport.querySelectorAll("line").forEach((line) => {
      const gone = hiddenTypes.has(line.dataset.type) || [line.dataset.source, line.dataset.target]
        .some((id) => hiddenKinds.has(kindOf(byId.get(Number(id)) || {})));
      line.style.display = gone ? "none" : "";
    });
  };

  const draw = () => {
    const g = model.get("graph") || { nodes: [], edges: [] };
    nodes = g.nodes; byId = new Map(nodes.map((node) => [node.id, node]));
    const started = performance.now();
    size = viewSize(el.clientWidth);
    svg.setAttribute("viewBox", `0 0 ${size.width} ${size.height}`);
    svg.setAttribute("width", size.width); svg.setAttribute("height", size.height);
    const pos = layout(nodes, g.edges, size.width, size.height, nodes.length > 200 ? 80 : 200);
    const index = new Map(nodes.map((node, i) => [node.id, i]));
    const max = Math.max(1e-12, ...nodes.map((node) => node.activation ?? node.score ?? 1));
    const shrink = Math.sqrt(size.width / WIDTH);  // smaller nodes in a smaller drawing
    const lines = g.edges.map((e) => {
      const a = pos[index.get(e.source)], b = pos[index.get(e.target)];
      if (!a || !b) return "";
      const title = `${e.type}${e.label ? " · " + e.label : ""} · ${Number(e.weight).toFixed(2)}`;
      return `<line data-type="${esc(e.type)}" data-source="${e.source}" data-target="${e.target}" x1="${a.x}" y1="${a.y}" x2="${b.x}" y2="${b.y}" stroke="${EDGE_COLORS[e.type] || "#999"}" stroke-width="${Math.min(4, 0.6 + Number(e.weight))}" vector-effect="non-scaling-stroke" opacity="0.65"><title>${esc(title)}</title></line>`;
    }).join("");
    const ranked = nodes.map((node, i) => [i, node.activation ?? node.score ?? 0]).sort((x, y) => y[1] - x[1]);
    const major = new Set(ranked.slice(0, Math.round(25 * Math.min(1, size.width / WIDTH))).map(([i]) => i));  // fewer in a small view
    const circles = nodes.map((node, i) => {
      const style = nodeStyle(node), kind = kindOf(node);
      return `<circle data-node="${node.id}" data-id="${node.id}" data-kind="${esc(kind)}" data-type="${esc(node.type)}" class="${node.type === "entity" ? "entity" : "note"}${node.depth === 0 ? " centre" : ""}" cx="${pos[i].x}" cy="${pos[i].y}" data-r="${radius(node, max) * shrink}" fill="${style.fill}" stroke="${style.stroke}" stroke-width="${style.width}" vector-effect="non-scaling-stroke"><title>${esc(tooltip(node))}</title></circle>`;
    }).join("");
    const labels = nodes.map((node, i) => {
      const minor = !(major.has(i) || node.depth === 0 || (node.depth === 1 && nodes.length <= 40 * shrink));
      return `<text data-node="${node.id}" data-kind="${esc(kindOf(node))}" class="${minor ? "minor" : ""}${node.depth === 0 ? " centre" : ""}" data-x="${pos[i].x}" data-y="${pos[i].y}" pointer-events="none">${esc(String(node.label).slice(0, 32))}</text>`;
    }).reverse().join("");  // the centre's and the strongest labels last, so on top
    viewport.innerHTML = lines + circles + labels;
    home = fit(pos, size.width, size.height, Math.min(30, size.width * 0.05)); view = { ...home }; apply();
    el.querySelector(".title").textContent = model.get("title") || "";
    el.querySelector(".summary").textContent = model.get("summary") || "";
    el.querySelector(".edge-filters").innerHTML = "<span class='muted'>edges:</span> " + checkboxes("edge", count(g.edges, (e) => e.type), (t) => EDGE_COLORS[t] || "#999");
    el.querySelector(".kind-filters").innerHTML = "<span class='muted'>nodes:</span> " + checkboxes("kind", count(nodes, kindOf), kindColor)
      + (nodes.some((node) => node.seed > 0) ? " <span class='muted'>· red ring: seed · <span style='color:#2ca02c'>●</span> winning passage</span>" : "");
    el.querySelectorAll(".filters input").forEach((box) => box.addEventListener("change", filter));
    viewport.querySelectorAll("circle").forEach((c) => c.addEventListener("click", () => {
      const node = byId.get(Number(c.dataset.id));
      model.send({ type: "node", id: node.id });
      if (node.type !== "entity" && node.path) openNote(el, { vault: model.get("vault") || null, path: node.path });
    }));
    el.querySelector(".timing").textContent = `${nodes.length} nodes, ${g.edges.length} edges · layout ${(performance.now() - started).toFixed(0)} ms`;
    details();
  };

  const details = () => {
    const selected = model.get("selected"), mentions = model.get("mentions") || [];
    const box = el.querySelector(".details");
    if (!selected) { box.innerHTML = "<span class='muted'>click a node: a note opens, an entity lists its mentions</span>"; return; }
    const items = mentions.map((m, i) => `<li><a href="#" class="mention" data-i="${i}">${esc(m.path)}</a> ${m.start == null ? "" : `<span class="muted">chars ${m.start}–${m.end}</span>`} ${esc(m.surface || "")}</li>`).join("");
    box.innerHTML = `<b>${esc(selected)}</b><ul>${items || "<li class='muted'>no located mention</li>"}</ul>`;
    box.querySelectorAll("a.mention").forEach((a) => a.addEventListener("click", (event) => {
      event.preventDefault();
      const m = mentions[Number(a.dataset.i)];
      openNote(el, { vault: model.get("vault") || null, path: m.path, cell_id: m.cell_id ?? null, start: m.start ?? undefined, end: m.end ?? undefined });
    }));
  };

  model.on("change:graph", draw);
  model.on("change:selected", details);
  model.on("change:mentions", details);
  draw();
}

export default { render };
