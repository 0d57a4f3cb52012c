"""The verdict on an answer and the words it is given in (the exercises of every section).

``Feedback`` is what :func:`scalinglib.exercises.check` returns: a status (right, wrong, not
answered yet, unreadable, no such part), a message and the part's hint, shown as a short coloured line
in a notebook. Every sentence comes from :data:`MESSAGES`, which the HTML book's in-page checker
receives too, so the page and the kernel say the same thing.

Only the standard library is used here.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

__all__ = ["Feedback", "MESSAGES"]


UNANSWERED = (None, Ellipsis)
STATUSES = ("correct", "incorrect", "unanswered", "invalid", "unknown")
_MARKS = {"correct": "✔", "incorrect": "✘", "unanswered": "…", "invalid": "?", "unknown": "?"}


@dataclass(frozen=True)
class Feedback:
    """The verdict on one answer. Shows as a short message in a notebook."""

    key: str
    status: str
    message: str
    hint: str = ""

    @property
    def correct(self) -> bool:
        return self.status == "correct"

    def __bool__(self) -> bool:  # `if check(...):` reads naturally
        return self.correct

    def text(self) -> str:
        lines = [_say("line", mark=_MARKS[self.status], key=self.key, message=self.message)]
        if self.hint and self.status in ("incorrect", "invalid"):
            lines.append(_say("hint", hint=self.hint))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        colour = {"correct": "#009E73", "incorrect": "#D55E00"}.get(self.status, "#6E6E6E")
        body = html.escape(self.text()).replace("\n", "<br>")
        return (
            f'<div class="scalinglib-check scalinglib-check-{self.status}" '
            f'style="border-left:4px solid {colour};padding:2px 8px">{body}</div>'
        )


#: The words around a verdict, as ``str.format`` templates: the kernel's checker and the HTML book's in-page
#: checker (which reads them from ``page_data``) build every message from these.
MESSAGES = {
    "line": "{mark} {key}: {message}",
    "hint": "  Hint: {hint}",
    "unanswered": "not answered yet: replace ... with your answer",
    "text": "expected a number, got the text {given}. {how}",
    "type": "expected a number, got {given}. {how}",
    "finite": "expected a finite number, got {given}. {how}",
    "wrong": "{message} {how}",
    "not_list": "expected a list of {n} numbers. {how}",
    "count": "expected {n} numbers, got {m}. {how}",
    "entry_blank": "not answered yet: entry {i} is still ...",
    "entry_text": "entry {i} should be a number, got {given}. {how}",
    "entry": "entry {i}: {message}",
    "entries_right": "all {n} entries are right",
    "entries_wrong": "{right} of {n} right; {notes}",
    "notes_joint": "; ",
    "word_invalid": "{given} is not one of the choices. {how}",
    "word_right": "{given} is right",
    "word_wrong": "{given} is not right. {how}",
    "not_words": "expected a list of {n} answers. {how}",
    "words_count": "expected {n} answers, got {m}. {how}",
    "item_blank": "not answered yet: item {i} is still ...",
    "item_invalid": "item {i}: {given} is not one of the choices. {how}",
    "items_right": "all {n} are right",
    "items_wrong": "{right} of {n} right; look again at item {items}. {how}",
    "items_joint": ", ",
    "unreadable": "could not read that answer ({error})",
    "unknown": "there is no exercise part called {given}{extra}",
}


def _say(name: str, **fields) -> str:
    return MESSAGES[name].format(**fields)
