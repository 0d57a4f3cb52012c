"""Small tables of computed numbers, shown as real tables in JupyterLab and in the book.

A notebook cell that ends in ``sl.table(...)`` shows an HTML table: a caption,
units in the column headers, digits right-aligned in tabular figures, each
column formatted its own way. The same object prints as aligned plain text
(``print(t)`` or the ``text/plain`` form that notebook tests compare), so a
table reads the same in a terminal. Both forms are plain functions of the
numbers: running the cell twice gives the same bytes. For example::

    sl.table(
        [(0.5, 20, 92), (0.9, 100, 461)],
        ["U", "mean", "p99"],
        caption="M/M/1 response time, 10 ms service time",
        units={"mean": "ms", "p99": "ms"},
        formats={"U": "{:.2f}", "mean": "{:,.0f}", "p99": "{:,.0f}"},
    )
"""

from __future__ import annotations

import html
import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Table", "table", "MAX_ROWS", "MAX_COLUMNS"]

#: Largest table the helper builds: a table this long belongs in a figure or a file.
MAX_ROWS = 500
#: Widest table the helper builds.
MAX_COLUMNS = 20
#: Shown in a cell whose value is None or NaN.
MISSING = "–"


def _is_number(value) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _auto_format(value) -> str:
    """A default text for a number: thousands separators, four significant digits below 10,000."""
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    x = float(value)
    if x == 0 or abs(x) >= 1e4:
        return f"{x:,.0f}"
    if abs(x) < 1e-3:
        return f"{x:.3g}"
    return f"{x:,.4g}"


def _formatter(column: str, spec) -> Callable[[Any], str]:
    if callable(spec):
        return spec
    if isinstance(spec, str):
        text = spec if "{" in spec else "{:" + spec + "}"
        try:
            text.format(1.5)
        except (ValueError, IndexError, KeyError) as exc:
            raise ValueError(f"formats[{column!r}] = {spec!r} is not a format for one number, "
                             f"such as '{{:,.0f}}' or '.2%': {exc}") from None
        return text.format
    raise TypeError(f"formats[{column!r}] must be a format string such as '{{:,.0f}}' or a function; got {spec!r}")


