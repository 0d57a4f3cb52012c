"""Shared test settings.

Hypothesis profiles (pick one with HYPOTHESIS_PROFILE; HYPOTHESIS_MAX_EXAMPLES overrides the count):

- ``ci`` (the default, and what ``make test`` and CI use): 50 examples a property, each test's
  examples chosen afresh every run, so successive runs cover different inputs;
- ``thorough``: 200 examples a property, for a change to a model or to validation
  (``make unit HYPOTHESIS_PROFILE=thorough``);
- ``book``: the old name of ``thorough``.
"""

import os

import matplotlib
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
_OVERRIDE = os.environ.get("HYPOTHESIS_MAX_EXAMPLES")

settings.register_profile("ci", max_examples=int(_OVERRIDE or 50), **_COMMON)
settings.register_profile("thorough", max_examples=int(_OVERRIDE or 200), **_COMMON)
settings.register_profile("book", max_examples=int(_OVERRIDE or 200), **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
