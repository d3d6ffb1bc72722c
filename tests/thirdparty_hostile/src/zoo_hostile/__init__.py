"""A plugin whose entries are wrong in every way the registry checks (a test fixture)."""
