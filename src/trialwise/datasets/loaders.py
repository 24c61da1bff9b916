"""The loaders of the bundled data (public names in :mod:`trialwise.datasets`, whose docstring describes the data)."""

from __future__ import annotations

import functools
from importlib import resources

from trialwise._core.errors import InvalidValueError

__all__ = ["model_vs_human", "model_vs_human_sample", "texture_vs_shape", "llm_demo", "synthetic_2afc_sample", "synthetic_ost_sample",
           "data_readme"]

_TEXT_COLUMNS = {
    "source": str, "experiment": str, "condition": str, "subject": str, "observer_type": str,
    "image": str, "category": str, "response": str,
}


@functools.lru_cache(maxsize=None)
def _read(filename: str):
    """The bundled table, parsed once per process (callers get copies)."""
    import pandas as pd

    with resources.files("trialwise.datasets").joinpath(filename).open("rb") as fh:
        return pd.read_csv(fh, compression="gzip", dtype=_TEXT_COLUMNS, keep_default_na=False,
                           na_values={"rt": [""]})


def _load(filename: str, experiment: str | None):
    frame = _read(filename).copy()  # a fresh table on every call: changing it changes nothing here
    if experiment is not None:
        known = sorted(frame["experiment"].unique())
        if experiment not in known:
            raise InvalidValueError(f"`experiment` must be one of {known}; got {experiment!r}")
        frame = frame[frame["experiment"] == experiment].reset_index(drop=True)
    return frame


def model_vs_human(experiment: str | None = None):
    """Trials of the model-vs-human benchmark: 17 datasets, all humans, 26 models.

    Parameters
    ----------
    experiment : str, optional
        Keep only this experiment (e.g. ``"cue-conflict"``).

    Returns
    -------
    pandas.DataFrame
        One row per trial (471,200 rows in all). ``condition`` is text (``"0.10"`` and
        ``"0.1"`` are different conditions); ``response`` ``"na"`` is a non-response.

    Examples
    --------
    >>> from trialwise import datasets
    >>> trials = datasets.model_vs_human("cue-conflict")
    >>> trials.groupby("observer_type").subject.nunique().to_dict()
    {'human': 10, 'model': 26}
    """
    return _load("model-vs-human.csv.gz", experiment)


#: The observers and experiments of :func:`model_vs_human_sample`.
SAMPLE_OBSERVERS = ("resnet50", "clip-16", "cornet-s", "subject-01", "subject-02", "subject-03", "subject-04")
SAMPLE_EXPERIMENTS = ("colour", "contrast")


def model_vs_human_sample():
    """A small slice of :func:`model_vs_human` for examples that must run in a second.

    Three models (ResNet-50, CLIP, CORnet-S) and four humans on the ``colour`` and
    ``contrast`` experiments, unchanged (:data:`SAMPLE_OBSERVERS`, :data:`SAMPLE_EXPERIMENTS`).
    Score it with the model-vs-human protocol restricted to those experiments:
    ``tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])``.

    Returns
    -------
    pandas.DataFrame
        One row per trial, the columns of :func:`model_vs_human`.

    Examples
    --------
    >>> from trialwise import datasets
    >>> trials = datasets.model_vs_human_sample()
    >>> trials.groupby("observer_type").subject.nunique().to_dict(), sorted(trials.experiment.unique())
    ({'human': 4, 'model': 3}, ['colour', 'contrast'])
    """
    frame = _read("model-vs-human.csv.gz")
    keep = frame["experiment"].isin(SAMPLE_EXPERIMENTS) & frame["subject"].isin(SAMPLE_OBSERVERS)
    return frame[keep].reset_index(drop=True)


def texture_vs_shape(experiment: str | None = None):
    """Trials of Geirhos et al. (ICLR 2019): 9 experiments, 97 humans, 8 models.

    See :func:`model_vs_human` for the columns. In ``texture-filled-rotated`` each
    human saw a different 160 of the 1280 images.

    Parameters
    ----------
    experiment : str, optional
        Keep only this experiment (e.g. ``"cue-conflict"``).

    Returns
    -------
    pandas.DataFrame
        One row per trial.

    References
    ----------
    Geirhos, R., Rubisch, P., Michaelis, C., Bethge, M., Wichmann, F. A. & Brendel, W.
    (2019). ImageNet-trained CNNs are biased towards texture; increasing shape bias
    improves accuracy and robustness. ICLR. Data: github.com/rgeirhos/texture-vs-shape.

    Examples
    --------
    >>> from trialwise import datasets
    >>> trials = datasets.texture_vs_shape("cue-conflict")
    >>> len(trials), trials.groupby("observer_type").subject.nunique().to_dict()
    (23040, {'human': 10, 'model': 8})
    """
    return _load("texture-vs-shape.csv.gz", experiment)


