r"""Published training runs, as plain data with a source for every number (Section 3.9).

:data:`MFU_RUNS` holds the four runs of the model FLOPs utilization
comparison of Chowdhery et al. (2022, table 3 and appendix B): GPT-3,
Gopher, Megatron-Turing NLG and PaLM. Each :class:`PublishedRun` keeps the
throughput in the form the source printed it (FLOP/s per GPU, steps per
second, seconds per step or tokens per second) in ``throughput_as_published``
and the same throughput in tokens per second per device, so that the book can
recompute the MFU with :func:`scalinglib.cost.mfu` and compare it with the
figure the paper printed. The peaks of the A100 and the TPU v4 are read from
the hardware catalog; the V100 and the TPU v3 are not in the catalog, and
their peaks are stored here with their sources.

:data:`MEGATRON_WEAK_SCALING` is table 1 of Narayanan et al. (2021): ten GPT
models from 1.7 billion to 1 trillion parameters on 32 to 3,072 A100 GPUs,
with the throughput achieved per GPU. :data:`MEGATRON_TRAINING_TIMES` holds
the two end-to-end training-time estimates of section 5.1 of the same paper.
Two formulas of that paper recompute the table: the parameter count

.. math:: P = 12 l h^2 \left(1 + \frac{13}{12h} + \frac{V + s}{12 l h}\right)

(:func:`megatron_param_count`) and the FLOPs per iteration with activation
recomputation, :math:`F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h))`, whose
per-token form is :func:`megatron_flops_per_token`.

Every number here was checked against the paper it cites; where a number
cannot be checked, or a recomputation does not reproduce the printed figure,
``notes`` says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ._validate import (
    _describe,
    check_broadcast,
    check_flag,
    check_fraction,
    check_positive,
    check_text,
    check_whole,
    public,
    scalar_or_array,
    single,
    single_whole,
)
from .cost import flops_per_token, mfu
from .hardware import get_accelerator

__all__ = [
    "PublishedRun",
    "MFU_RUNS",
    "MegatronRow",
    "MEGATRON_WEAK_SCALING",
    "MEGATRON_TRAINING_TIMES",
    "MEGATRON_VOCAB",
    "MEGATRON_SEQ_LEN",
    "megatron_param_count",
    "megatron_flops_per_token",
    "mfu_table",
]

# --- sources ------------------------------------------------------------------------------------

PALM = "Chowdhery et al. (2022), the PaLM paper, arXiv:2204.02311"
PALM_TABLE_3 = PALM + ", section 4.1 and table 3 (model FLOPs utilization)"
PALM_APPENDIX_B = PALM + ", appendix B (compute usage: the MFU calculation)"
PALM_TABLE_1 = PALM + ", table 1 (model architecture; its caption: the attention head size is always 256)"
PALM_SECTION_4_1 = PALM + ", section 4.1 (hardware FLOPs utilization, with rematerialization: 57.8%)"
MEGATRON = "Narayanan et al. (2021), the Megatron-LM paper at SC '21, arXiv:2104.04473"
MEGATRON_TABLE_1 = MEGATRON + ", table 1 (weak-scaling throughput) and equation (2)"
MEGATRON_SECTION_5_1 = MEGATRON + ", section 5.1 (training time estimates, equation (4))"
GPT3 = "Brown et al., Language Models are Few-Shot Learners, NeurIPS 2020, arXiv:2005.14165, table 2.1"
GOPHER = (
    "Rae et al., Scaling Language Models: Methods, Analysis & Insights from Training Gopher, "
    "arXiv:2112.11446 (2021), table 1"
)
V100_PEAK = (
    "NVIDIA Developer Blog, Programming Tensor Cores in CUDA 9 (2017): Tesla V100 tensor cores deliver "
    "up to 125 tensor TFLOPS, https://developer.nvidia.com/programming-tensor-cores-cuda-9-0"
)
TPU_V3 = (
    "Google Cloud TPU documentation, TPU v3: peak compute per chip 123 teraflops (bf16), "
    "https://cloud.google.com/tpu/docs/v3"
)

_FLOAT_MAX = 1.7976931348623157e308

#: Vocabulary size and sequence length of every model of Megatron-LM's table 1.
MEGATRON_VOCAB = 51_200
MEGATRON_SEQ_LEN = 2048


@dataclass(frozen=True)
class PublishedRun:
    """One training run of a published MFU comparison.

    ``reported_mfu`` is the figure the source printed (a fraction);
    ``reported_mfu_without_attention`` the same without the attention FLOPs,
    and ``reported_hfu`` the hardware FLOPs utilization, where the source
    gives them. ``tokens_per_second_per_device`` is the
    source's throughput converted to tokens per second per device, with the
    conversion shown in ``throughput_as_published``.
    """

    name: str
    n_params: float
    device: str
    n_devices: int | None
    peak_flops_per_device: float
    tokens_per_second_per_device: float
    throughput_as_published: str
    n_layers: int
    n_heads: int
    head_dim: int
    seq_len: int
    reported_mfu: float
    reported_mfu_without_attention: float | None = None
    reported_digits: int = 1  #: decimals of the printed percentage
    #: hardware FLOPs utilization (recomputed FLOPs counted too), where the source prints it
    reported_hfu: float | None = None
    sources: Mapping[str, str] = field(default_factory=dict, hash=False, repr=False)
    notes: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        for name in ("name", "device", "throughput_as_published"):
            check_text(name, getattr(self, name))
        check_text("notes", self.notes, allow_empty=True)
        for name in ("n_params", "peak_flops_per_device", "tokens_per_second_per_device"):
            object.__setattr__(self, name, single(check_positive, name, getattr(self, name)))
        # whole numbers are kept as Python ints: numpy's small integer types would overflow in products
        for name in ("n_layers", "n_heads", "head_dim", "seq_len"):
            object.__setattr__(self, name, single_whole(name, getattr(self, name)))
        if self.n_devices is not None:
            object.__setattr__(self, "n_devices", single_whole("n_devices", self.n_devices, maximum=2**53,
                                                               why="the largest count a float holds exactly"))
            most = _FLOAT_MAX / self.n_devices
            if self.tokens_per_second_per_device > most:
                raise ValueError(f"tokens_per_second_per_device must be at most {most:.3g} with n_devices = "
                                 f"{self.n_devices:,} (the run's throughput, their product, must be a finite float); "
                                 f"got {self.tokens_per_second_per_device:g}")
        object.__setattr__(self, "reported_digits", single_whole("reported_digits", self.reported_digits, minimum=0,
                                                                 maximum=10, why="decimals of a percentage"))
        single(check_fraction, "reported_mfu", self.reported_mfu, open_low=True)
        for name in ("reported_mfu_without_attention", "reported_hfu"):
            if getattr(self, name) is not None:
                single(check_fraction, name, getattr(self, name), open_low=True)
        if not isinstance(self.sources, Mapping):
            raise TypeError(f"sources must be a mapping of field name to source; got {type(self.sources).__name__}")
        object.__setattr__(self, "sources", MappingProxyType(dict(self.sources)))

    @property
    def tokens_per_second(self) -> float | None:
        """Throughput of the whole run, or None where the source gives no device count."""
        if self.n_devices is None:
            return None
        return self.tokens_per_second_per_device * self.n_devices

    def flops_per_token(self, attention: bool = True) -> float:
        """Model FLOPs per token, :math:`6N` plus (by default) the attention term."""
        if attention:
            return flops_per_token(self.n_params, self.n_layers, self.n_heads, self.head_dim, self.seq_len)
        return flops_per_token(self.n_params)

    def recomputed_mfu(self, attention: bool = True) -> float:
        """MFU recomputed with :func:`scalinglib.cost.mfu` from this run's throughput and shape."""
        return mfu(self.tokens_per_second_per_device, self.flops_per_token(attention), 1,
                   self.peak_flops_per_device)


