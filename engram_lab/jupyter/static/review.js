// Review queues: resolution pairs, supersession candidates, learned notes, memory, an agent's edits. Each button sends one
// action to the kernel, which writes the ledger (or the note) and sends the refreshed queue back.
function esc(text) {
  const div = document.createElement("div");
  div.textContent = text == null ? "" : String(text);
  return div.innerHTML;
}

// Every evidence number under its name (the kernel names them, and never sends a blank).
function evidence(item) {
  const e = item.evidence || {};
  const numbers = (item.numbers || []).map((n) => `<span class="num">${esc(n.name)} <b>${esc(n.value)}</b></span>`).join(" · ");
  return `<div class="muted">rule <b>${esc(item.rule)}</b>: ${esc(e.reason || "")} · proposed by ${esc(item.sources)}</div><div class="muted numbers">${numbers}</div>`;
}

// Paging, sort and per-rule dismissal for the resolution queue: a real vault queues hundreds of pairs.
function pager(model) {
  if (model.get("kind") !== "resolution") return "";
  const page = model.get("page"), pages = model.get("pages"), total = model.get("total"), first = model.get("first");
  const shown = (model.get("items") || []).length;
  const sorts = (model.get("sorts") || []).map((s) => `<option value="${esc(s)}" ${s === model.get("sort") ? "selected" : ""}>${esc(s)}</option>`).join("");
  const sizes = [...new Set([...(model.get("page_sizes") || []), model.get("page_size")])].sort((x, y) => x - y).map((n) => `<option value="${n}" ${n === model.get("page_size") ? "selected" : ""}>${n}</option>`).join("");
  const dismiss = (model.get("rules") || []).map((r) => `<button class="dismiss" data-rule="${esc(r.rule)}" title="judge all ${esc(r.count)} waiting pairs from this rule distinct; undo puts them back">dismiss ${esc(r.count)} ${esc(r.rule)}</button>`).join("");
  return `<div class="pager"><button class="prev" ${page > 1 ? "" : "disabled"}>previous</button>
    <span class="where">page ${page} of ${pages} · pairs ${shown ? `${first}–${first + shown - 1}` : "0"} of ${total}</span>
    <button class="next" ${page < pages ? "" : "disabled"}>next</button>
    <label>sort by <select class="sort">${sorts}</select></label>
    <label><select class="size">${sizes}</select> a page</label></div>
    ${dismiss ? `<div class="rules muted">all pairs of a rule: ${dismiss}</div>` : ""}`;
}

function diff(text) {
  const cls = (line) => (line.startsWith("+") && !line.startsWith("+++") ? "add" : line.startsWith("-") && !line.startsWith("---") ? "del" : "");
  return `<pre class="diff">${(text || "").split("\n").map((l) => `<span class="${cls(l)}">${esc(l)}</span>`).join("\n")}</pre>`;
}

const BODIES = {
  resolution: (item) => `<div><b>${esc(item.evidence.name_a)}</b> <span class="muted">(${esc(item.evidence.kind_a)})</span> ~ <b>${esc(item.evidence.name_b)}</b> <span class="muted">(${esc(item.evidence.kind_b)})</span></div>${evidence(item)}`,
  supersession: (item) => `<div class="side"><div><div class="muted">earlier · ${esc(item.earlier.date)}</div>${esc(item.earlier.text)}</div><div><div class="muted">later · ${esc(item.later.date)}</div>${esc(item.later.text)}</div></div><div class="muted">status ${esc(item.status)} · shared subjects: ${esc((item.shared_subjects || []).join(", ") || "none")} · shared words: ${esc((item.shared_words || []).join(", ") || "none")}</div>`,
  learned: (item) => `<div><b>${esc(item.path)}</b></div>`,
  agent: (item) => item.item === "proposal"
    ? `<div><b>proposal ${esc(item.id)}</b> ${esc(item.kind)} ${esc(item.path)} <span class="muted">by ${esc(item.actor)} · ${esc(item.created_at)}</span></div><div class="muted">why: ${esc(item.why)}</div>${diff(item.diff)}`
    : `<div><b>checkpoint ${esc(item.id)}</b> ${esc((item.paths || []).join(", "))} <span class="muted">by ${esc(item.actor)} · ${esc(item.created_at)}</span></div><div class="muted">${esc(item.why)}</div>`,
  memory: (item) => `<div><b>${esc(item.kind)}</b> [${esc(item.status)}] ${esc(item.text)}</div><div class="muted">by ${esc(item.author)} · from ${esc(item.source)} · ${esc(item.created)}${item.tainted ? ` · <b>tainted</b>: read ${esc(item.tainted)}` : ""}</div>`,
};

function render({ model, el }) {
  const draw = () => {
    const kind = model.get("kind");
    const items = model.get("items") || [];
    const actions = model.get("actions") || [];
    const rows = items.map((item, i) => `<div class="row">${BODIES[kind](item)}<div>${(item.actions || actions).map((a) => `<button data-i="${i}" data-action="${a}">${a}</button>`).join("")}</div></div>`).join("");
    const waiting = kind === "resolution" ? model.get("total") : items.filter((item) => item.item !== "checkpoint").length;
    el.innerHTML = `<div class="engram-panel"><h4>${esc(model.get("title"))} <span class="muted">${waiting} waiting</span></h4>
      <div class="muted">${esc(model.get("status"))}</div>
      <button class="undo" ${model.get("can_undo") ? "" : "disabled"}>undo</button>
      ${pager(model)}
      ${rows || "<div class='muted'>nothing to review</div>"}</div>`;
    el.querySelectorAll("button[data-action]").forEach((b) => b.addEventListener("click", () =>
      model.send({ type: "act", action: b.dataset.action, index: Number(b.dataset.i) })));
    el.querySelector("button.undo").addEventListener("click", () => model.send({ type: "undo" }));
    const on = (selector, event, message) => { const node = el.querySelector(selector); if (node) node.addEventListener(event, () => model.send(message(node))); };
    on("button.prev", "click", () => ({ type: "page", page: model.get("page") - 1 }));
    on("button.next", "click", () => ({ type: "page", page: model.get("page") + 1 }));
    on("select.sort", "change", (node) => ({ type: "sort", by: node.value }));
    on("select.size", "change", (node) => ({ type: "page_size", size: Number(node.value) }));
    el.querySelectorAll("button.dismiss").forEach((b) => b.addEventListener("click", () => model.send({ type: "dismiss", rule: b.dataset.rule })));
  };
  ["change:items", "change:status", "change:can_undo", "change:page", "change:page_size", "change:rules"].forEach((e) => model.on(e, draw));
  draw();
}

export default { render };
