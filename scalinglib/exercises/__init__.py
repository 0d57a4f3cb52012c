"""Exercise checks for every section, importable as ``from scalinglib.exercises import check``.

Each section registers its parts in a module of its own (``s3_1``, ``s3_3``, ...);
the expected answers are computed by the library when a check runs.
"""

from . import s3_1, s3_2, s3_3, s3_4, s3_5, s3_6, s3_7, s3_8, s3_9  # noqa: F401  (importing registers the parts)
from .core import Feedback, Part, check, expected_answer, register, registered_keys  # noqa: I001

__all__ = ["check", "Feedback", "Part", "register", "expected_answer", "registered_keys"]
