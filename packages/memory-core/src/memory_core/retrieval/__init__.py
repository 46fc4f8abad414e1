"""Retrieval: the tokenizer and stemmer, BM25 ranking with session context, the relevance
floor, excerpts, date handling and the rendering of the injected block.

One `Retriever` ranks for every backend: stores return postings and document frequencies,
the ranking is computed here, so every store gives the same order.
"""
