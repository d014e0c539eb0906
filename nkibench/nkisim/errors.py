"""Every error nkisim reports. Each carries the kernel line it points at, so the runner and the fixer agent can
show "line N: ..." exactly like the Neuron compiler's front end does."""
from __future__ import annotations


class NkiError(Exception):
    """Base class. `line` is the 1-based line in the kernel source (0 when unknown); `code` is the NKI error
    name when one exists (for example "err_num_partition_exceed_arch_limit")."""

    status = "runtime_error"

    def __init__(self, message: str, line: int = 0, code: str = "", filename: str = "") -> None:
        self.message = message
        self.line = line
        self.code = code
        self.filename = filename
        super().__init__(message)

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        code = f" [{self.code}]" if self.code else ""
        return f"{where}{self.message}{code}"


class NkiCompileError(NkiError):
    """A rule the NKI compiler enforces (tile sizes, capacity, indexing, memory spaces). Python exceptions raised
    while the kernel is traced are compile errors too, because on a real host tracing happens at compile time."""

    status = "compile_error"


class KernelLoadError(NkiCompileError):
    """The kernel source could not be turned into a callable: syntax error, no `kernel`, top-level exception."""


class ArgumentError(NkiCompileError):
    """The kernel was called with the wrong number or kind of arguments."""


class KernelException(NkiCompileError):
    """A Python exception raised by the kernel's own code; `cause` keeps the original exception."""

    def __init__(self, message: str, line: int = 0, cause: BaseException | None = None, filename: str = "") -> None:
        super().__init__(message, line, "", filename)
        self.cause = cause


class NkiRuntimeError(NkiError):
    """A fault only visible when the kernel runs, such as an out-of-bounds indirect (gathered) DMA index."""

    status = "runtime_error"
