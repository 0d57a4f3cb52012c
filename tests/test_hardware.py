"""The accelerator catalog: every number has a source, dense peaks are dense, units are SI.

The figures asserted here are the vendors' printed numbers (see the sources in
scalinglib/hardware.py); a test that fails after an edit to the catalog means a
number moved away from its datasheet, or a convention (dense, bytes, one
direction) was broken.
"""

import dataclasses
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import scalinglib as sl
from scalinglib.hardware import (
    INSTANCE_PRICES,
    KINDS,
    NUMERIC_FIELDS,
    PRECISIONS,
    PRICINGS,
    Accelerator,
    InstancePrice,
    Link,
)

NVIDIA = [name for name, acc in sl.CATALOG.items() if acc.vendor == "NVIDIA"]
ALL_FIELDS = [f.name for f in dataclasses.fields(Accelerator)]


# --- completeness and sources -------------------------------------------------------------------


def test_catalog_holds_the_devices_the_chapter_uses():
    for name in ["A100 SXM 80GB", "H100 SXM 80GB", "H200 SXM 141GB", "MI300X", "TPU v4", "TPU v5e", "TPU v5p"]:
        assert name in sl.CATALOG
        assert sl.CATALOG[name].name == name


@pytest.mark.parametrize("name", list(sl.CATALOG))
def test_every_field_is_filled_or_its_absence_explained(name):
    acc = sl.CATALOG[name]
    assert acc.kind in KINDS[:2]  # the catalog holds GPUs and TPUs
    assert acc.vendor and acc.link_name and acc.notes
    assert "bf16" in acc.peak_flops, "every section defaults to bf16"
    for field in ALL_FIELDS:
        value = getattr(acc, field)
        if value is None:
            # a documented gap: the notes must say so by field name, and a source must say where we looked
            assert field in acc.notes, f"{name}.{field} is None without a word in the notes"
        else:
            assert value != "" and value != {}, f"{name}.{field} is empty"


@pytest.mark.parametrize("name", list(sl.CATALOG))
def test_every_numeric_field_has_a_source_with_a_url(name):
    acc = sl.CATALOG[name]
    for field in NUMERIC_FIELDS:
        assert field in acc.sources, f"{name}: no source for {field}"
        assert "https://" in acc.sources[field], f"{name}: source for {field} has no URL"
        assert len(acc.sources[field].split("https://")[0].strip()) > 10, f"{name}: source for {field} has no title"


def test_notes_say_how_memory_units_were_read():
    for acc in sl.CATALOG.values():
        assert "converted" in acc.notes, f"{acc.name}: notes do not say whether GB/GiB was converted"


# --- the printed numbers, dense --------------------------------------------------------------------


def test_a100_matches_its_datasheet():
    a100 = sl.get_accelerator("A100 SXM 80GB")
    assert dict(a100.peak_flops) == {
        "fp64": 19.5e12,
        "fp32": 19.5e12,
        "tf32": 156e12,
        "bf16": 312e12,
        "fp16": 312e12,
        "int8": 624e12,
    }
    assert a100.memory_bytes == 80e9
    assert a100.memory_bandwidth == 2.039e12
    assert a100.link_bandwidth == 300e9  # 600 GB/s both ways
    assert a100.devices_per_node == 8


def test_h100_dense_peaks_are_half_the_sparse_datasheet_figures():
    h100 = sl.get_accelerator("H100 SXM 80GB")
    sparse = {"tf32": 989e12, "bf16": 1979e12, "fp16": 1979e12, "fp8": 3958e12, "int8": 3958e12}
    for precision, starred in sparse.items():
        assert h100.peak(precision) == pytest.approx(starred / 2)
    assert h100.peak("bf16") == pytest.approx(989.5e12)
    # within rounding of the whitepaper's unrounded dense 989.4 TFLOPS
    assert h100.peak("bf16") == pytest.approx(989.4e12, rel=2e-4)
    assert h100.peak("fp64") == 67e12 and h100.peak("fp32") == 67e12
    assert h100.memory_bytes == 80e9 and h100.memory_bandwidth == 3.35e12
    assert h100.link_bandwidth == 450e9


def test_h200_has_h100_compute_and_more_memory():
    h100, h200 = sl.get_accelerator("H100"), sl.get_accelerator("H200")
    assert dict(h200.peak_flops) == dict(h100.peak_flops)
    assert h200.memory_bytes == 141e9 and h200.memory_bandwidth == 4.8e12
    assert h200.link_bandwidth == h100.link_bandwidth == 450e9


