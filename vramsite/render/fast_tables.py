"""The engine's table partials drawn in Python: the same characters as ``templates/partials/table.*`` and
``lookup_cell.*``, without Jinja's per-cell overhead (a large page has thousands of cells).

The partials stay the specification. A partial whose source is not the one these functions were written
from (``SPECIFIED``) is rendered by Jinja: a site's own version of it, or an engine partial that changed.
The source alone decides, not where its file is (``partial_is_specified``, once per layout environment):
a site that keeps an unchanged copy of the engine's templates draws its tables as fast as the engine does.
``tests/test_fast_tables.py`` compares the two for every table the sites publish.
"""

from __future__ import annotations

import hashlib
import weakref

from jinja2 import Environment, TemplateNotFound
from markupsafe import Markup, escape

SPECIFIED = {
    "partials/table.html": "98c0e37c41adf6c8",
    "partials/table.md": "bdeff2300fe6d594",
    "partials/lookup_cell.html": "b7644aa210ce5353",
    "partials/lookup_cell.md": "a3c06303dc175ab0",
}
"""The first 16 hex digits of the sha256 of each engine partial's source that the functions below reproduce."""

_decided: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def source_digest(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


def partial_is_specified(env: Environment, name: str) -> bool:
    """Whether the source ``env`` finds for ``name`` is the one this module reproduces."""
    decided = _decided.setdefault(env, {})
    if name not in decided:
        decided[name] = _is_specified(env, name)
    return decided[name]


def _is_specified(env: Environment, name: str) -> bool:
    try:
        source, _, _ = env.loader.get_source(env, name)
    except TemplateNotFound:
        return False
    return source_digest(source) == SPECIFIED.get(name)


# -- tables ------------------------------------------------------------------------------------------------


def table_html(table, inline, cell, download) -> str:
    """What ``partials/table.html`` renders for ``table`` (autoescaped, before the blank lines are dropped)."""
    table_id = escape(table.id)
    numeric = [column.numeric for column in table.columns]
    parts = [
        f'<figure class="table" id="table-{table_id}">\n',
        f'<figcaption id="caption-{table_id}">{escape(inline(table.caption))}</figcaption>\n',
        f'<div class="table-scroll" role="region" tabindex="0" aria-labelledby="caption-{table_id}">\n',
        "<table>\n",
        f'<thead><tr><th scope="col">{escape(inline(table.corner))}</th>',
    ]
    for column, is_numeric in zip(table.columns, numeric):
        parts.append(f'<th scope="col" class="num">{escape(inline(column.label))}</th>' if is_numeric
                     else f'<th scope="col">{escape(inline(column.label))}</th>')
    parts.append("</tr></thead>\n<tbody>\n")
    for row in table.rows:
        parts.append(f'<tr><th scope="row">{escape(cell(row.header))}</th>')
        for index, content in enumerate(row.cells):
            attributes = ' class="num"' if numeric[index] else ""
            if content.flags:
                attributes += f' data-flags="{Markup(" ").join(content.flags)}"'
            parts.append(f"<td{attributes}>{escape(cell(content))}</td>")
        parts.append("</tr>\n")
    parts.append("</tbody>\n</table>\n</div>\n")
    for note in table.notes:
        parts.append(f'<p class="table-note">{escape(inline(note))}</p>\n')
    parts.append(f'<p class="table-note table-download">{escape(download(table))}</p>\n</figure>\n')
    return "".join(parts)


def table_md(table, inline, cell, download) -> str:
    """What ``partials/table.md`` renders for ``table``."""
    parts = [f"**{inline(table.caption)}**\n\n| {inline(table.corner)} |"]
    parts.extend(f" {inline(column.label)} |" for column in table.columns)
    parts.append("\n|---|")
    parts.extend("---:|" if column.numeric else "---|" for column in table.columns)
    parts.append("\n")
    for row in table.rows:
        parts.append(f"| {cell(row.header)} |")
        parts.extend(f" {cell(content)} |" for content in row.cells)
        parts.append("\n")
    for note in table.notes:
        parts.append(f"\n{inline(note)}\n")
    parts.append(f"\n{download(table)}\n")
    return "".join(parts)


TABLES = {"html": table_html, "md": table_md}


# -- lookup cells --------------------------------------------------------------------------------------------


def lookup_cell_html(found, pieces, gettext) -> Markup:
    """What the macro of ``partials/lookup_cell.html`` gives for the lookup answer ``found``."""
    main = f'<span class="main">{pieces.fig(found.need)}</span>'
    choice = found.choice
    if not choice:
        return Markup(f'{main} <span class="sub">'
                      f'{pieces.message("{nodes}, talk to sales", nodes=pieces.fig(found.nodes))}</span>')
    priced = _priced(choice, pieces)
    if choice.tight:
        flag = Markup(f'<span class="flag">{escape(gettext("tight"))}</span>')
        priced = pieces.message("{figure} {flag}", figure=priced, flag=flag)
    cheapest = (f' <span class="sub">{pieces.message("cheapest: {offer}", offer=_priced(found.cheapest, pieces))}'
                f'</span>' if found.cheapest else "")
    return Markup(f'{main} <span class="sub">{priced}</span>{cheapest}')


def lookup_cell_md(found, pieces, gettext) -> Markup:
    """What the macro of ``partials/lookup_cell.md`` gives for the lookup answer ``found``."""
    choice = found.choice
    if not choice:
        offer = pieces.message("{nodes}, talk to sales", nodes=pieces.fig(found.nodes))
    else:
        priced = _priced(choice, pieces)
        offer = pieces.message("{offer}, tight", offer=priced) if choice.tight else priced
        if found.cheapest:
            offer = pieces.message("{offer}; cheapest: {cheapest}", offer=Markup(offer),
                                   cheapest=_priced(found.cheapest, pieces))
    return pieces.message("{need}: {offer}", need=pieces.fig(found.need), offer=Markup(offer))


def _priced(choice, pieces) -> Markup:
    """'2× A40 $456/month' (the card linked), or the linked card alone and its price when one is enough."""
    if choice.count > 1:
        rented = pieces.message("{count}× {card}", count=pieces.num(choice.count), card=pieces.gpu_link(choice.gpu))
    else:
        rented = pieces.gpu_link(choice.gpu)
    return Markup(f"{rented} {pieces.fig(choice.price, period=True)}")


LOOKUP_CELLS = {"html": lookup_cell_html, "md": lookup_cell_md}
