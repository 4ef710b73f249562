"""Layout time of the activation panel at its 500-node cap, run in Node (the same V8 engine as Chromium).

    python -m benchmarks.panel_bench
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

SCRIPT = """
import {{ layout }} from "{module}";
const nodes = Array.from({{ length: {n} }}, (_, i) => ({{ id: i }}));
let seed = 7; const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const edges = Array.from({{ length: {m} }}, () => ({{ source: Math.floor(rand() * {n}), target: Math.floor(rand() * {n}) }}));
const runs = [];
for (let r = 0; r < 5; r++) {{ const t = performance.now(); layout(nodes, edges, 760, 480, {n} > 200 ? 60 : 150); runs.push(performance.now() - t); }}
runs.sort((a, b) => a - b);
console.log(`| ${{{n}}} nodes, ${{{m}}} edges | ${{runs[2].toFixed(0)}} ms (median of 5) |`);
"""


def main() -> None:
    node = shutil.which("node")
    if node is None:
        raise SystemExit("panel_bench: node is not installed")
    module = (Path(__file__).resolve().parents[1] / "engram_lab" / "jupyter" / "static" / "activation.js").as_uri()
    print("| activation panel layout | time |\n|---|---|")
    for n, m in ((120, 600), (200, 1000), (500, 2500)):
        subprocess.run([node, "--input-type=module", "-e", SCRIPT.format(module=module, n=n, m=m)], check=True)


if __name__ == "__main__":
    main()