@pytest.mark.parametrize("name", NVIDIA)
def test_fp16_equals_bf16_on_nvidia_parts(name):
    acc = sl.CATALOG[name]
    assert acc.peak("fp16") == acc.peak("bf16")
    assert acc.peak("int8") == pytest.approx(2 * acc.peak("bf16"))
    assert acc.peak("tf32") == pytest.approx(acc.peak("bf16") / 2, rel=1e-3)


def test_no_sparse_figure_slipped_in():
    printed_sparse = {
        "A100 SXM 80GB": {"bf16": 624e12, "tf32": 312e12, "int8": 1248e12},
        "H100 SXM 80GB": {"bf16": 1979e12, "fp8": 3958e12},
        "H200 SXM 141GB": {"bf16": 1979e12, "fp8": 3958e12},
        "MI300X": {"bf16": 2614.9e12, "fp8": 5229.8e12, "tf32": 1307.4e12},
    }
    for name, figures in printed_sparse.items():
        for precision, sparse in figures.items():
            assert sl.CATALOG[name].peak(precision) == pytest.approx(sparse / 2, rel=1e-4), (name, precision)


def test_mi300x_matches_amd_peak_table():
    mi = sl.get_accelerator("MI300X")
    assert dict(mi.peak_flops) == {
        "fp64": 163.4e12,
        "fp32": 163.4e12,
        "tf32": 653.7e12,
        "bf16": 1307.4e12,
        "fp16": 1307.4e12,
        "fp8": 2614.9e12,
        "int8": 2614.9e12,
    }
    assert mi.memory_bytes == 192e9 and mi.memory_bandwidth == 5.3e12
    assert mi.link_bandwidth == 448e9  # 7 peers x 64 GB/s each way


def test_tpus_match_google_documentation_and_gib_is_converted():
    v4, v5e, v5p = (sl.get_accelerator(n) for n in ("TPU v4", "TPU v5e", "TPU v5p"))
    assert v4.peak("bf16") == 275e12 and v4.peak("int8") == 275e12
    assert v4.memory_bytes == 32 * 2**30 == 34_359_738_368
    assert v4.memory_bandwidth == 1.2e12
    assert v4.link_bandwidth is None  # not documented per chip
    assert v5e.peak("bf16") == 197e12 and v5e.peak("int8") == 393e12
    assert v5e.memory_bytes == 16e9 and v5e.memory_bandwidth == 819e9
    assert v5e.link_bandwidth == 200e9  # 400 GB/s bidirectional
    assert v5p.peak("bf16") == 459e12 and v5p.peak("int8") == 918e12
    assert v5p.memory_bytes == 95 * 2**30
    assert v5p.memory_bandwidth == 2765e9
    assert v5p.link_bandwidth == 600e9  # 1200 GB/s bidirectional = 4800 Gbps one way
    assert (v4.link_domain, v5e.link_domain, v5p.link_domain) == (4096, 256, 8960)


# --- ridge points ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(sl.CATALOG))
def test_ridge_point_is_peak_over_bandwidth(name):
    acc = sl.CATALOG[name]
    for precision in acc.precisions:
        assert acc.ridge_point(precision) == acc.peak(precision) / acc.memory_bandwidth
    assert acc.ridge_point() == acc.ridge_point("bf16")


def test_a100_bf16_ridge_point_is_about_153_flop_per_byte():
    assert sl.get_accelerator("A100").ridge_point("bf16") == pytest.approx(312e12 / 2.039e12)
    assert sl.get_accelerator("A100").ridge_point("bf16") == pytest.approx(153.0, abs=0.05)


def test_bandwidth_hierarchy_hbm_then_device_link_then_network():
    ndr = sl.LINKS["InfiniBand NDR"].bandwidth
    for acc in sl.CATALOG.values():
        if acc.link_bandwidth is not None:
            assert acc.memory_bandwidth > acc.link_bandwidth > ndr, acc.name


@given(
    name=st.sampled_from(sorted(sl.CATALOG)),
    factor=st.floats(min_value=1e-3, max_value=1e3, allow_nan=False),
    data=st.data(),
)
def test_ridge_point_scales_linearly_with_peak(name, factor, data):
    acc = sl.CATALOG[name]
    precision = data.draw(st.sampled_from(acc.precisions))
    scaled = dataclasses.replace(acc, peak_flops={p: v * factor for p, v in acc.peak_flops.items()})
    assert scaled.ridge_point(precision) == pytest.approx(factor * acc.ridge_point(precision), rel=1e-12)
    faster_memory = dataclasses.replace(acc, memory_bandwidth=acc.memory_bandwidth * factor)
    assert faster_memory.ridge_point(precision) == pytest.approx(acc.ridge_point(precision) / factor, rel=1e-12)


