"""The hardware catalog as data: every row of scalinglib/data/*.toml has its sources and dates, bad files are
refused with the file, row and field named, and a reader's own file adds devices beside the built-in ones."""

import re
import tomllib
from pathlib import Path

import pytest

import scalinglib as sl
from scalinglib import catalog, devices
from scalinglib.devices import NUMERIC_FIELDS

DATA = Path(catalog.__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[1]
DATE = re.compile(r"(until )?\d{4}(-\d{2}(-\d{2})?)?")


@pytest.fixture
def forget_loaded():
    """Undo any device a test loads, so the look-up holds the built-in catalog only afterwards."""
    registry, lookup = dict(devices._REGISTRY), dict(devices._LOOKUP)
    yield
    devices._REGISTRY.clear()
    devices._REGISTRY.update(registry)
    devices._LOOKUP.clear()
    devices._LOOKUP.update(lookup)


def write(tmp_path, text, name="mine.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


GOOD = """
[[accelerator]]
name = "Desk GPU"
vendor = "Example"
kind = "GPU"
peak_flops = { bf16 = 100e12 }
memory_bytes = 16e9
memory_bandwidth = 1e12
source = "the card's datasheet, https://example.org/desk-gpu.pdf"
date = 2026-11-28
"""


# --- the shipped files --------------------------------------------------------------------------


def test_every_accelerator_field_has_a_source_and_a_date_in_the_file():
    rows = tomllib.loads((DATA / "accelerators.toml").read_text())["accelerator"]
    assert [row["name"] for row in rows] == list(sl.CATALOG)
    for row in rows:
        for field in NUMERIC_FIELDS:
            assert field in row["sources"], f"{row['name']}: no source for {field}"
            assert "date" in row or field in row.get("dates", {}), f"{row['name']}: no date for {field}"
        device = sl.CATALOG[row["name"]]
        assert set(device.dates) == set(NUMERIC_FIELDS)
        assert all(DATE.fullmatch(d) for d in device.dates.values())


def test_every_link_and_price_row_has_its_source_and_date():
    for link in sl.LINKS.values():
        assert "http" in link.source and DATE.fullmatch(link.date), link.name
    for row in catalog.INSTANCE_PRICES.values():
        assert "http" in row.source and DATE.fullmatch(row.as_of), row.key


def test_every_source_is_cited_with_a_url_and_its_bib_keys_exist():
    bib = (ROOT / "book" / "references.bib").read_text()
    table = tomllib.loads((DATA / "sources.toml").read_text())
    used = set()
    for name in ("accelerators", "links", "instance_prices"):
        used |= set(re.findall(r'"([a-z0-9.-]+)"', (DATA / f"{name}.toml").read_text())) & set(table)
    assert used == set(table), f"sources cited by no row: {set(table) - used}"
    for key, entry in table.items():
        assert "http" in entry["text"], key
        if "bib" in entry:
            assert "{" + entry["bib"] + "," in bib, f"{key}: bib key {entry['bib']} is not in references.bib"


def test_pcie_rows_hold_the_coded_lane_rate():
    for name, transfers in (("PCIe 5.0 x16", 32e9), ("PCIe 4.0 x16", 16e9)):
        assert sl.LINKS[name].bandwidth == transfers * 16 * (128 / 130) / 8


def test_data_files_ship_with_the_package():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"scalinglib" = ["data/*.toml"]' in text
    for name in ("accelerators", "links", "instance_prices", "sources", "example_devices"):
        assert (DATA / f"{name}.toml").is_file()


# --- a reader's own devices -----------------------------------------------------------------------


def test_a_readers_file_adds_a_device_found_by_name(tmp_path, forget_loaded):
    loaded = sl.load_devices(write(tmp_path, GOOD))
    assert list(loaded) == ["Desk GPU"]
    device = sl.get_accelerator("desk-gpu")
    assert device is loaded["Desk GPU"] and device.peak("bf16") == 100e12
    assert device.dates["memory_bytes"] == "2026-11-28" and "example.org" in device.sources["peak_flops"]
    assert "Desk GPU" not in sl.CATALOG
    assert sl.accelerator_table(names=["Desk GPU"])[0]["ridge_point"] == 100.0
    # loading the file again replaces the device instead of refusing it
    again = sl.load_devices(str(write(tmp_path, GOOD.replace("100e12", "200e12"))))
    assert sl.get_accelerator("Desk GPU") is again["Desk GPU"] and again["Desk GPU"].peak("bf16") == 200e12


def test_the_example_file_of_the_docstring_loads(forget_loaded):
    loaded = sl.load_devices(DATA / "example_devices.toml")
    assert list(loaded) == ["RTX 4090"]
    assert (DATA / "example_devices.toml").read_text().strip() in sl.load_devices.__doc__.replace("        ", "")


BAD = [
    # (what replaces what in GOOD, the error, words the message must hold)
    (("memory_bytes = 16e9", "memory_bytes = -16e9"), ValueError, ["mine.toml", "[[accelerator]] 1", "'Desk GPU'",
                                                                  "memory_bytes", "> 0"]),
    (("memory_bytes = 16e9", 'memory_bytes = "16 GB"'), TypeError, ["mine.toml", "memory_bytes"]),
    (("bf16 = 100e12", "fp4 = 100e12"), ValueError, ["peak_flops", "'fp64'", "'fp4'"]),
    (('kind = "GPU"', 'kind = "NPU"'), ValueError, ["kind", "'GPU', 'TPU', 'CPU'"]),
    (("date = 2026-11-28", 'date = "2026-13-01"'), ValueError, ["date", "YYYY-MM-DD", "2026-13-01"]),
    (("date = 2026-11-28", ""), ValueError, ["peak_flops has no date", "[[accelerator]] 1"]),
    (('source = "the', 'sauce = "the'), ValueError, ["'sauce' is not a field", "allowed"]),
    (("memory_bandwidth = 1e12", ""), ValueError, ["memory_bandwidth is missing"]),
    (('name = "Desk GPU"', 'name = "H100"'), ValueError, ["'H100'", "built-in", "H100 SXM 80GB"]),
    (("[[accelerator]]", "[[link]]"), ValueError, ["[[accelerator]] tables only", "'link'"]),
    (("peak_flops = { bf16", "peak_flops = { bf16 = "), ValueError, ["mine.toml", "not a valid TOML file"]),
]


@pytest.mark.parametrize("change, error, words", BAD)
def test_bad_files_are_refused_naming_file_row_and_field(tmp_path, forget_loaded, change, error, words):
    path = write(tmp_path, GOOD.replace(*change))
    with pytest.raises(error) as info:
        sl.load_devices(path)
    message = str(info.value)
    assert message.startswith("path "), message
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    assert "Desk GPU" not in devices._REGISTRY


def test_two_rows_of_one_name_and_bad_paths_are_refused(tmp_path, forget_loaded):
    with pytest.raises(ValueError, match=r"\[\[accelerator\]\] 2 \('Desk GPU'\): name 'Desk GPU' is given"):
        sl.load_devices(write(tmp_path, GOOD + GOOD))
    with pytest.raises(ValueError, match="path 'nowhere.toml': no such file"):
        sl.load_devices("nowhere.toml")
    with pytest.raises(ValueError, match="cannot be read"):
        sl.load_devices(tmp_path)
    with pytest.raises(TypeError, match="path must be a file path"):
        sl.load_devices(3)


def test_the_built_in_files_are_checked_as_strictly(tmp_path):
    """A shipped row with a source that is not a key of sources.toml, or a field without a source, is refused."""
    text = (DATA / "accelerators.toml").read_text()
    bad = write(tmp_path, text.replace('peak_flops = "a100-datasheet"', 'peak_flops = "the A100 datasheet"'))
    with pytest.raises(ValueError, match=r"\[\[accelerator\]\] 1 \('A100 SXM 80GB'\): sources.peak_flops must be "
                                         r"a key of sources.toml"):
        catalog._accelerators(bad, catalog.SOURCES, strict=True)
    bad = write(tmp_path, text.replace('link_domain = "dgx-a100"\n', "", 1))
    with pytest.raises(ValueError, match="link_domain has no source"):
        catalog._accelerators(bad, catalog.SOURCES, strict=True)
    links = write(tmp_path, (DATA / "links.toml").read_text().replace('date = "2026-11-22"', 'date = "soon"', 1))
    with pytest.raises(ValueError, match=r"mine.toml, \[\[link\]\] 1 \('NVLink 4 \(H100\)'\): date must be a date"):
        catalog._links(links, catalog.SOURCES)
    prices = write(tmp_path, (DATA / "instance_prices.toml").read_text().replace("usd_per_hour = 14.75",
                                                                                 "usd_per_hour = 0"))
    with pytest.raises(ValueError, match=r"\[\[price\]\] 1 \('AWS p4d.24xlarge'\): usd_per_hour must be"):
        catalog._prices(prices, catalog.SOURCES)
