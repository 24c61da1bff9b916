"""Cue-conflict experiments: shape bias (Geirhos et al. 2019), with intervals and a test between observers.

:func:`trialwise.shape_bias` is at the top of the package; here are its result classes. Modules:
``shape_bias`` (reading cue-conflict trials, the statistic and its bootstrap over images) and
``results`` (the result classes, and the difference of two rows from the joint replicates).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
    from trialwise.cue_conflict.results import ShapeBiasResult, ShapeBiasDifferenceResult

__all__ = [
    "ShapeBiasResult", "ShapeBiasDifferenceResult",
]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise.cue_conflict.results": ("ShapeBiasResult", "ShapeBiasDifferenceResult"),
})
