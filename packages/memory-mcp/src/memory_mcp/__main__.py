"""`python -m memory_mcp [--http HOST:PORT]`: the same as the `memory-mcp` console script."""

from __future__ import annotations

import sys

from memory_mcp.cli import main

if __name__ == "__main__":
    sys.exit(main())