# --- look-ups ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("a100 sxm 80gb", "A100 SXM 80GB"),
        ("A100-SXM-80GB", "A100 SXM 80GB"),
        ("  h100_sxm 80GB ", "H100 SXM 80GB"),
        ("H100", "H100 SXM 80GB"),
        ("h200", "H200 SXM 141GB"),
        ("mi300x", "MI300X"),
        ("AMD MI300X", "MI300X"),
        ("tpu-v5p", "TPU v5p"),
        ("TPUv4", "TPU v4"),
        ("v5e", "TPU v5e"),
    ],
)
def test_lookup_ignores_case_spaces_and_hyphens(spelling, name):
    assert sl.get_accelerator(spelling) is sl.CATALOG[name]


def test_lookup_passes_an_accelerator_through():
    acc = sl.CATALOG["MI300X"]
    assert sl.get_accelerator(acc) is acc


@pytest.mark.parametrize("bad", ["B200", "A100 PCIe", "", "TPU v6"])
def test_unknown_name_is_refused_with_the_list(bad):
    with pytest.raises(ValueError, match="name must be one of") as info:
        sl.get_accelerator(bad)
    for name in sl.CATALOG:
        assert repr(name) in str(info.value)


@pytest.mark.parametrize("bad", [None, 100, ["H100"]])
def test_name_of_wrong_type_is_a_type_error(bad):
    with pytest.raises(TypeError, match="name"):
        sl.get_accelerator(bad)


def test_unknown_precision_is_refused_with_the_list():
    with pytest.raises(ValueError, match="precision must be one of") as info:
        sl.CATALOG["H100 SXM 80GB"].peak("fp4")
    for precision in PRECISIONS:
        assert repr(precision) in str(info.value)


def test_precision_the_device_lacks_is_refused_with_what_it_has():
    with pytest.raises(ValueError, match=r"'fp8' is not available on A100 SXM 80GB; available: 'fp64', 'fp32'"):
        sl.CATALOG["A100 SXM 80GB"].ridge_point("fp8")
    with pytest.raises(ValueError, match="available: 'bf16', 'int8'"):
        sl.CATALOG["TPU v4"].peak("fp32")


def test_precision_is_case_insensitive_and_must_be_a_string():
    assert sl.get_accelerator("H100").peak("BF16") == sl.get_accelerator("H100").peak("bf16")
    with pytest.raises(TypeError, match="precision"):
        sl.get_accelerator("H100").peak(16)


# --- the table ------------------------------------------------------------------------------------


def test_table_has_one_row_per_device_with_consistent_numbers():
    rows = sl.accelerator_table("bf16")
    assert [r["name"] for r in rows] == list(sl.CATALOG)
    for row in rows:
        acc = sl.CATALOG[row["name"]]
        assert row["peak_flops"] == acc.peak("bf16")
        assert row["ridge_point"] == acc.ridge_point("bf16")
        assert row["memory_bytes"] == acc.memory_bytes
        assert row["memory_bandwidth"] == acc.memory_bandwidth
        assert row["link_bandwidth"] == acc.link_bandwidth
        assert row["link_name"] == acc.link_name
        assert row["precision"] == "bf16"


def test_table_keeps_devices_without_the_precision():
    rows = sl.accelerator_table("fp8", names=["A100", "H100", "TPU v4"])
    assert [r["name"] for r in rows] == ["A100 SXM 80GB", "H100 SXM 80GB", "TPU v4"]
    assert rows[0]["peak_flops"] is None and rows[0]["ridge_point"] is None
    assert rows[1]["peak_flops"] == pytest.approx(1979e12)


def test_table_refuses_bad_arguments():
    with pytest.raises(ValueError, match="precision must be one of"):
        sl.accelerator_table("float16")
    with pytest.raises(ValueError, match="names must be one of"):
        sl.accelerator_table(names=["H100", "B200"])
    with pytest.raises(TypeError, match="names"):
        sl.accelerator_table(names="H100")


# --- the class refuses bad data -------------------------------------------------------------------

GOOD = dict(name="Toy", vendor="Example", kind="GPU", peak_flops={"bf16": 1e14}, memory_bytes=16e9, memory_bandwidth=1e12)