def _gopher_tokens_per_second_per_chip() -> float:
    steps_per_second = 0.0152            # PaLM, section 4.1 (from the Gopher authors)
    batch_tokens = 3072 * 2048           # Gopher's final batch: 3,072 sequences of 2,048 tokens ("6M")
    return steps_per_second * batch_tokens / 4096


MFU_RUNS: tuple[PublishedRun, ...] = (
    PublishedRun(
        name="GPT-3",
        n_params=175e9,
        device="V100",
        n_devices=None,
        peak_flops_per_device=125e12,
        tokens_per_second_per_device=24.6e12 / (6 * 175e9),
        throughput_as_published="24.6 TFLOP/s of non-attention model FLOPs per GPU (6N per token)",
        n_layers=96,
        n_heads=96,
        head_dim=128,
        seq_len=2048,
        reported_mfu=0.213,
        sources={
            "throughput_as_published": PALM_TABLE_3 + " (citing Patterson et al. 2021 for OpenAI's figure)",
            "reported_mfu": PALM_TABLE_3,
            "n_params": GPT3,
            "shape": GPT3 + " (96 layers, 96 heads of size 128, context 2,048)",
            "peak_flops_per_device": V100_PEAK,
        },
        notes=(
            "Not reproduced. PaLM gives only the per-GPU rate and the chip type (no count). 24.6 TFLOP/s of "
            "6N FLOPs on a V100 (125 TFLOP/s fp16 tensor peak, NVIDIA's figure for the SXM2 module) is 19.7%, "
            "and 20.2% with the attention term; PaLM prints 21.3% and does not say which peak it divided by. "
            "A peak of about 118.7 TFLOP/s would give 21.3%, which is not a peak NVIDIA quotes for the V100. "
            "The V100 is not in scalinglib.hardware.CATALOG, so its peak is kept here."
        ),
    ),
    PublishedRun(
        name="Gopher",
        n_params=280e9,
        device="TPU v3",
        n_devices=4096,
        peak_flops_per_device=123e12,
        tokens_per_second_per_device=_gopher_tokens_per_second_per_chip(),
        throughput_as_published="0.0152 steps/s on 4,096 chips; batches of 3,072 x 2,048 tokens (our assumption)",
        n_layers=80,
        n_heads=128,
        head_dim=128,
        seq_len=2048,
        reported_mfu=0.325,
        sources={
            "throughput_as_published": PALM_TABLE_3 + " (0.0152 steps/s, from the Gopher authors); "
            + GOPHER + " (batch size raised from 3M to 6M tokens)",
            "reported_mfu": PALM_TABLE_3,
            "n_devices": PALM_TABLE_3,
            "shape": GOPHER + " (80 layers, 128 heads, key/value size 128, context 2,048)",
            "peak_flops_per_device": TPU_V3,
        },
        notes=(
            "PaLM does not state the batch behind 0.0152 steps/s. Gopher's table 1 gives a batch raised from "
            "3M to 6M tokens. The batch used here, 3,072 sequences of 2,048 tokens (6.29M), is an assumption, "
            "chosen because it reproduces 32.5% (with the attention term); a literal 6.0e6 tokens gives 31.0% "
            "and 3M tokens about 16%. The shape is that of Gopher's table 1. The TPU v3 peak is not in "
            "scalinglib.hardware.CATALOG."
        ),
    ),
    PublishedRun(
        name="Megatron-Turing NLG",
        n_params=530e9,
        device="A100 SXM 80GB",
        n_devices=2240,
        peak_flops_per_device=get_accelerator("A100 SXM 80GB").peak("bf16"),
        tokens_per_second_per_device=1920 * 2048 / 60.1 / 2240,
        throughput_as_published="65.43K tokens/s: batches of 1,920 x 2,048 tokens every 60.1 s on 2,240 GPUs",
        n_layers=105,
        n_heads=128,
        head_dim=160,
        seq_len=2048,
        reported_mfu=0.302,
        reported_mfu_without_attention=0.297,
        sources={
            "throughput_as_published": PALM_APPENDIX_B,
            "reported_mfu": PALM_TABLE_3 + "; " + PALM_APPENDIX_B,
            "n_devices": PALM_APPENDIX_B,
            "shape": MEGATRON_TABLE_1 + " (the 529.6B row: 105 layers, hidden 20,480, 128 heads)",
            "peak_flops_per_device": "scalinglib.hardware.CATALOG['A100 SXM 80GB'] (312 TFLOP/s, as PaLM uses)",
        },
        notes=(
            "PaLM computes with N = 530e9 and prints 29.7% without and 30.2% with attention; the recomputation "
            "gives 29.77% and 30.26%, so the printed figures are truncated to one decimal rather than rounded. "
            "The shape is that of the 529.6B model of Megatron-LM's table 1, which is the MT-NLG architecture."
        ),
    ),
    PublishedRun(
        name="PaLM",
        n_params=540e9,
        device="TPU v4",
        n_devices=6144,
        peak_flops_per_device=get_accelerator("TPU v4").peak("bf16"),
        tokens_per_second_per_device=238.3e3 / 6144,
        throughput_as_published="238.3K tokens/s on 6,144 chips (batch 2,048 x 2,048 tokens)",
        n_layers=118,
        n_heads=48,
        head_dim=256,
        seq_len=2048,
        reported_mfu=0.462,
        reported_mfu_without_attention=0.457,
        reported_hfu=0.578,
        sources={
            "throughput_as_published": PALM_TABLE_3 + "; " + PALM_APPENDIX_B,
            "reported_mfu": PALM_TABLE_3 + "; " + PALM_APPENDIX_B,
            "reported_hfu": PALM_SECTION_4_1,
            "n_devices": PALM_APPENDIX_B,
            "shape": PALM_TABLE_1 + " (118 layers, 48 heads of size 256, d_model 18,432)",
            "peak_flops_per_device": "scalinglib.hardware.CATALOG['TPU v4'] (275 TFLOP/s, as PaLM uses)",
        },
        notes=(
            "PaLM computes with N = 540e9 (table 1 gives 540.35e9). The caption of table 1 states that the "
            "attention head size is always 256 (so 48 x 256 = 12,288, not d_model = 18,432; PaLM uses "
            "multi-query attention); with it the printed 46.2% reproduces. The hardware FLOPs utilization "
            "including rematerialization is 57.8% (section 4.1)."
        ),
    ),
)


