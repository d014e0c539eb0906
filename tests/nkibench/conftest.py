import os
import sys

# nkisim lives in <repo>/nkibench; make it importable without installing anything.
_NKIBENCH = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "nkibench"))
if _NKIBENCH not in sys.path:
    sys.path.insert(0, _NKIBENCH)