@pytest.mark.parametrize(
    ("field", "bad", "error"),
    [
        ("memory_bytes", 0, ValueError),
        ("memory_bytes", -80e9, ValueError),
        ("memory_bytes", math.nan, ValueError),
        ("memory_bytes", "80e9", TypeError),
        ("memory_bytes", True, TypeError),
        ("memory_bandwidth", math.inf, ValueError),
        ("memory_bandwidth", None, TypeError),
        ("link_bandwidth", 0.0, ValueError),
        ("devices_per_node", 0, ValueError),
        ("devices_per_node", 2.5, ValueError),
        ("link_domain", -1, ValueError),
        ("kind", "FPGA", ValueError),
        ("kind", 3, TypeError),
        ("name", "", ValueError),
        ("vendor", None, TypeError),
        ("peak_flops", {}, ValueError),
        ("peak_flops", {"fp4": 1e15}, ValueError),
        ("peak_flops", {"bf16": -1.0}, ValueError),
        ("peak_flops", {"bf16": "1e14"}, TypeError),
        ("peak_flops", [1e14], TypeError),
        ("sources", {"memory": "a datasheet, https://example.com"}, ValueError),
        ("sources", {"memory_bytes": ""}, ValueError),
        ("notes", None, TypeError),
    ],
)
def test_constructor_refuses_bad_values_by_name(field, bad, error):
    Accelerator(**GOOD)  # the valid one works
    with pytest.raises(error) as info:
        Accelerator(**{**GOOD, field: bad})
    assert field in str(info.value), f"message does not name {field!r}: {info.value}"


