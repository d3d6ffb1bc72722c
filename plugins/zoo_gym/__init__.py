"""Any registered gymnasium environment as a zoo env."""
