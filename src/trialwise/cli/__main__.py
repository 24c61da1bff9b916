"""``python -m trialwise.cli``: the ``trialwise`` program."""

import sys

from trialwise.cli.app import main

sys.exit(main())
