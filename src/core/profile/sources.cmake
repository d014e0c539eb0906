# The profile of an evaluation: timeline, per-line costs, Chrome trace export.
