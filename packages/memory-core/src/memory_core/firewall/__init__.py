"""The secret firewall: deterministic rules (patterns and entropy, no model) that run before
anything is stored, indexed or logged.

`engine` applies the rules to a turn; `patterns` holds them, `entropy` judges values that look
random, `assign` finds `key = value` assignments whose key names a secret, and `judge` weighs
what names a value (in any language) and what the value looks like together. The public names
are re-exported here.
"""

from memory_core.firewall.engine import KINDS, Firewall, Scrubbed, TurnVerdict, marker
from memory_core.firewall.patterns import RULES_VERSION

__all__ = ["Firewall", "Scrubbed", "TurnVerdict", "KINDS", "RULES_VERSION", "marker"]
