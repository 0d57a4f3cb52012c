"""The bibliography: DOIs are well formed, and the journal articles the chapter leans on carry one."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_ENTRY = re.compile(r"@(\w+)\{([^,\s]+),(.*?)\n\}", re.S)
_FIELD = re.compile(r"^\s*(\w+)\s*=\s*\{(.*)\},?\s*$", re.M)


def _entries() -> dict[str, tuple[str, dict[str, str]]]:
    text = (ROOT / "book" / "references.bib").read_text(encoding="utf-8")
    return {key: (kind.lower(), {k.lower(): v for k, v in _FIELD.findall(body)})
            for kind, key, body in _ENTRY.findall(text)}


def test_every_doi_is_well_formed():
    entries = _entries()
    assert len(entries) > 10
    for key, (_, fields) in entries.items():
        if "doi" in fields:
            assert re.fullmatch(r"10\.\d{4,9}/\S+", fields["doi"]), (key, fields["doi"])
            assert "doi.org" not in fields["doi"], key          # the bare DOI, not a link


def test_kingman_1961_carries_its_doi():
    """Kingman (1961), Proc. Cambridge Philos. Soc. 57(4) 902-904 (Crossref's record)."""
    kind, fields = _entries()["kingman1961single"]
    assert kind == "article" and fields["doi"] == "10.1017/S0305004100036094"
    assert (fields["volume"], fields["number"], fields["pages"], fields["year"]) == ("57", "4", "902--904", "1961")
