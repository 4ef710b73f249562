"""Evaluation on public benchmark data (MuSiQue), run through the shipped indexing and search code."""
