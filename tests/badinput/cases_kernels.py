"""Kernel files that cannot be kernels. What the CLI can see from the file (missing, a folder, a pipe, a device,
binary, not UTF-8, over 4 MiB) is a usage error (exit 2) that names the file and says what to give instead, before any
runner starts; what only the runner can see (empty, syntax, no `kernel`, forbidden imports, a kernel that raises) is
an evaluation that failed (exit 1) with the status and the kernel's line."""
from harness import Big, Case, Dir, Fifo, Symlink

HEAD = b"import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n"
MIB4 = 4 * 1024 * 1024


def c(id_, args, exit_, *says, **kw):
    return Case(id="kernels/" + id_, args=list(args), exit=exit_, says=tuple(says), **kw)


def file_case(id_, content, *says, command="bench", **kw):
    """A kernel file the CLI refuses itself: exit 2, before any runner starts."""
    args = {"bench": ["bench", "{work}/k.py", "--task", "silu"],
            "optimize": ["optimize", "--task", "silu", "--kernel", "{work}/k.py"],
            "compare-left": ["compare", "{work}/k.py", "{silu}"],
            "compare-right": ["compare", "{silu}", "{work}/k.py"],
            "port": ["port", "{work}/k.py", "--task", "silu", "--out", "{work}/out.py"],
            "port-candidate": ["port", "{silu}", "--task", "silu", "--candidate", "{work}/k.py", "--out",
                               "{work}/out.py"]}[command]
    files = {"work/k.py": content} if content is not None else {}
    return c(id_, args, 2, *says, files=files, **kw)


def runner_case(id_, source, status, *says, **kw):
    """A kernel only the runner can judge: one small evaluation, exit 1, the JSON result names status and line."""
    return c(id_, ["bench", "{work}/k.py", "--task", "silu", "--size", "small", "--json"], 1,
             f'"status":"{status}"', *says, stream="out", files={"work/k.py": source}, **kw)


NOT_UTF8 = "is not valid UTF-8"
ICONV = "convert the file, e.g. with iconv"

