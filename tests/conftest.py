import os

from hypothesis import settings

os.environ.setdefault("MPLBACKEND", "Agg")

# No property test has a time limit: hypothesis's default deadline (200 ms per example) is a timed
# test, which fails on a loaded machine (the suite runs on every core, beside other jobs), not on
# a wrong number. Speed is measured by the scripts in benchmarks/, never asserted by tests.
settings.register_profile("trialwise", deadline=None)
settings.load_profile("trialwise")
