"""nkisim's performance model: schedules a Trace on one NeuronCore of a target (trn1, trn2, trn3)."""
from .constants import TARGETS, HwTarget, get_target
from .estimate import Estimate, estimate

__all__ = ["estimate", "Estimate", "TARGETS", "HwTarget", "get_target"]