def _per_column(name: str, value, columns: list[str]) -> dict:
    """Read ``units``/``formats``/``align``: a dict keyed by column name, or a sequence in column order."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        unknown = [k for k in value if k not in columns]
        if unknown:
            raise ValueError(f"{name} names {unknown!r}, which are not columns; the columns are {columns!r}")
        return dict(value)
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a dict keyed by column name or a list in column order; got {value!r}")
    if len(value) != len(columns):
        raise ValueError(f"{name} has {len(value)} entries for {len(columns)} columns")
    return {c: v for c, v in zip(columns, value) if v is not None}


@dataclass(frozen=True)
class Table:
    """A table ready to show: the header, the cells as text, and how each column is aligned."""

    columns: tuple
    units: tuple
    cells: tuple
    numeric: tuple
    caption: str | None = None

    # -- the two forms a notebook shows ------------------------------------------------------
    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return self.to_text()

    __str__ = __repr__

    def header(self, i: int) -> str:
        """The header of column ``i`` as plain text, with its unit in parentheses."""
        unit = self.units[i]
        return f"{self.columns[i]} ({unit})" if unit else str(self.columns[i])

    def to_text(self) -> str:
        """The table as aligned plain text: caption, header, a rule, then the rows."""
        heads = [self.header(i) for i in range(len(self.columns))]
        widths = [max([len(h)] + [len(row[i]) for row in self.cells]) for i, h in enumerate(heads)]

        def line(items):
            return "  ".join(t.rjust(w) if num else t.ljust(w)
                             for t, w, num in zip(items, widths, self.numeric)).rstrip()

        out = [self.caption] if self.caption else []
        out += [line(heads), "  ".join("-" * w for w in widths)]
        out += [line(row) for row in self.cells]
        return "\n".join(out)

    def to_html(self) -> str:
        """The table as HTML: a caption, units on a line under each header, numbers right-aligned.

        The caption sits above the box that scrolls sideways on a narrow screen, so it stays in view;
        it also labels the table for screen readers. Inline ``text-align`` keeps the alignment in
        JupyterLab, where the book's stylesheet is not loaded.
        """
        def cell(tag, text, numeric, extra=""):
            cls = "sl-num" if numeric else "sl-text"
            align = "right" if numeric else "left"
            return f'<{tag} class="{cls}" style="text-align:{align}"{extra}>{text}</{tag}>'

        head = []
        for i, name in enumerate(self.columns):
            unit = self.units[i]
            label = html.escape(str(name)) + (f'<br><span class="sl-unit">{html.escape(unit)}</span>' if unit else "")
            head.append(cell("th", label, self.numeric[i], ' scope="col"'))
        body = ["<tr>" + "".join(cell("td", html.escape(t), num) for t, num in zip(row, self.numeric)) + "</tr>"
                for row in self.cells]
        caption, label = "", ""
        if self.caption:
            caption = f'<p class="sl-table-caption">{html.escape(self.caption)}</p>'
            label = f' aria-label="{html.escape(self.caption, quote=True)}"'
        return ('<div class="sl-table">' + caption + '<div class="sl-table-wrap">'
                + f'<table class="sl-table-grid"{label}>'
                + "<thead><tr>" + "".join(head) + "</tr></thead><tbody>" + "".join(body)
                + "</tbody></table></div></div>")


def table(rows, columns, *, caption=None, units=None, formats=None, align=None) -> Table:
    """A table of computed values that shows as an HTML table in a notebook and as text when printed.

    Parameters
    ----------
    rows : sequence of sequences, or of dicts
        One entry per row: the values in column order, or a dict keyed by column name.
        Numbers (Python or numpy) are formatted per column; None and NaN show as a dash;
        anything else is shown with ``str``.
    columns : sequence of str
        The column names, unique and non-empty, in order.
    caption : str, optional
        A sentence shown above the table.
    units : dict or sequence, optional
        The unit of each column (``{"p99": "ms"}``), shown in the header as ``p99 (ms)``.
    formats : dict or sequence, optional
        Per column, a format string for one number (``"{:,.0f}"``, ``".1%"``) or a function
        from value to text. Numbers without a format get thousands separators and four
        significant digits below 10,000.
    align : dict or sequence, optional
        ``"left"`` or ``"right"`` per column; by default columns whose values are all
        numbers are right-aligned and the others left-aligned.

    Returns
    -------
    Table
        Shown as HTML by Jupyter; ``str(t)`` is the plain-text form.

    Raises
    ------
    TypeError
        If ``rows``, ``columns``, a format or the caption has the wrong type.
    ValueError
        If a row has the wrong length or names an unknown column, the columns repeat, a unit,
        format or alignment names an unknown column, or the table is larger than
        :data:`MAX_ROWS` by :data:`MAX_COLUMNS`.

    Examples
    --------
    >>> t = table([(0.5, 20.0, 92.1), (0.99, 1000.0, 4605.2)], ["U", "mean", "p99"],
    ...           caption="M/M/1, 10 ms service time", units={"mean": "ms", "p99": "ms"},
    ...           formats={"U": "{:.2f}", "mean": "{:,.0f}", "p99": "{:,.0f}"})
    >>> print(t)
    M/M/1, 10 ms service time
       U  mean (ms)  p99 (ms)
    ----  ---------  --------
    0.50         20        92
    0.99      1,000     4,605
    >>> '<p class="sl-table-caption">M/M/1, 10 ms service time</p>' in t._repr_html_()
    True
    >>> table([("A100", 312e12)], ["device", "peak"], units={"peak": "FLOP/s"}).cells
    (('A100', '312,000,000,000,000'),)
    >>> table([(1, 2)], ["a"])
    Traceback (most recent call last):
    ...
    ValueError: rows[0] has 2 values for 1 columns ['a']
    """
    if isinstance(columns, (str, bytes)) or not isinstance(columns, Sequence):
        raise TypeError(f"columns must be a list of column names; got {columns!r}")
    cols = list(columns)
    if not cols:
        raise ValueError("columns must name at least one column")
    if len(cols) > MAX_COLUMNS:
        raise ValueError(f"columns has {len(cols)} names; a table here has at most {MAX_COLUMNS} columns")
    for i, name in enumerate(cols):
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"columns[{i}] must be a non-empty string; got {name!r}")
    if len(set(cols)) != len(cols):
        raise ValueError(f"columns repeat a name: {cols!r}")
    if caption is not None and not isinstance(caption, str):
        raise TypeError(f"caption must be a string; got {caption!r}")
    if isinstance(rows, (str, bytes, Mapping)) or not isinstance(rows, Iterable) or getattr(rows, "ndim", 1) == 0:
        raise TypeError(f"rows must be a list of rows (each a list of values or a dict); got {type(rows).__name__}")
    rows = list(rows)
    if len(rows) > MAX_ROWS:
        raise ValueError(f"rows has {len(rows)} rows; a table here has at most {MAX_ROWS} (use a figure or a file)")

    values = []
    for r, row in enumerate(rows):
        if isinstance(row, Mapping):
            unknown = [k for k in row if k not in cols]
            if unknown:
                raise ValueError(f"rows[{r}] names {unknown!r}, which are not columns; the columns are {cols!r}")
            values.append([row.get(c) for c in cols])
        elif isinstance(row, (str, bytes)) or not isinstance(row, Iterable):
            raise TypeError(f"rows[{r}] must be a list of values or a dict; got {row!r}")
        else:
            row = list(row)
            if len(row) != len(cols):
                raise ValueError(f"rows[{r}] has {len(row)} values for {len(cols)} columns {cols!r}")
            values.append(row)

    unit_of = _per_column("units", units, cols)
    for c, u in unit_of.items():
        if not isinstance(u, str):
            raise TypeError(f"units[{c!r}] must be a string such as 'ms'; got {u!r}")
    format_of = {c: _formatter(c, f) for c, f in _per_column("formats", formats, cols).items()}
    align_of = _per_column("align", align, cols)
    for c, a in align_of.items():
        if a not in ("left", "right"):
            raise ValueError(f"align[{c!r}] must be 'left' or 'right'; got {a!r}")

    def text(value, column):
        if value is None or (isinstance(value, float) and math.isnan(value)) or (
                _is_number(value) and not isinstance(value, numbers.Integral) and math.isnan(float(value))):
            return MISSING
        if column in format_of:
            try:
                return str(format_of[column](value))
            except (TypeError, ValueError) as exc:
                raise ValueError(f"formats[{column!r}] cannot format {value!r}: {exc}") from None
        if _is_number(value):
            return _auto_format(value)
        return str(value)

    cells = tuple(tuple(text(v, c) for v, c in zip(row, cols)) for row in values)
    numeric = []
    for i, c in enumerate(cols):
        if c in align_of:
            numeric.append(align_of[c] == "right")
        else:
            present = [row[i] for row in values if row[i] is not None]
            numeric.append(bool(present) and all(_is_number(v) for v in present))
    return Table(tuple(cols), tuple(unit_of.get(c, "") for c in cols), cells, tuple(numeric), caption)