@dataclass(frozen=True)
class MegatronRow:
    """One row of table 1 of Narayanan et al. (2021), as printed."""

    params_billion: float
    attention_heads: int
    hidden: int
    layers: int
    tensor_parallel: int
    pipeline_parallel: int
    n_gpus: int
    batch: int  #: global batch in sequences of 2,048 tokens
    tflops_per_gpu: float  #: achieved teraFLOP/s per GPU, counting recomputation
    percent_of_peak: float  #: of the A100's 312 teraFLOP/s
    aggregate_pflops: float

    def __post_init__(self) -> None:
        for name in ("params_billion", "tflops_per_gpu", "aggregate_pflops"):
            single(check_positive, name, getattr(self, name))
        for name in ("attention_heads", "hidden", "layers", "tensor_parallel", "pipeline_parallel", "n_gpus",
                     "batch"):   # kept as Python ints: numpy's small integer types would overflow in products
            object.__setattr__(self, name, single_whole(name, getattr(self, name)))
        if single(check_positive, "percent_of_peak", self.percent_of_peak) > 100:
            raise ValueError(f"percent_of_peak must be at most 100; got {self.percent_of_peak!r}")
        if self.n_gpus % (self.tensor_parallel * self.pipeline_parallel):
            raise ValueError(f"n_gpus must be a multiple of tensor_parallel x pipeline_parallel; got {self.n_gpus} "
                             f"with {self.tensor_parallel} x {self.pipeline_parallel}")
        if self.hidden % self.attention_heads:
            raise ValueError(f"hidden must be a multiple of attention_heads; got {self.hidden} and "
                             f"{self.attention_heads}")

    @property
    def data_parallel(self) -> int:
        """Data-parallel degree n / (t p)."""
        return self.n_gpus // (self.tensor_parallel * self.pipeline_parallel)

    def tokens_per_second_per_gpu(self) -> float:
        """The achieved rate divided by the paper's FLOPs per token with recomputation."""
        return self.tflops_per_gpu * 1e12 / megatron_flops_per_token(self.layers, self.hidden)

    def mfu(self, peak_flops=312e12) -> float:
        """The row's model FLOPs utilization in PaLM's definition (no recomputation; attention included)."""
        n = megatron_param_count(self.layers, self.hidden)
        per_token = flops_per_token(n, self.layers, self.attention_heads, self.hidden // self.attention_heads,
                                    MEGATRON_SEQ_LEN)
        return mfu(self.tokens_per_second_per_gpu(), per_token, 1, peak_flops)


