"""Derived search indexes over the vault's sections, rebuilt from the ledger at will."""
