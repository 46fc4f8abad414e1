"""The secret firewall: deterministic rules (patterns and entropy, no model) that run before
anything is stored, indexed or logged.

`engine` applies the rules to a turn; `patterns` holds them, `entropy` judges values that look
random, and `judge` weighs what names a value (in any language and syntax) and what the value
looks like together: the one mechanism for credentials that a name marks. The public names
are re-exported here.
"""

from memory_core.firewall.engine import KINDS, Firewall, Scrubbed, TurnVerdict, marker
from memory_core.firewall.patterns import RULES_VERSION

__all__ = ["Firewall", "Scrubbed", "TurnVerdict", "KINDS", "RULES_VERSION", "marker"]
