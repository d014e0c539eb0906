"""Calibration kernels for nkisim's performance model and the published numbers they are checked against
(reference/nki-facts.md §4). Run tests/bench/nkisim_calibration.py to see predicted versus published."""
