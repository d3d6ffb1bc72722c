"""Data package: the GOHR rule sets shipped with zoo (see README.md)."""