_MEGATRON_ROWS = (
    (1.7, 24, 2304, 24, 1, 1, 32, 512, 137, 44, 4.4),
    (3.6, 32, 3072, 30, 2, 1, 64, 512, 138, 44, 8.8),
    (7.5, 32, 4096, 36, 4, 1, 128, 512, 142, 46, 18.2),
    (18.4, 48, 6144, 40, 8, 1, 256, 1024, 135, 43, 34.6),
    (39.1, 64, 8192, 48, 8, 2, 512, 1536, 138, 44, 70.8),
    (76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140, 45, 143.8),
    (145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148, 47, 227.1),
    (310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155, 50, 297.4),
    (529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163, 52, 410.2),
    (1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163, 52, 502.0),
)

#: Table 1 of Narayanan et al. (2021): weak-scaling throughput on A100 GPUs (source: ``MEGATRON_TABLE_1``).
MEGATRON_WEAK_SCALING: tuple[MegatronRow, ...] = tuple(MegatronRow(*row) for row in _MEGATRON_ROWS)

#: The two training-time estimates of Narayanan et al. (2021), section 5.1: parameters P, tokens T,
#: GPUs n, achieved FLOP/s per GPU X (counting recomputation) and the days the paper prints.
#: The 1T estimate uses the 1,008.0-billion-parameter model of table 1 (with P = 1e12 exactly the
#: formula gives 83.2 days, not 84).
MEGATRON_TRAINING_TIMES: tuple[dict, ...] = (
    {"model": "GPT-3 175B", "n_params": 175e9, "tokens": 300e9, "n_gpus": 1024, "flops_per_gpu": 140e12,
     "batch": 1536, "days": 34, "source": MEGATRON_SECTION_5_1},
    {"model": "1T (table 1)", "n_params": 1008.0e9, "tokens": 450e9, "n_gpus": 3072, "flops_per_gpu": 163e12,
     "batch": 3072, "days": 84, "source": MEGATRON_SECTION_5_1},
)


