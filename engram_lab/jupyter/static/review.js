// Review queues: resolution pairs, supersession candidates, learned notes, memory, an agent's edits. Each button sends one
// action to the kernel, which writes the ledger (or the note) and sends the refreshed queue back.
function esc(text) {
  const div = document.createElement("div");
  div.textContent = text == null ? "" : String(text);
  return div.innerHTML;
}

function evidence(item) {
  const e = item.evidence || {};
  return `<div class="muted">${esc(e.reason || "")} · surface ${esc(e.surface)} · cosine ${esc(e.cosine)} · shared notes ${esc(e.shared_docs)} · shared neighbours ${esc(e.shared_neighbours)} · score ${esc(item.score)}</div>`;
}

function diff(text) {
  const cls = (line) => (line.startsWith("+") && !line.startsWith("+++") ? "add" : line.startsWith("-") && !line.startsWith("---") ? "del" : "");
  return `<pre class="diff">${(text || "").split("\n").map((l) => `<span class="${cls(l)}">${esc(l)}</span>`).join("\n")}</pre>`;
}

const BODIES = {
  resolution: (item) => `<div><b>${esc(item.evidence.name_a)}</b> <span class="muted">(${esc(item.evidence.kind_a)})</span> ~ <b>${esc(item.evidence.name_b)}</b> <span class="muted">(${esc(item.evidence.kind_b)})</span></div>${evidence(item)}`,
  supersession: (item) => `<div class="side"><div><div class="muted">earlier · ${esc(item.earlier.date)}</div>${esc(item.earlier.text)}</div><div><div class="muted">later · ${esc(item.later.date)}</div>${esc(item.later.text)}</div></div><div class="muted">status ${esc(item.status)} · shared: ${esc((item.shared_subjects || []).join(", "))} ${esc((item.shared_words || []).join(", "))}</div>`,
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
    el.innerHTML = `<div class="engram-panel"><h4>${esc(model.get("title"))} <span class="muted">${items.filter((item) => item.item !== "checkpoint").length} waiting</span></h4>
      <div class="muted">${esc(model.get("status"))}</div>
      <button class="undo" ${model.get("can_undo") ? "" : "disabled"}>undo</button>
      ${rows || "<div class='muted'>nothing to review</div>"}</div>`;
    el.querySelectorAll("button[data-action]").forEach((b) => b.addEventListener("click", () =>
      model.send({ type: "act", action: b.dataset.action, index: Number(b.dataset.i) })));
    el.querySelector("button.undo").addEventListener("click", () => model.send({ type: "undo" }));
  };
  ["change:items", "change:status", "change:can_undo"].forEach((e) => model.on(e, draw));
  draw();
}

export default { render };
