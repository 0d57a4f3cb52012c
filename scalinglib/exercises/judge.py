"""Judging one number against its seal: the rule, the band, and the slips a reader makes (the exercises of every section).

:func:`_judge` decides whether a number is right and, when it is not, what to say, by running the
steps of :func:`_program` on the number's seal. The same steps, as data, run in the HTML book's
in-page checker. What they name, in order:

* **Slips.** A number that would be right in another unit of the same kind is named as a unit slip.
  A size or a rate in bytes that is off by a factor of 8 is named as bits for bytes (Gb/s read as GB/s,
  or the reverse), and one off by the ratio of a binary to a decimal prefix (1.024**2, 1.024**3 or
  1.024**4: MiB, GiB or TiB against MB, GB or TB) as the two prefixes mixed up. For probabilities and
  shares, an answer that is one minus the expected value is named as the complement.
* **An inverted ratio.** Where a reciprocal is a plausible slip (a ratio, a speedup, a share, a rate:
  time per item for items per second), a wrong answer whose reciprocal lies in the nearest band (within
  5%) is told it may be the ratio inverted. The message is the same wherever in that band the
  reciprocal lies, so it says no more about the expected value than a band does.
* Otherwise the band and the direction (too high, too low).

:func:`_how_to_answer` says how to answer a part (its unit, and the rule that accepts). Only the
standard library is used here.
"""

from __future__ import annotations

import math
import numbers

from .parts import Part
from .seals import BANDS, Rule, Seal
from .units import Unit, _slips

# --- judging one number ---------------------------------------------------------------------------------


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _factor_text(factor: float) -> str:
    f = max(factor, 1 / factor)
    return f"{round(f):,}" if abs(f - round(f)) < 1e-6 * f else f"{f:,.3g}"


_ROUNDING = {
    "up": "round up: a part of one still needs a whole one",
    "down": "round down: only whole ones count",
    "none": "it comes out whole, with no rounding",
}


def _rounding(part: Part) -> str:
    return _ROUNDING.get(part.rounding, part.rounding)


#: Families whose answers can be off by the 8 bits of a byte (a link sold in Gb/s, an answer asked in GB/s).
_BYTE_FAMILIES = ("bytes", "byte rate")

#: The place of the reader's answer (as :func:`_fmt` prints it) in a message template: a template is a tuple of
#: text pieces and ``ANSWER``s, so the same template gives the kernel's message and, exported, the page's.
ANSWER = None


def _bits_template(unit: Unit, factor: float) -> tuple:
    """The verdict on an answer 8 times too large or too small in bytes or bytes per second."""
    if unit.family == "byte rate":
        example = "a link of 100 Gb/s (bits) carries 12.5 GB/s (bytes)"
    else:
        example = "8 bits make one byte"
    which = "bits where bytes are asked" if factor > 1 else "bytes divided by 8 as if they were bits"
    asked = unit.name if unit.name == "bytes" else f"{unit.name}, counted in bytes"
    return ANSWER, f" is off by a factor of 8: check the unit (the answer is in {asked}); it looks like {which}: {example}"


#: Binary against decimal prefixes: (factor, binary unit, its size, decimal unit, its size). A factor 1.024
#: (KiB for KB) is left out: it is too close to an ordinary near miss to be named.
_BINARY_PREFIXES = (
    (1.024**2, "MiB", "2^20", "MB", "1e6"),
    (1.024**3, "GiB", "2^30", "GB", "1e9"),
    (1.024**4, "TiB", "2^40", "TB", "1e12"),
)


def _widest_tolerance(rule: Rule) -> float:
    """The largest relative half-width of the interval ``rule`` accepts (0 for an exact rule)."""
    if rule.kind == "rel":
        return rule.value
    if rule.kind == "sig":
        return 5.0 * 10.0 ** -rule.value
    return 0.0


