"""The derivative table: one registry entry per op, grouped by family (see registry.py)."""
