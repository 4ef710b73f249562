"""A grouped bar chart as standalone SVG: no plotting library, renders anywhere offline."""

from __future__ import annotations

from html import escape

PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f")


def bar_chart_svg(title: str, groups: list[str], series: dict[str, list[float]], height: int = 320) -> str:
    """Values in [0, 1]; one cluster per group, one bar per series."""
    n_series = max(len(series), 1)
    bar, gap, left, top, bottom = 14, 24, 48, 40, 60
    width = left + len(groups) * (n_series * bar + gap) + 180
    plot_h = height - top - bottom
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
             f'<text x="{left}" y="20" font-size="14">{escape(title)}</text>']
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        y = top + plot_h * (1 - tick)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - 180}" y2="{y:.1f}" stroke="#ddd"/>'
                     f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{tick:.2f}</text>')
    for g, group in enumerate(groups):
        x0 = left + gap / 2 + g * (n_series * bar + gap)
        for s, (name, values) in enumerate(series.items()):
            value = max(0.0, min(1.0, values[g]))
            h = plot_h * value
            parts.append(f'<rect x="{x0 + s * bar:.1f}" y="{top + plot_h - h:.1f}" width="{bar - 2}" height="{h:.1f}" '
                         f'fill="{PALETTE[s % len(PALETTE)]}"><title>{escape(name)} {escape(group)}: {value:.3f}</title></rect>')
        parts.append(f'<text x="{x0 + n_series * bar / 2:.1f}" y="{top + plot_h + 16}" text-anchor="middle">{escape(group)}</text>')
    for s, name in enumerate(series):
        y = top + 14 * s
        parts.append(f'<rect x="{width - 160}" y="{y}" width="10" height="10" fill="{PALETTE[s % len(PALETTE)]}"/>'
                     f'<text x="{width - 145}" y="{y + 9}">{escape(name)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)
