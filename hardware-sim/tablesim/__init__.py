"""A faithful simulator of the automatic table: the table's side of the wire protocol and its physics."""

from tablesim.faults import FaultPlan
from tablesim.physics import Timings, arrange, tile_set
from tablesim.sim import SimError, SimTable

__all__ = ["FaultPlan", "SimError", "SimTable", "Timings", "arrange", "tile_set"]
