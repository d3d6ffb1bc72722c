"""The contract between agents and meta-controllers, as the core defines it (:mod:`zoo.substrate`).

Kept under this name for the substrate's own modules; plugins import these types from ``zoo``.
"""

from zoo.substrate import BehaviorSpace, BestRegion, Choice, Coordinate, MetaController

__all__ = ["BehaviorSpace", "BestRegion", "Choice", "Coordinate", "MetaController"]
