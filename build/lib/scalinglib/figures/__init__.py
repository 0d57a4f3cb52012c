"""Drawing functions behind the book's figures and sliders, one module per section.

Each function draws on a figure it is given (``draw(fig, **values)``, the form
:func:`scalinglib.widgets.slider_figure` expects) and returns the axes, so a
test can read back exactly what was plotted.
"""

from . import s3_1, s3_2, s3_3, s3_4, s3_5, s3_6, s3_7, s3_8, s3_9  # noqa: F401

__all__ = ["s3_1", "s3_2", "s3_3", "s3_4", "s3_5", "s3_6", "s3_7", "s3_8", "s3_9"]