def _binary_prefix_steps(unit: Unit, rule: Rule) -> list[tuple]:
    """The steps naming a size or a byte rate off by a binary-against-decimal prefix factor.

    A factor is tried only when what the rule accepts around it cannot touch what it accepts around the
    expected value, so an ordinary near miss is never taken for a prefix slip."""
    if unit.family not in _BYTE_FAMILIES or rule.kind == "exact":
        return []
    tol = _widest_tolerance(rule)
    per_second = "/s" if unit.family == "byte rate" else ""
    steps = []
    for factor, binary, binary_size, decimal, decimal_size in _BINARY_PREFIXES:
        if (1 + tol) ** 2 >= factor:
            continue
        template = (ANSWER, f" is off by a factor of {factor:.3g}: check the unit (the answer is in "
                    f"{unit.symbol.strip() or unit.name}); it looks like binary and decimal prefixes mixed up: "
                    f"{binary}{per_second} ({binary_size} bytes{per_second}) against {decimal}{per_second} "
                    f"({decimal_size} bytes{per_second})")
        steps += [("/", factor, template), ("*", factor, template)]
    return steps


#: Units where an answer upside down (its reciprocal) is a plausible slip, with what the slip usually is.
_INVERTIBLE_FAMILIES = {
    "token rate": "time per token where tokens per unit time are asked",
    "request rate": "time per request where requests per unit time are asked",
    "byte rate": "time per byte where bytes per unit time are asked",
    "flop rate": "time per FLOP where FLOPs per unit time are asked",
}
_INVERTIBLE_UNITS = {
    "ratio": "divided the wrong way round",
    "speedup": "T(K)/T(1) where T(1)/T(K) is asked",
    "factor": "divided the wrong way round",
    "efficiency": "divided the wrong way round",
    "fraction": "divided the wrong way round",
    "T(1)": "a speedup where a time in units of T(1) is asked",
    "FLOP/byte": "bytes per FLOP where FLOPs per byte are asked",
}


def _where(index: int, side: str) -> str:
    """Where a wrong answer lies, in words, for band ``index`` (``len(BANDS)``: beyond every band) and ``side``."""
    if index == len(BANDS):
        return "far off"
    if side == "near":
        return f"close ({BANDS[index][2]}) but outside the tolerance"
    if index == 0:
        return f"close, but too {side} ({BANDS[0][2]})"
    if index == len(BANDS) - 1:
        return f"too {side} {BANDS[index][2]}"
    return f"too {side} ({BANDS[index][2]})"


def _program(part: Part, i: int) -> tuple[tuple, ...]:
    """How entry ``i`` of ``part`` judges a real number ``x``: steps ``(test, argument, template)`` tried in order;
    the first whose test holds gives the verdict (right only for ``"ok"``). The tests, all asked of the seal:

    ``"ok"``: x is accepted; ``"1-"``: 1 - x is; ``"/"``, ``"*"``: x divided or multiplied by the argument is
    (a unit slip, bits for bytes, binary prefixes); ``"inv"``: 1/x lies in the nearest band and x beyond the
    second (an inverted ratio); ``"frac"``: x is not whole; ``"zero"``; ``"sign"``: x has the wrong sign;
    ``"band"``: x lies in band ``argument = (index, side)`` (index ``len(BANDS)``: beyond every band).

    The kernel's :func:`_judge` runs these steps; the HTML book exports them (``page_data``) for its
    in-page checker, which runs the same steps on the same seals.
    """
    unit, rule = part.unit_of(i), part.rule_of(i)
    shown = (ANSWER, unit.symbol)
    steps: list[tuple] = [("ok", None, (*shown, " is right"))]
    if part.share:
        what = f"did you compute {part.complement} (the complement)?" if part.complement else \
            "the complement of what is asked?"
        steps.append(("1-", None, (ANSWER, f" is 1 minus the answer: {what}")))
    for factor, other in _slips(unit):
        if unit.family == "share":
            asked = "a fraction where a percentage is asked" if unit.key == "%" else \
                "a percentage where a plain number is asked" if unit.key == "efficiency" else \
                "a percentage where a fraction is asked"
            steps.append(("/", factor, (ANSWER, f" is off by a factor of 100: {asked}?")))
        else:
            steps.append(("/", factor, (ANSWER, f" is off by a factor of {_factor_text(factor)}: check the unit "
                                                f"(the answer is in {unit.symbol.strip() or unit.name}); "
                                                f"it looks like the answer in {other.name}")))
    if unit.family in _BYTE_FAMILIES:
        steps += [("/", factor, _bits_template(unit, factor)) for factor in (8.0, 1 / 8.0)]
    steps += _binary_prefix_steps(unit, rule)
    what = _INVERTIBLE_UNITS.get(unit.key) or _INVERTIBLE_FAMILIES.get(unit.family)
    if what is not None:
        steps.append(("inv", None, (ANSWER, " is not right, but its reciprocal is within 5% of the answer: you may "
                                            f"have inverted the ratio ({what}?)")))
    whole = part.whole_of(i)
    if whole:
        steps.append(("frac", None, (ANSWER, f" is not a whole number: the answer is "
                                             f"{unit.phrase.removeprefix('as ')} ({_rounding(part)})")))
    steps.append(("zero", None, (*shown, " is zero, and the answer is not")))
    steps.append(("sign", None, (*shown, " has the wrong sign")))
    after = f"; whole numbers are checked exactly ({_rounding(part)})" if whole else ""
    for index in range(len(BANDS) + 1):
        for side in ("high", "low", "near") if index < len(BANDS) else ("",):
            steps.append(("band", (index, side), (*shown, " is not right: ", _where(index, side), after)))
    return tuple(steps)


