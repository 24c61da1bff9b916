"""Brain-Score's data as trials: a ``BehavioralAssembly``-like xarray object → a trials table.

Duck-typed, so xarray is needed only to make the assembly (``pip install
trialwise[xarray]``). The Brain-Score metric built on it is
:class:`trialwise.brainscore.ErrorConsistency`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise.io.trials import read_trials

__all__ = ["coordinate_names", "coordinate_values", "trials_from_assembly"]


def coordinate_names(assembly: Any) -> list[str]:
    """The coordinate names of an xarray object, with the levels of its MultiIndexes.

    Brain-Score's assemblies (brainio ``DataAssembly``) stack the ``presentation``
    coordinates into a MultiIndex; xarray < 2022.6 (which brainscore-core pins) lists
    its levels under ``.coords`` no more, though ``assembly["stimulus_id"]`` still works."""
    names = [str(n) for n in assembly.coords]
    for n in list(assembly.coords):
        index = getattr(assembly.coords[n], "to_index", None)
        levels = getattr(index() if index is not None and n in assembly.dims else None, "names", None)
        if levels is not None and len(levels) > 1:
            names += [str(level) for level in levels if level is not None and str(level) not in names]
    return names


def coordinate_values(assembly: Any, names: tuple[str, ...]) -> NDArray | None:
    """The values of the first of ``names`` that is a coordinate (or a MultiIndex level) of ``assembly``."""
    present = coordinate_names(assembly)
    for n in names:
        if n in present:
            return np.asarray(assembly[n].values)
    return None


def trials_from_assembly(
    assembly: Any,
    *,
    experiment: str | None = None,
    subject: str | None = None,
    observer_type: str | None = None,
    stimuli: Any = None,
):
    """A trials table from a Brain-Score ``BehavioralAssembly``-like xarray object.

    Duck-typed: a 1-D array of responses (labels) along a ``presentation`` dimension
    with coordinates ``stimulus_id`` (or ``image_id``), ``truth`` and, optionally,
    ``condition``, ``subject`` and ``experiment``.

    Parameters
    ----------
    assembly : xarray.DataArray
        One response (label) per presentation, with its coordinates.
    experiment : str, optional
        Used when the assembly has no ``experiment`` coordinate (default ``"all"``).
    subject : str, optional
        Observer name when the assembly has no ``subject`` coordinate (a model's
        responses; default: the assembly's ``name``, else ``"model"``).
    observer_type : str, optional
        Default ``"human"`` when the assembly has a ``subject`` coordinate, else ``"model"``.
    stimuli : DataFrame, optional
        A trials table (e.g. the humans') giving each ``stimulus_id`` its condition and
        experiment when the assembly lacks those coordinates (a model's raw output);
        a stimulus it does not know is an error.

    Returns
    -------
    pandas.DataFrame
        As :func:`trialwise.read_trials`.

    Raises
    ------
    InvalidTypeError
        When ``assembly`` has no ``presentation`` dimension.
    InvalidValueError
        When it is not 1-D, lacks ``stimulus_id`` or ``truth``, or names a stimulus that
        ``stimuli`` does not know.

    References
    ----------
    Schrimpf, M., Kubilius, J., Hong, H., Majaj, N. J., Rajalingham, R., Issa, E. B., Kar,
    K., Bashivan, P., Prescott-Roy, J., Geiger, F., Schmidt, K., Yamins, D. L. K. &
    DiCarlo, J. J. (2018). Brain-Score: which artificial neural network for object
    recognition is most brain-like? *bioRxiv* 407007.

    Examples
    --------
    >>> import trialwise as tw, xarray as xr
    >>> t = tw.datasets.model_vs_human("cue-conflict")
    >>> h = t[t.observer_type == "human"]
    >>> coords = {name: ("presentation", h[col].to_numpy()) for name, col in
    ...           [("stimulus_id", "image"), ("truth", "category"), ("condition", "condition"), ("subject", "subject")]}
    >>> humans = xr.DataArray(h["response"].to_numpy(), dims=["presentation"], coords=coords)
    >>> trials = trials_from_assembly(humans)
    >>> trials.shape, trials["subject"].nunique(), trials["experiment"].iloc[0]
    ((12800, 8), 10, 'all')
    >>> m = t[t.subject == "resnet50"]
    >>> model = xr.DataArray(m["response"].to_numpy(), dims=["presentation"], name="resnet50",
    ...                      coords={"stimulus_id": ("presentation", m["image"].to_numpy()),
    ...                              "truth": ("presentation", m["category"].to_numpy())})
    >>> resnet = trials_from_assembly(model, stimuli=trials)
    >>> resnet["subject"].iloc[0], resnet["observer_type"].iloc[0], round(float(resnet["correct"].mean()), 3)
    ('resnet50', 'model', 0.182)
    """
    import pandas as pd

    dims = tuple(getattr(assembly, "dims", ()))
    if not hasattr(assembly, "coords") or "presentation" not in dims:
        raise InvalidTypeError(f"`assembly` must be an xarray object with a 'presentation' dimension; got "
                        f"{type(assembly).__name__} with dims {dims}")
    values = np.asarray(assembly.values)
    if values.ndim != 1:
        extra = [d for d in dims if d != "presentation"]
        raise InvalidValueError(f"`assembly` must hold one response per presentation (1-D); it also has dimension(s) "
                         f"{extra} (select a single choice, e.g. the argmax label)")
    stim = coordinate_values(assembly, ("stimulus_id", "image_id"))
    truth = coordinate_values(assembly, ("truth",))
    for name, arr in (("stimulus_id", stim), ("truth", truth)):
        if arr is None:
            raise InvalidValueError(f"`assembly` lacks coordinate {name!r}; coordinates found: "
                                   f"{sorted(coordinate_names(assembly))}")
    subj = coordinate_values(assembly, ("subject",))
    cond, exp = coordinate_values(assembly, ("condition",)), coordinate_values(assembly, ("experiment",))
    if stimuli is not None and (cond is None or exp is None):
        known = stimuli.drop_duplicates("image").set_index("image")
        ids = pd.Index(np.asarray(stim).astype(str))
        unknown = ids.difference(known.index)
        if len(unknown):
            raise InvalidValueError(f"`assembly`: {len(unknown)} stimulus_id(s) are not among the benchmark's stimuli "
                             f"(e.g. {unknown[0]!r})")
        cond = known.loc[ids, "condition"].to_numpy() if cond is None else cond
        exp = known.loc[ids, "experiment"].to_numpy() if exp is None else exp
    frame = pd.DataFrame({
        "subject": subj if subj is not None else (subject or getattr(assembly, "name", None) or "model"),
        "image": stim,
        "truth": truth,
        "response": values,
        "condition": cond if cond is not None else "0",
        "experiment": exp if exp is not None else (experiment or "all"),
        "observer_type": observer_type or ("human" if subj is not None else "model"),
    })
    return read_trials(frame, truth="truth", response="response")
