"""An example third-party zoo plugin: the ``corridor`` env and the ``tabular-q`` agent."""

__version__ = "0.1.0"
