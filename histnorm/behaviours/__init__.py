"""Exact-semantics functions for the behaviours of behaviours.md (A, B and C)."""
