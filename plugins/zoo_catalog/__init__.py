"""The catalogue: ``zoo list``, ``zoo describe``, ``zoo plugins``, ``zoo schema`` and ``zoo runs`` show what is installed
and what has been run."""
