"""Input checks shared by every public function, and the wrapper every public function goes through (every section).

Three modules:

* :mod:`scalinglib._validate.values`: numbers and arrays of numbers, each
  turned into floats and checked against its range (positive, a fraction, a
  whole number, a size with a cap), long arrays in cache-sized chunks.
* :mod:`scalinglib._validate.arguments`: everything else an argument can be
  (a flag, a choice, text, a figure, keyword arguments), and arguments taken
  together: shapes that broadcast, one number where one is wanted.
* :mod:`scalinglib._validate.results`: :func:`public`, the wrapper of every
  public function that checks its result, and :func:`checked_record`, which
  checks the fields of a returned record.

Every checker refuses what the model cannot take with an error that names the
parameter, the offending value and the allowed range. The library imports them
from here (``from ._validate import check_positive``).
"""

from .arguments import (
    MAX_DPI,
    MAX_FIGURE_INCHES,
    MAX_SIDE_PIXELS,
    as_count,
    check_1d,
    check_axes,
    check_broadcast,
    check_choice,
    check_figure,
    check_flag,
    check_format,
    check_frame,
    check_kwargs,
    check_same_length,
    check_scalar,
    check_shapes,
    check_text,
    renamed,
    scalar_or_array,
    single,
    single_whole,
)
from .results import checked_record, least_squares, public
from .values import _CHUNK as _CHUNK
from .values import CHUNKED_MIN as CHUNKED_MIN
from .values import (
    MAX_COUNT,
    as_float_array,
    check_at_least,
    check_fraction,
    check_nonnegative,
    check_positive,
    check_size,
    check_whole,
    checked_in_chunks,
    chunkable,
)
from .values import _describe as _describe

__all__ = [
    "as_float_array",
    "check_positive",
    "check_nonnegative",
    "check_fraction",
    "check_whole",
    "checked_in_chunks",
    "chunkable",
    "check_at_least",
    "check_flag",
    "check_choice",
    "check_text",
    "check_format",
    "check_size",
    "check_1d",
    "check_same_length",
    "scalar_or_array",
    "check_broadcast",
    "check_shapes",
    "check_scalar",
    "single",
    "single_whole",
    "as_count",
    "public",
    "checked_record",
    "renamed",
    "check_axes",
    "check_figure",
    "check_frame",
    "check_kwargs",
    "least_squares",
    "MAX_FIGURE_INCHES",
    "MAX_DPI",
    "MAX_SIDE_PIXELS",
    "MAX_COUNT",
]
