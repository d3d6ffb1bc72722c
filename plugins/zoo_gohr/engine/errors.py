"""Exceptions raised by the GOHR engine."""


class RuleSyntaxError(Exception):
    """A malformed rule file; ``str(err)`` is ``file:line:col: message``."""

    def __init__(self, source: str, line: int, col: int, message: str):
        super().__init__(f"{source}:{line}:{col}: {message}")
        self.source, self.line, self.col, self.message = source, line, col, message


class RuleRuntimeError(Exception):
    """An expression that the reference server would crash on (e.g. arithmetic on a string)."""
