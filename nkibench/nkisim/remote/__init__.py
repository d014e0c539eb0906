"""nkisim's remote front end: a kernel's NKI calls executed by nkisim in another process.

The kernel's process (client.py) runs the kernel's Python and holds only handles; every NKI call, tile index and
operator on a handle is a request to the trusted process (server.py), which runs nkisim, records the instruction
trace and keeps every value. So the outputs the judge checks and the trace it times are one stream, recorded where
the kernel's code never runs: whatever a kernel patches in its own interpreter reaches neither.
"""
