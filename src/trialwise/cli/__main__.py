"""``python -m trialwise.cli``: the ``trialwise`` program."""

import sys

from trialwise.cli import main

sys.exit(main())
