"""A faithful simulator of the automatic table: the table's side of the wire protocol and its physics."""

from tablesim.faults import FaultPlan
from tablesim.physics import Timings, arrange, tile_set
from tablesim.mechanism import Mechanism, SimError
from tablesim.sim import SimTable

__all__ = ["FaultPlan", "Mechanism", "SimError", "SimTable", "Timings", "arrange", "tile_set"]
