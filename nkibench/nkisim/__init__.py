"""nkisim: an NKI simulator. This package doubles as the classic `neuronxcc.nki` module, and nkisim.current as the
current `nki` module (see importer.py); both run on the same engine and performance model.

Runner-facing entry points: run_kernel, load_kernel, RunResult, activate/deactivate, errors, Trace."""
from . import errors, trace  # noqa: F401
from . import language, isa, typing, compiler  # noqa: F401  (nki.language, nki.isa, nki.typing, nki.compiler)
from . import constants  # noqa: F401  (nki.language.constants)
from . import backends  # noqa: F401  (two names of nki.compiler.backends.neuron that public kernels import)
from .api import Kernel, baremetal, benchmark, jit, profile, simulate, simulate_kernel  # noqa: F401
from .errors import (ArgumentError, KernelException, KernelLoadError, NkiCompileError, NkiError,  # noqa: F401
                     NkiRuntimeError)
from .importer import activate, deactivate, is_active  # noqa: F401
from .run import OutputSpec, RunResult, load_kernel, run_kernel  # noqa: F401
from .trace import Access, Instr, Loop, Trace  # noqa: F401

tensor = typing.TensorSpec
language.constants = constants  # `import neuronxcc.nki.language.constants as c` walks attributes
compiler.backends = backends.backends  # likewise `import neuronxcc.nki.compiler.backends.neuron.tensor`
