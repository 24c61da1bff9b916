"""The version of trialwise, ``trialwise.__version__`` (keep it equal to ``version`` in pyproject.toml).

It lives in the core, not in ``trialwise/__init__.py``, so that a module that prints it
(the HTML report) need not import the whole package, which imports that module.
"""

VERSION = "0.1.0"
