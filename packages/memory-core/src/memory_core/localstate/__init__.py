"""Local state beside the store: the outage spool, the log and its counters, atomic files, file locks.

Everything here lives in the user's state folder and works when the store does not.
"""
