r"""The roofline model: how fast a kernel can run on a device (Section 3.7).

Three modules:

* :mod:`scalinglib.roofline.model`: the roof itself, :math:`\min(P, B I)`, its ridge
  point and regimes, bytes per number at each precision, a CPU socket's datasheet
  roof and how the roofs of server hardware grew (Sections 3.7.1 and 3.7.6).
* :mod:`scalinglib.roofline.kernels`: the intensity of element-wise kernels and of
  matrix multiplies, operand by operand (Section 3.7.2).
* :mod:`scalinglib.roofline.decode`: decoding a language model on the roof: its
  intensity, step time and tokens per second against the batch, and the key-value
  cache's limits (Section 3.7.3).

Everything public is importable from here (``scalinglib.roofline.ridge_point``) and from
``scalinglib``. Device numbers come from :mod:`scalinglib.hardware`::

    h100 = get_accelerator("H100")
    attainable_flops(gemm_intensity(4096, 4096, 4096), h100.peak("bf16"), h100.memory_bandwidth)
"""

from .decode import (
    decode_intensity,
    decode_intensity_limit,
    decode_ridge_batch,
    decode_step_time,
    decode_time_terms,
    decode_tokens_per_second,
    kv_cache_batch_limit,
)
from .kernels import elementwise_intensity, gemm_bytes, gemm_flops, gemm_intensity
from .model import (
    BYTES_PER_ELEMENT,
    CPU_SOCKET_EXAMPLE,
    GROWTH_PER_TWO_YEARS,
    arithmetic_intensity,
    attainable_flops,
    cpu_socket_roof,
    precision_bytes,
    ridge_point,
    roofline_regime,
    roofline_time,
)

__all__ = [
    "BYTES_PER_ELEMENT",
    "precision_bytes",
    "attainable_flops",
    "ridge_point",
    "arithmetic_intensity",
    "roofline_time",
    "roofline_regime",
    "elementwise_intensity",
    "gemm_flops",
    "gemm_bytes",
    "gemm_intensity",
    "decode_intensity",
    "decode_time_terms",
    "decode_step_time",
    "decode_tokens_per_second",
    "decode_ridge_batch",
    "decode_intensity_limit",
    "kv_cache_batch_limit",
    "CPU_SOCKET_EXAMPLE",
    "cpu_socket_roof",
    "GROWTH_PER_TWO_YEARS",
]
