"""Bar charts as inline SVG: no script, no font or style fetched, every number printed with a
fixed precision so the same data gives the same bytes."""

from collections.abc import Sequence
from html import escape
from typing import NamedTuple

WIDTH, HEIGHT = 720, 240
_LEFT, _RIGHT, _TOP, _BOTTOM = 48, 12, 12, 40


class Series(NamedTuple):
    name: str
    color: str  # a CSS colour, written by us
    values: tuple[float, ...]  # one per label


def bars(title: str, labels: Sequence[str], series: Sequence[Series], percent: bool = False) -> str:
    """A stacked bar per label (one series: plain bars); ``percent``: values are shares, and
    the axis runs to 100 %."""
    count = max(len(labels), 1)
    tops = [sum(s.values[n] for s in series) for n in range(len(labels))]
    ceiling = 1.0 if percent else _nice(max(tops, default=0.0))
    plot_w, plot_h = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM
    slot = plot_w / count
    width = max(slot * 0.7, 1.0)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        *_ticks(ceiling, percent, plot_h),
        f'<line x1="{_LEFT}" y1="{_TOP + plot_h}" x2="{WIDTH - _RIGHT}" y2="{_TOP + plot_h}" '
        'stroke="#888"/>',
    ]
    step = max(1, -(-len(labels) // 12))  # at most twelve labels under the axis
    for n, label in enumerate(labels):
        x = _LEFT + n * slot + (slot - width) / 2
        base = float(_TOP + plot_h)
        for s in series:
            value = s.values[n]
            height = plot_h * value / ceiling if ceiling else 0.0
            shown = f"{value * 100:.1f} %" if percent else f"{value:g}"
            parts.append(
                f'<rect class="bar" x="{x:.1f}" y="{base - height:.1f}" width="{width:.1f}" '
                f'height="{height:.1f}" fill="{s.color}" data-value="{value:g}">'
                f"<title>{escape(label)} {escape(s.name)}: {shown}</title></rect>"
            )
            base -= height
        if n % step == 0:
            parts.append(
                f'<text x="{x + width / 2:.1f}" y="{HEIGHT - _BOTTOM + 16}" font-size="11" '
                f'text-anchor="middle">{escape(label)}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def legend(series: Sequence[Series]) -> str:
    """The colours of a chart's series, as HTML."""
    items = "".join(
        f'<li><span class="swatch" style="background:{s.color}"></span>{escape(s.name)}</li>'
        for s in series
    )
    return f'<ul class="legend">{items}</ul>'


def _axis_label(y: float, text: str) -> str:
    return (
        f'<text x="{_LEFT - 6}" y="{y:.1f}" font-size="11" text-anchor="end">{escape(text)}</text>'
    )


def _ticks(ceiling: float, percent: bool, plot_h: float) -> list[str]:
    """The value axis: a labelled tick and a faint grid line at each step from 0 to the top,
    quarters for a share, else the fewest of 5, 4 or 2 steps that fall on whole values."""
    steps = 4 if percent else next((n for n in (5, 4, 2) if (ceiling / n).is_integer()), 1)
    parts = []
    for n in range(steps + 1):
        value = ceiling * n / steps
        y = _TOP + plot_h - plot_h * n / steps
        label = f"{value * 100:g} %" if percent else f"{value:g}"
        parts.append(
            f'<line x1="{_LEFT}" y1="{y:.1f}" x2="{WIDTH - _RIGHT}" y2="{y:.1f}" stroke="#eee"/>'
        )
        parts.append(_axis_label(y + 4, label))
    return parts


def _nice(top: float) -> float:
    """The smallest of 1, 2 or 5 times a power of ten at or above ``top`` (1 for nothing)."""
    if top <= 0:
        return 1.0
    scale = 1.0
    while scale * 10 < top:
        scale *= 10
    return next(scale * m for m in (1, 2, 5, 10) if scale * m >= top)
