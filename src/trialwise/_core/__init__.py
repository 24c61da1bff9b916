"""trialwise's internal core: what every module of the library shares (not public API).

Every other module of trialwise imports from here, and only these public names (no name
with a leading underscore is imported across modules; ``tests/contracts/test_architecture.py``
checks it). The core imports nothing else from trialwise, so it can never be part of an
import cycle.

:mod:`trialwise._core.errors`
    ``InputError``, ``InvalidValueError``, ``InvalidTypeError`` (exported as ``tw.InputError`` ...).
:mod:`trialwise._core.warnings`
    ``TrialwiseWarning`` and its subclasses (exported as ``tw.DegenerateDataWarning`` ...),
    ``warn``.
:mod:`trialwise._core.validation`
    The argument checks (``check_choice``, ``check_confidence_level``, ``check_positive_int``,
    ``check_rng``, ``check_counts``, ...), ``show`` (a value shortened for a message),
    ``as_float_array``, ``missing_mask``.
:mod:`trialwise._core.results`
    ``Result`` (the base of every result object), ``ConfidenceInterval``, ``Note``,
    ``VOCABULARY``, ``jsonable``, ``make_notes``.
:mod:`trialwise._core.shown`
    ``shown`` (a result's dataclass field with how its repr and ``summary()`` show it) and
    the functions with which ``Result`` derives that text from the fields' metadata.
:mod:`trialwise._core.format`
    ``format_number``, ``format_pvalue``, ``format_percent``.
:mod:`trialwise._core.lazy`
    ``lazy_package`` (the PEP 562 ``__getattr__``/``__dir__`` with which ``trialwise`` and its
    packages load each public name on first use).
:mod:`trialwise._core.threads`
    ``map_threads`` (the one thread pool: every parallel loop of the library runs through it),
    ``thread_budget``, ``one_blas_thread``.
"""
