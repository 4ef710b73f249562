"""Relational memory: identifiers and vocabulary of the derived graph."""
