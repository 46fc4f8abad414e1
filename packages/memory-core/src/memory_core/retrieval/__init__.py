"""Retrieval: the tokenizer and stemmer, BM25 fused with the embedding model's nearest passages,
the inject decision against a bank of generic prompts, excerpts and the rendering of the block.

One `Retriever` ranks for every backend: stores return postings, document frequencies and
nearest passages, the ranking is computed here, so every store gives the same order.
"""
