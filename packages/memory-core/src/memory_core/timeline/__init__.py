"""A turn's timeline: what the agent did between the prompt and the answer.

Tool calls, tool results and injected passages reach the core as `TimelineEvent`s (from a
harness's transcript reader, `ReadsTimeline`, or with an in-process plugin's write event). This
package is everything the core does with them before a store sees them, and nothing a harness
does: `prepare` firewalls and caps them (`prepare`), `touched` names the files and programs a
turn's calls touched (its extra index terms), `offsets` keeps where each session's transcript
was last read, and `follow` reads a transcript from there.
"""

from memory_core.timeline.prepare import EVENT_CAP_BYTES, Prepared, cap_text, prepare
from memory_core.timeline.touched import touched, touched_terms

__all__ = ["EVENT_CAP_BYTES", "Prepared", "cap_text", "prepare", "touched", "touched_terms"]