def test_entries_are_frozen_and_hashable():
    acc = sl.CATALOG["H100 SXM 80GB"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        acc.memory_bytes = 1.0
    with pytest.raises(TypeError):
        acc.peak_flops["bf16"] = 1.0
    with pytest.raises(TypeError):
        sl.CATALOG["B200"] = acc
    assert hash(acc) == hash(dataclasses.replace(acc))
    assert acc == dataclasses.replace(acc)


def test_peak_flops_keep_the_canonical_order():
    acc = Accelerator(**{**GOOD, "peak_flops": {"int8": 2e14, "fp32": 1e13, "bf16": 1e14}})
    assert acc.precisions == ("fp32", "bf16", "int8")


# --- links ---------------------------------------------------------------------------------------


def test_links_table_holds_the_hierarchy_with_sources():
    expected = {
        "NVLink 4 (H100)": 450e9,
        "NVLink 3 (A100)": 300e9,
        "PCIe 5.0 x16": 32e9 * 16 * 128 / 130 / 8,
        "PCIe 4.0 x16": 16e9 * 16 * 128 / 130 / 8,
        "InfiniBand NDR": 50e9,
        "400GbE": 50e9,
        "InfiniBand HDR": 25e9,
        "100GbE": 12.5e9,
    }
    assert set(sl.LINKS) == set(expected)
    for name, bandwidth in expected.items():
        link = sl.LINKS[name]
        assert isinstance(link, Link)
        assert link.bandwidth == pytest.approx(bandwidth)
        assert "https://" in link.source and link.notes
    assert sl.LINKS["PCIe 4.0 x16"].bandwidth == pytest.approx(31.5e9, rel=1e-3)
    assert sl.LINKS["PCIe 5.0 x16"].bandwidth == pytest.approx(63.0e9, rel=1e-3)
    bandwidths = [link.bandwidth for link in sl.LINKS.values()]
    assert bandwidths == sorted(bandwidths, reverse=True), "LINKS is listed fastest first"


def test_links_agree_with_the_catalog():
    assert sl.LINKS["NVLink 3 (A100)"].bandwidth == sl.get_accelerator("A100").link_bandwidth
    assert sl.LINKS["NVLink 4 (H100)"].bandwidth == sl.get_accelerator("H100").link_bandwidth
    assert sl.LINKS["NVLink 4 (H100)"].bandwidth == sl.get_accelerator("H200").link_bandwidth


def test_link_refuses_bad_values_by_name():
    with pytest.raises(ValueError, match="bandwidth"):
        Link("x", 0, "host", "a source, https://example.com")
    with pytest.raises(ValueError, match="scope"):
        Link("x", 1e9, "rack", "a source, https://example.com")
    with pytest.raises(TypeError, match="source"):
        Link("x", 1e9, "host", None)


# --- published prices (Section 3.2.6) ------------------------------------------------------------

def test_every_price_row_has_a_dated_source_with_a_url():
    assert len(INSTANCE_PRICES) == 6
    for key, row in INSTANCE_PRICES.items():
        assert isinstance(row, InstancePrice) and key == row.key
        assert "https://" in row.source and "202" in row.source          # a URL and the date of the price
        assert row.pricing in PRICINGS and row.chip in sl.CATALOG
        assert row.devices == 8 and row.notes


def test_every_price_row_says_when_it_applied():
    """Section 3.2.5 prints the date of every price and compares prices only within one list (one date)."""
    dates = {row.pricing: set() for row in INSTANCE_PRICES.values()}
    for row in INSTANCE_PRICES.values():
        assert row.as_of and row.as_of[-10:-6] in row.source           # the year of the date is in the source
        dates[row.pricing].add(row.as_of)
    assert dates == {"capacity block": {"until 2025-01-01"}, "on-demand": {"2026-11-09"}}


def test_capacity_block_rates_are_the_printed_ones():
    """The page prints instance rates and accelerator rates; the one is the other times eight."""
    printed = {"p4d.24xlarge": (14.75, 1.844, 320e9), "p5.48xlarge": (39.33, 4.916, 640e9),
               "p5e.48xlarge": (43.26, 5.408, 1128e9)}
    for instance, (hourly, per_gpu, memory) in printed.items():
        row = INSTANCE_PRICES[f"AWS {instance}, capacity block"]
        assert row.usd_per_hour == hourly and row.region == "US East (Ohio)"
        assert row.usd_per_device_hour == pytest.approx(per_gpu, abs=1e-3)
        assert row.devices * row.device_memory_bytes == memory


def test_on_demand_rates_are_the_transcribed_ones():
    per_gpu = {"p4d.24xlarge": (2.7447, 40e9), "p4de.24xlarge": (3.4309, 80e9), "p5.48xlarge": (6.88, 80e9)}
    for instance, (rate, memory) in per_gpu.items():
        row = INSTANCE_PRICES[f"AWS {instance}, on-demand"]
        assert row.usd_per_device_hour == pytest.approx(rate, abs=1e-4) and row.region == "us-east-1"
        assert row.device_memory_bytes == memory


def test_price_rows_give_memory_bandwidth_where_the_part_differs():
    """The 40 GB A100 of p4d has 1,555 GB/s (A100 datasheet); every other row has its catalog chip's."""
    for key, row in INSTANCE_PRICES.items():
        if key.startswith("AWS p4d."):
            assert row.memory_bandwidth == 1.555e12 and "1,555 GB/s" in row.notes
        else:
            assert row.device_memory_bandwidth is None
            assert row.memory_bandwidth == sl.get_accelerator(row.chip).memory_bandwidth
    p4de = INSTANCE_PRICES["AWS p4de.24xlarge, on-demand"]
    assert p4de.memory_bandwidth == 2.039e12 and "2,039 against 1,555 GB/s" in p4de.notes


def test_price_rows_take_compute_from_the_catalog():
    a100_40 = INSTANCE_PRICES["AWS p4d.24xlarge, on-demand"]
    assert a100_40.chip == "A100 SXM 80GB" and a100_40.peak() == 312e12      # the 40 GB A100 has the same peak
    assert a100_40.device_memory_bytes == 40e9
    assert INSTANCE_PRICES["AWS p5e.48xlarge, capacity block"].peak("fp8") == sl.get_accelerator("H200").peak("fp8")


@pytest.mark.parametrize(("change", "error", "match"), [
    (dict(devices=0), ValueError, "devices"),
    (dict(devices=2.5), ValueError, "devices"),
    (dict(device_memory_bytes=-80e9), ValueError, "device_memory_bytes"),
    (dict(usd_per_hour=0.0), ValueError, "usd_per_hour"),
    (dict(usd_per_hour="39.33"), TypeError, "usd_per_hour"),
    (dict(pricing="spot"), ValueError, "pricing"),
    (dict(chip="B200"), ValueError, r"^chip must be one of .*got 'B200'$"),
    (dict(chip=3), TypeError, "^chip must be a string"),
    (dict(device_memory_bandwidth=0.0), ValueError, "device_memory_bandwidth"),
    (dict(device_memory_bandwidth="fast"), TypeError, "device_memory_bandwidth"),
    (dict(source=None), TypeError, "source"),
    (dict(instance=""), ValueError, "instance"),
    (dict(as_of=2024), TypeError, "as_of"),
])
def test_price_row_refuses_bad_values_by_name(change, error, match):
    args = dict(instance="AWS p5.48xlarge", chip="H100", devices=8, device_memory_bytes=80e9, usd_per_hour=39.33,
                pricing="capacity block", region="US East (Ohio)", source="a source, https://example.com, 2024")
    with pytest.raises(error, match=match):
        InstancePrice(**(args | change))
