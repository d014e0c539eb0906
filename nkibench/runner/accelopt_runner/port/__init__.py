"""`accelopt port`: classic NKI (neuronxcc.nki) kernels to the current API (nki.*), host side.

translate.port_source is the rule-based source-to-source translator (Python's ast, one small named rule per
construct, RULES lists them); equality.check runs the original and the port through the eval machinery (one child
each, as evals run) and compares their outputs; request.handle is the protocol op `port` (serve.py, the CLI)."""
from .translate import RULES, PortError, port_source  # noqa: F401
