import os

from hypothesis import settings

os.environ.setdefault("MPLBACKEND", "Agg")

# No property test has a time limit: hypothesis's default deadline (200 ms per example) is a timed
# test, which fails on a loaded machine (the suite runs on every core, beside other jobs), not on
# a wrong number. Speed is measured by the scripts in benchmarks/, never asserted by tests.
settings.register_profile("trialwise", deadline=None)
settings.load_profile("trialwise")

# The Ctrl-C tests send SIGINT to a command they start. A suite started in the background by a
# shell without job control (`python -m pytest &`, a CI runner's script) inherits SIGINT *ignored*,
# and so would every command it starts: Ctrl-C would never reach them, and those tests would fail for
# how the suite was launched, not for what the command line does. The suite's processes (and, since
# a handler becomes the default action across exec, the commands they start) take SIGINT as Python
# does by default.
import signal  # noqa: E402

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