@public
def megatron_param_count(layers, hidden, vocab_size=MEGATRON_VOCAB, seq_len=MEGATRON_SEQ_LEN):
    r"""Parameters of a GPT model as Megatron-LM counts them (its equation 2).

    .. math:: P = 12 l h^2 \left(1 + \frac{13}{12h} + \frac{V + s}{12 l h}\right)

    (weights and biases of every layer, and the token and position embeddings).

    Parameters
    ----------
    layers : int or array_like
        Transformer layers l, whole >= 1.
    hidden : int or array_like
        Hidden size h, whole >= 1.
    vocab_size, seq_len : int, optional
        V and s (default 51,200 and 2,048, the values of table 1).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(megatron_param_count(96, 12288) / 1e9, 1)    # GPT-3's shape
    174.6
    """
    lay = check_whole("layers", layers)
    h = check_whole("hidden", hidden)
    v = check_whole("vocab_size", vocab_size)
    s = check_whole("seq_len", seq_len)
    lb, hb, vb, sb = check_broadcast(layers=lay, hidden=h, vocab_size=v, seq_len=s)
    count = 12.0 * lb * hb**2 * (1.0 + 13.0 / (12.0 * hb) + (vb + sb) / (12.0 * lb * hb))
    return scalar_or_array(count, lay, h, v, s)