def _render(template: tuple, answer: str) -> str:
    return "".join(answer if piece is ANSWER else piece for piece in template)


def _holds(test: str, argument, seal: Seal, x: float, bands: dict) -> bool:
    """Whether step ``test`` of a program holds for the real number ``x`` (``bands`` remembers ``seal.band``)."""
    def band(y: float) -> tuple[int, str]:
        if y not in bands:
            bands[y] = seal.band(y)
        return bands[y]

    if test == "ok":
        return seal.accepts(x)
    if test == "1-":
        return math.isfinite(1 - x) and seal.accepts(1 - x)
    if test == "/":
        return seal.accepts(x / argument)
    if test == "*":
        return seal.accepts(x * argument)
    if test == "inv":
        return x != 0 and math.isfinite(1 / x) and band(1 / x)[0] == 0 and band(x)[0] >= 2
    if test == "frac":
        return x != round(x)
    if test == "zero":
        return x == 0
    if test == "sign":
        return not seal.same_sign(x)
    if test == "band":
        return band(x) == tuple(argument)
    raise ValueError(f"unknown step {test!r}")


_PROGRAMS: dict[tuple[str, int], tuple[Part, tuple]] = {}


def _judge(part: Part, i: int, seal: Seal, x) -> tuple[bool, str]:
    """(right?, message) for entry ``i`` of ``part`` answered with the real number ``x``: the first step of
    :func:`_program` that holds."""
    cached = _PROGRAMS.get((part.key, i))
    if cached is None or cached[0] is not part:
        cached = _PROGRAMS[(part.key, i)] = (part, _program(part, i))
    program = cached[1]
    xf, bands = float(x), {}
    for test, argument, template in program:
        if _holds(test, argument, seal, xf, bands):
            return test == "ok", _render(template, _fmt(x))
    raise AssertionError("a program ends with every band")


def _how_to_answer(part: Part, entries: int = 1) -> str:
    """ "Answer in ms; accepted within 1%." for a part, or one clause per kind of entry for a list."""
    if part.kind in ("choice", "choices"):
        options = _options(part)
        return f"Answer with {'one word' if part.kind == 'choice' else 'one word per item'}: {options} " \
               "(case, spaces, hyphens and underscores do not matter)."
    idx = range(max(entries, 1))
    phrases = [part.unit_of(i).phrase for i in idx]
    rules = [part.rule_of(i).text() for i in idx]
    if len(set(phrases)) == 1 and len(set(rules)) == 1:
        head = "Answer each entry " if part.kind == "numbers" else "Answer "
        return f"{head}{phrases[0]}; {rules[0]}."
    clauses = [f"entry {i + 1} {p}, {r}" for i, (p, r) in enumerate(zip(phrases, rules))]
    return "Answer " + "; ".join(clauses) + "."


def _end(sentence: str) -> str:
    return sentence if sentence.endswith(("?", ".")) else sentence + "."


def _options(part: Part) -> str:
    names = [repr(c) for c in part.listed_choices()]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
