"""Harness contracts: the protocol every harness package implements, its discovery through
entry points, and the import of past sessions from a harness's transcripts.
"""