CASES = [
    # ----------------------------------------------------------------------------------- what the file is
    file_case("missing", None, "{work}/k.py does not exist", "Check the path"),
    file_case("missing-says-nothing-of-recent-files", None, "{work}/k.py does not exist",
              regex=r"\A(?!.*recent files).*\Z"),
    file_case("folder", Dir(), "{work}/k.py is a folder, not a kernel file", "Choose a .py file inside it"),
    file_case("fifo", Fifo(), "{work}/k.py is not a regular file (a pipe, socket or device)"),
    file_case("device", Symlink("/dev/zero"), "is not a regular file"),
    file_case("dangling-symlink", Symlink("{work}/gone.py"), "does not exist"),
    file_case("symlink-loop", Symlink("{work}/k.py"), "{work}/k.py"),
    c("empty-path", ["bench", "", "--task", "silu"], 2, "No file name given", "Choose a kernel file (.py)"),
    file_case("binary-nul", b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 64, "looks like a binary file",
              "a NUL byte at offset 7", "Open the kernel's .py file instead"),
    file_case("nul-in-source", HEAD + b"def kernel(x):\n    return x\0\n", "looks like a binary file",
              f"offset {len(HEAD) + 27}"),
    file_case("utf16", "def kernel(x):\n    return x\n".encode("utf-16"), "looks like a binary file"),
    file_case("latin1", HEAD + b"# caf\xe9\ndef kernel(x):\n    return x\n", NOT_UTF8, "line 4", ICONV),
    file_case("overlong-utf8", b"# \xc0\xaf\n", NOT_UTF8, "line 1, byte offset 2"),
    file_case("surrogate-utf8", b"x = 1\n# \xed\xa0\x80\n", NOT_UTF8, "line 2"),
    file_case("truncated-utf8", b"# the euro: \xe2\x82", NOT_UTF8, "line 1"),
    file_case("beyond-unicode", b"# \xf4\x90\x80\x80\n", NOT_UTF8),
    file_case("jpeg", b"\xff\xd8\xff\xe0JFIF", NOT_UTF8),
    file_case("over-4mib", Big(MIB4 + 1, head=HEAD), "is 4.0 MiB, over the 4.0 MiB limit for a kernel file",
              "check that this is the right file"),
    file_case("huge", Big(64 * 1024 * 1024), "is 64.0 MiB, over the 4.0 MiB limit"),

    # ----------------------------------------------------------------------------------- the same, elsewhere
    file_case("optimize-kernel-latin1", b"# \xe9\n", NOT_UTF8, command="optimize"),
    file_case("optimize-kernel-fifo", Fifo(), "is not a regular file", command="optimize"),
    file_case("optimize-kernel-folder", Dir(), "is a folder", command="optimize"),
    file_case("optimize-kernel-huge", Big(MIB4 + 1), "over the 4.0 MiB limit", command="optimize"),
    file_case("compare-left-binary", b"\x00\x01", "looks like a binary file", command="compare-left"),
    file_case("compare-right-fifo", Fifo(), "is not a regular file", command="compare-right"),
    file_case("compare-right-latin1", b"x = 1\n# caf\xe9\n", NOT_UTF8, "line 2", command="compare-right"),
    file_case("compare-left-huge", Big(MIB4 + 1), "over the 4.0 MiB limit", command="compare-left"),
    file_case("port-latin1", b"# \xe9\n", NOT_UTF8, command="port", absent=("work/out.py",)),
    file_case("port-fifo", Fifo(), "is not a regular file", command="port"),
    file_case("port-candidate-binary", b"\x00", "--candidate", "looks like a binary file",
              command="port-candidate"),
    file_case("port-candidate-fifo", Fifo(), "--candidate", "is not a regular file", command="port-candidate"),

    # ----------------------------------------------------------------------------------- what the runner sees
    runner_case("empty", b"", "infra_error", "the kernel is empty; send the NKI source that defines `kernel`"),
    runner_case("only-whitespace", b"  \n\t\n\n", "infra_error", "the kernel is empty (only whitespace)"),
    runner_case("syntax-error", HEAD + b"def kernel(x:\n    pass\n", "compile_error", "line 4: syntax error",
                "'(' was never closed"),
    runner_case("mixed-indentation", HEAD + b"def kernel(x):\n\tif x:\n        return x\n", "compile_error",
                "line 6", "inconsistent use of tabs and spaces"),
    runner_case("nested-too-deep", HEAD + b"x = " + b"(" * 300 + b"1" + b")" * 300 + b"\n", "compile_error",
                "line 4", "too many nested parentheses"),
    runner_case("no-kernel-function", HEAD + b"def kern(x):\n    return x\ndef other(x):\n    return x\n",
                "compile_error",
                "the source defines no @nki.jit function (decorate the kernel function with @nki.jit)"),
    runner_case("kernel-not-a-function", HEAD + b"kernel = 5\n", "compile_error", "'kernel' is not a function"),
    runner_case("kernel-takes-nothing", HEAD + b"def kernel():\n    return 1\n", "compile_error",
                "wrong arguments for kernel 'kernel'", "it takes 0 positional argument(s), 1 given"),
    runner_case("imports-os", b"import os\n" + HEAD + b"def kernel(x):\n    return x\n", "rejected",
                "line 1: import of 'os' is not allowed", "a kernel may import only neuronxcc.nki*"),
    runner_case("imports-unknown-module", HEAD + b"import no_such_module_xyz\ndef kernel(x):\n    return x\n",
                "rejected", "line 4: import of 'no_such_module_xyz' is not allowed"),
    runner_case("calls-exit", HEAD + b"def kernel(x):\n    exit(3)\n", "rejected",
                "line 5: use of 'exit' is not allowed in a kernel"),
    runner_case("opens-a-file", HEAD + b"def kernel(x):\n    return open('/etc/passwd').read()\n", "rejected",
                "line 5: use of 'open' is not allowed"),
    runner_case("raises-at-import", HEAD + b"raise RuntimeError('boom at import')\ndef kernel(x):\n    return x\n",
                "compile_error", "line 4: the kernel module raised RuntimeError: boom at import"),
    runner_case("raises-in-kernel", HEAD + b"def kernel(x):\n    raise ValueError('no tiles for you')\n",
                "compile_error", "line 5", "ValueError: no tiles for you"),
    runner_case("recurses-forever", HEAD + b"def kernel(x):\n    return kernel(x)\n", "compile_error",
                "line 5", "RecursionError"),
    runner_case("wrong-result", HEAD + b"def kernel(x):\n    return x\n", "incorrect", "L2 relative error",
                "exceeds rel_tol"),
    c("table-shows-the-whole-reason", ["bench", "{work}/k.py", "--task", "silu", "--size", "small"], 1,
      "import of 'os' is not allowed (a kernel may import only neuronxcc.nki*, numpy, math and pure helpers)",
      stream="any", files={"work/k.py": b"import os\n" + HEAD + b"def kernel(x):\n    return x\n"}),
]