def llm_demo():
    """Simulated lm-evaluation-harness logs: 4 language models, 2 tasks of 200 four-option questions.

    Not real data: written by ``benchmarks/data/make_llm_demo.py`` (seed 20261123) in exactly the
    format of lm-evaluation-harness 0.4.x ``--log_samples`` (gzip-compressed), and read here
    with :func:`trialwise.io.read_lm_eval` (``clusters="subject"``). The tasks ``demo_stem`` and
    ``demo_humanities`` (group ``demo_mmlu``) have 8 subjects of 25 questions each; the
    questions of one subject are correlated, and ``demo-7b`` and ``demo-7b-chat`` share
    question-level noise (one family), so they fail together more often than their
    accuracies imply.

    Returns
    -------
    pandas.DataFrame
        1,600 trials, the columns of :func:`trialwise.io.read_lm_eval` with ``cluster`` = the
        question's subject.

    Examples
    --------
    >>> from trialwise import datasets
    >>> trials = datasets.llm_demo()
    >>> trials.groupby("subject").correct.mean().to_dict()
    {'sim/demo-13b': 0.745, 'sim/demo-1b': 0.46, 'sim/demo-7b': 0.635, 'sim/demo-7b-chat': 0.64}
    """
    from trialwise.io.logs.lm_eval import read_lm_eval

    with resources.as_file(resources.files("trialwise.datasets").joinpath("llm-demo")) as folder:
        return read_lm_eval(folder, clusters="subject")


def synthetic_2afc_sample():
    """Simulated 2AFC object-recognition data for I1n/I2n: human trials and three models' probabilities.

    Not real data (no Rajalingham et al. 2018 data can be downloaded here): written by
    ``benchmarks/data/make_2afc_sample.py`` with :func:`trialwise.brainscore.synthetic_i2n`, 8 objects
    × 10 images, 60 trials per image from 20 simulated subjects (seed 20261123), and three
    models whose per-image pattern has similarity 0.2, 0.5 and 0.8 to the humans'.

    Returns
    -------
    models : dict of str to pandas.DataFrame
        ``"model-0.2"``, ``"model-0.5"``, ``"model-0.8"``: class probabilities indexed by
        image, one column per object (the ``model_probabilities`` of
        :func:`trialwise.brainscore.image_level`).
    trials : pandas.DataFrame
        4,800 human trials: ``subject, image, truth, distractor, response``.

    References
    ----------
    Rajalingham, R., Issa, E. B., Bashivan, P., Kar, K., Schmidt, K. & DiCarlo, J. J. (2018).
    Large-scale, high-resolution comparison of the core visual object recognition behavior of
    humans, monkeys, and state-of-the-art deep artificial neural networks. *Journal of
    Neuroscience* 38(33), 7255–7269.

    Examples
    --------
    >>> from trialwise import datasets
    >>> models, trials = datasets.synthetic_2afc_sample()
    >>> sorted(models), models["model-0.8"].shape, len(trials)
    (['model-0.2', 'model-0.5', 'model-0.8'], (80, 8), 4800)
    """
    import pandas as pd

    folder = resources.files("trialwise.datasets").joinpath("2afc-sample")
    with folder.joinpath("models.csv.gz").open("rb") as fh:
        frame = pd.read_csv(fh, compression="gzip")
    with folder.joinpath("trials.csv.gz").open("rb") as fh:
        trials = pd.read_csv(fh, compression="gzip")
    models = {str(name): g.drop(columns="model").set_index("image").rename_axis(None)
              for name, g in frame.groupby("model", sort=True)}
    return models, trials


def synthetic_ost_sample():
    """Simulated object solution times (OSTs) for the OST benchmark: the target's and three models'.

    Not real data (no Kar et al. 2019 data can be downloaded here): written by
    ``benchmarks/data/make_ost_sample.py``, 200 images of difficulty ``d``; the target's OST of an
    image in each of 8 repeated measurements is ``150 + 20 d + N(0, 25²)`` ms; three models of
    similarity 0.3, 0.6 and 0.9 to ``d``, each never solving (NaN) 3 % of the images (seed
    20261124).

    Returns
    -------
    models : pandas.DataFrame
        600 rows ``candidate, image, ost`` (``model-0.3``, ``model-0.6``, ``model-0.9``).
    humans : pandas.DataFrame
        1,600 rows ``image, ost``: one per image and measurement.

    References
    ----------
    Kar, K., Kubilius, J., Schmidt, K., Issa, E. B. & DiCarlo, J. J. (2019). Evidence that
    recurrent circuits are critical to the ventral stream's execution of core object
    recognition behavior. *Nature Neuroscience* 22, 974–983.

    Examples
    --------
    >>> from trialwise import datasets
    >>> models, humans = datasets.synthetic_ost_sample()
    >>> sorted(models.candidate.unique()), len(humans), humans.image.nunique()
    (['model-0.3', 'model-0.6', 'model-0.9'], 1600, 200)
    """
    import pandas as pd

    folder = resources.files("trialwise.datasets").joinpath("ost-sample")
    with folder.joinpath("models.csv.gz").open("rb") as fh:
        models = pd.read_csv(fh, compression="gzip")
    with folder.joinpath("humans.csv.gz").open("rb") as fh:
        humans = pd.read_csv(fh, compression="gzip")
    return models, humans


def data_readme() -> str:
    """The data's README: sources, licences, attribution, caveats, benchmark protocol.

    Returns
    -------
    str
        The Markdown text of ``DATA_README.md``.

    Examples
    --------
    >>> from trialwise import datasets
    >>> print(datasets.data_readme().splitlines()[0])
    # Trial-by-trial object-recognition data: humans and DNNs on the same images
    """
    return resources.files("trialwise.datasets").joinpath("DATA_README.md").read_text(encoding="utf-8")
