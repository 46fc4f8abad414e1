"""`python -m memory_core.cli`: the same as the `memory` command."""

import sys

from memory_core.cli import main

sys.exit(main())
