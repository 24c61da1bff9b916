"""Bundled real trial-level data: humans and DNNs classifying the same images, and small samples.

The tables are copied unchanged from ``shared/data`` of the project, which collected
them from public repositories (model-vs-human, Geirhos et al. 2021; texture-vs-shape,
Geirhos et al. 2019). ``DATA_README.md`` next to this file gives the sources, versions,
licences, attribution and caveats; cite the papers named there when you use the data.
Loading needs no network. The loaders live in ``loaders``.

Every row of the two tables is one trial with columns ``source, experiment, condition, subject,
observer_type, session, trial, image, category, response, rt``; ``category`` is the
true class and a trial is correct when ``response == category`` (human non-responses
are ``"na"``, incorrect).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
    from trialwise.datasets.loaders import model_vs_human, model_vs_human_sample, texture_vs_shape, llm_demo, synthetic_2afc_sample, synthetic_ost_sample, data_readme

__all__ = [
    "model_vs_human", "model_vs_human_sample", "texture_vs_shape", "llm_demo", "synthetic_2afc_sample",
    "synthetic_ost_sample", "data_readme",
]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise.datasets.loaders": ("model_vs_human", "model_vs_human_sample", "texture_vs_shape", "llm_demo", "synthetic_2afc_sample", "synthetic_ost_sample", "data_readme",),
})