@public
def megatron_flops_per_token(layers, hidden, vocab_size=MEGATRON_VOCAB, seq_len=MEGATRON_SEQ_LEN,
                             recompute=True):
    r"""FLOPs per token of Megatron-LM's count (its equation 3 divided by the B s tokens of an iteration).

    .. math:: \frac{F}{B s} = 96\, l h^2 \left(1 + \frac{s}{6h} + \frac{V}{16 l h}\right)

    with activation recomputation (a second forward pass through every layer,
    which the logit layer does not need). Without recomputation the layers
    cost 72 instead of 96: :math:`72 l h^2 (1 + s/(6h)) + 6 h V`.

    Parameters
    ----------
    layers, hidden : int or array_like
        l and h, whole >= 1.
    vocab_size, seq_len : int, optional
        V and s.
    recompute : bool, optional
        Count the recomputed forward pass (default True, as the paper's
        throughputs do).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(megatron_flops_per_token(128, 25600) / 1e12, 3)   # the 1T model, with recomputation
    8.168
    """
    check_flag("recompute", recompute)
    lay = check_whole("layers", layers)
    h = check_whole("hidden", hidden)
    v = check_whole("vocab_size", vocab_size)
    s = check_whole("seq_len", seq_len)
    lb, hb, vb, sb = check_broadcast(layers=lay, hidden=h, vocab_size=v, seq_len=s)
    per_layer = 96.0 if recompute else 72.0
    value = per_layer * lb * hb**2 * (1.0 + sb / (6.0 * hb)) + 6.0 * hb * vb
    return scalar_or_array(value, lay, h, v, s)


@public
def mfu_table(runs=MFU_RUNS) -> list[dict]:
    """One row per published run: what the paper printed and what the library recomputes.

    Each row has ``name``, ``n_params``, ``device``, ``n_devices``,
    ``tokens_per_second_per_device``, ``reported_mfu``, ``recomputed_mfu``
    (with attention), ``recomputed_mfu_without_attention`` and
    ``reported_mfu_without_attention`` (None where not printed).

    Examples
    --------
    >>> [round(row["recomputed_mfu"], 3) for row in mfu_table()]
    [0.202, 0.325, 0.303, 0.462]
    """
    if isinstance(runs, PublishedRun):
        runs = [runs]
    if not isinstance(runs, (list, tuple)) or not all(isinstance(run, PublishedRun) for run in runs):
        raise TypeError(f"runs must be a list of PublishedRun records; got {_describe(runs)}")
    rows = []
    for run in runs:
        rows.append(
            {
                "name": run.name,
                "n_params": run.n_params,
                "device": run.device,
                "n_devices": run.n_devices,
                "tokens_per_second_per_device": run.tokens_per_second_per_device,
                "reported_mfu": run.reported_mfu,
                "recomputed_mfu": run.recomputed_mfu(attention=True),
                "reported_mfu_without_attention": run.reported_mfu_without_attention,
                "recomputed_mfu_without_attention": run.recomputed_mfu(attention=False),
            }
        )
    return rows
