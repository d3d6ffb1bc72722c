"""``zoo check``: the contract of every entry a plugin registers, run with tiny budgets (also as a pytest helper)."""
