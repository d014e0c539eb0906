"""The eval sandbox: how bubblewrap confines a process that runs untrusted kernel code, and the check that it does.

Every kernel is untrusted (a model wrote it), and the runner often runs as root (CI, many servers). So the eval
process gets, whoever starts the runner:
  * its own user, PID, network, IPC, mount, UTS and cgroup namespaces (--unshare-all --unshare-user), and may
    make no user namespace of its own (--disable-userns): it sees and signals only its own processes, has only a
    loopback interface of its own, and cannot reach the host's abstract sockets;
  * no capabilities (--cap-drop ALL), a seccomp filter (seccomp.py) that refuses ptrace, process_vm_*, setns,
    unshare, mount, kexec, bpf, module loading and the like, and a new session (no TIOCSTI into a terminal);
  * death with the runner (--die-with-parent): when the eval's first process ends, bwrap, the PID namespace's
    init, ends and the kernel kills everything left in the namespace;
  * a file system that holds only what an evaluation reads: for nkisim, /usr (and /bin, /lib, ... of a system
    without merged /usr), the few files of /etc that the loader, Python and numpy read, the CPU topology of /sys,
    the runner, nkisim, the task, the interpreter's prefix and PYTHONPATH, all read-only; a private /proc, /dev,
    /dev/shm and /tmp; and one writable folder. A Neuron evaluation needs the devices and the SDK wherever it is
    installed, so it sees all of / read-only except the places users keep their files and secrets (/home,
    /root, /run, /var, /tmp, /mnt, /media, /srv and the runner's $HOME), which are empty there.
The runner checks from inside, once, that it got all this (check_script): a runner that cannot refuses to
evaluate, saying what is missing, unless it was started with --no-sandbox (or ACCELOPT_RUNNER_NO_SANDBOX=1), which
runs kernels with the runner's own rights.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile

from . import seccomp

SECCOMP_FD = "{seccomp-fd}"  # in a command from wrap_command: launch() puts a fresh pipe's number there
HIDDEN_ROOTS = ("/home", "/root", "/run", "/var", "/tmp", "/mnt", "/media", "/srv")
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "timezone", "passwd",
             "group", "nsswitch.conf", "host.conf", "python3", "os-release", "mime.types", "gai.conf")
SYS_DIRS = ("/sys/devices/system/cpu", "/sys/devices/system/node")
NAMESPACES = ("user", "pid", "net", "ipc", "mnt", "uts")
NO_SANDBOX_VAR = "ACCELOPT_RUNNER_NO_SANDBOX"


def _base_args(bwrap: str, disable_userns: bool) -> list:
    args = [bwrap, "--unshare-all", "--unshare-user"]
    if disable_userns:
        args.append("--disable-userns")
    args += ["--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if seccomp.supported():
        args += ["--seccomp", SECCOMP_FD]
    return args


def _system_view() -> list:
    """The read-only system an nkisim evaluation needs: /usr and what links into it, some of /etc, CPU topology."""
    args = []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    for name in ETC_FILES:
        p = os.path.join("/etc", name)
        if os.path.lexists(p):
            args += ["--ro-bind", p, p]
    for d in SYS_DIRS:
        if os.path.isdir(d):
            args += ["--ro-bind", d, d]
    return args


def _broad_view() -> list:
    """All of / read-only, without the places that hold users' files (a Neuron evaluation's view)."""
    args = ["--ro-bind", "/", "/"]
    home = os.path.realpath(os.path.expanduser("~"))
    for d in dict.fromkeys(HIDDEN_ROOTS + (home,)):
        if d != "/" and os.path.isdir(d):
            args += ["--tmpfs", d]
    return args


def wrap_command(bwrap: str, disable_userns: bool, neuron: bool, readable, writable: str) -> list:
    """The bwrap command prefix for one sandboxed process: readable paths (folders or files) re-exposed read-only,
    writable the one folder it may write (also its working folder)."""
    args = _base_args(bwrap, disable_userns)
    args += _broad_view() if neuron else _system_view()
    args += ["--dev-bind", "/dev", "/dev"] if neuron else ["--dev", "/dev"]
    args += ["--tmpfs", "/dev/shm", "--proc", "/proc"]
    if not neuron:
        args += ["--tmpfs", "/tmp"]  # the broad view hides /tmp with the other HIDDEN_ROOTS
    for p in dict.fromkeys(os.path.realpath(p) for p in readable if p):
        if os.path.exists(p) and p != "/":
            args += ["--ro-bind", p, p]
    args += ["--bind", writable, writable, "--chdir", writable, "--"]
    return args


def launch(cmd: list, **popen_kw) -> subprocess.Popen:
    """Popen of a command from wrap_command (or a plain one): the seccomp program goes in through a fresh pipe."""
    if SECCOMP_FD not in cmd:
        return subprocess.Popen(cmd, **popen_kw)
    r, w = os.pipe()
    try:
        os.write(w, seccomp.program())  # a few hundred bytes: far below a pipe's buffer
    finally:
        os.close(w)
    try:
        cmd = [str(r) if a == SECCOMP_FD else a for a in cmd]
        return subprocess.Popen(cmd, pass_fds=tuple(popen_kw.pop("pass_fds", ())) + (r,), **popen_kw)
    finally:
        os.close(r)


# Run inside the sandbox by probe(): what the eval process can see of its confinement, as one JSON line.
CHECK_SCRIPT = r"""
import json, os, sys
outside = json.loads(sys.argv[1])
st = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
ns = {n: os.stat(f"/proc/self/ns/{n}").st_ino for n in outside["ns"]}
try:
    comm1 = open("/proc/1/comm").read().strip()
except OSError:
    comm1 = ""
ifaces = [l.split(":")[0].strip() for l in open("/proc/net/dev").read().splitlines()[2:]]
hidden = {p: os.path.exists(p) for p in outside["hidden"]}
print(json.dumps({"cap_eff": st.get("CapEff", "").strip(), "cap_bnd": st.get("CapBnd", "").strip(),
                  "seccomp": st.get("Seccomp", "").strip(), "no_new_privs": st.get("NoNewPrivs", "").strip(),
                  "ns": ns, "pid1": comm1, "pids": len([p for p in os.listdir("/proc") if p.isdigit()]),
                  "runner_visible": os.path.exists(f"/proc/{outside['runner_pid']}/environ"),
                  "ifaces": ifaces, "hidden_visible": hidden}))
"""


def check_failures(seen: dict, outside: dict) -> list:
    """What the sandbox failed to give, from what check_script saw inside (empty: everything)."""
    bad = []
    if seen.get("cap_eff") != "0000000000000000":
        bad.append(f"the eval process has capabilities (CapEff {seen.get('cap_eff')})")
    if seccomp.supported() and seen.get("seccomp") != "2":
        bad.append("no seccomp filter is installed")
    same = [n for n in NAMESPACES if seen.get("ns", {}).get(n) == outside["ns"][n]]
    if same:
        bad.append("it shares the runner's " + ", ".join(same) + " namespace(s)")
    if seen.get("runner_visible"):
        bad.append("it can see the runner's process in /proc")
    if seen.get("pid1") != "bwrap":
        bad.append(f"its PID 1 is {seen.get('pid1') or 'unknown'!r}, not the sandbox's init")
    if [i for i in seen.get("ifaces", []) if i != "lo"]:
        bad.append("it sees network interfaces: " + ", ".join(seen["ifaces"]))
    shown = [p for p, v in (seen.get("hidden_visible") or {}).items() if v]
    if shown:
        bad.append("it can see " + ", ".join(shown))
    return bad


def probe(bwrap: str, python: str) -> tuple:
    """(active, reason, disable_userns): runs check_script in the sandbox an nkisim evaluation gets."""
    outside = {"ns": {n: os.stat(f"/proc/self/ns/{n}").st_ino for n in NAMESPACES}, "runner_pid": os.getpid(),
               "hidden": [p for p in (os.path.realpath(os.path.expanduser("~")), "/root", "/home")
                          if os.path.isdir(p) and p != "/"]}
    disable_userns = True
    why = ""
    for attempt in (True, False):  # --disable-userns needs bubblewrap 0.8
        disable_userns = attempt
        work = tempfile.mkdtemp(prefix="accelopt-sandbox-check-")
        try:
            cmd = wrap_command(bwrap, attempt, False, [os.path.dirname(os.path.dirname(os.path.abspath(python)))],
                               work) + [python, "-I", "-c", CHECK_SCRIPT, json.dumps(outside)]
            p = launch(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=work)
            try:
                out, err = p.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
        except OSError as e:
            return False, f"bwrap cannot run here: {e}", False
        finally:
            shutil.rmtree(work, ignore_errors=True)
        if p.returncode == 0:
            break
        why = err.decode(errors="replace").strip()[:400]
        if "disable-userns" not in why:
            break
    if p.returncode != 0:
        hint = ""
        if "namespace" in why.lower() or "permission" in why.lower() or "operation not permitted" in why.lower():
            hint = (" (unprivileged user namespaces may be off: `sysctl kernel.unprivileged_userns_clone=1`, "
                    "`sysctl user.max_user_namespaces=15000`, or on Ubuntu 24.04+ an AppArmor profile for bwrap)")
        return False, f"the sandbox (bwrap) cannot start here: {why}{hint}", disable_userns
    try:
        seen = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        return False, f"the sandbox check printed nothing readable: {out[:200]!r}", disable_userns
    bad = check_failures(seen, outside)
    if not seccomp.supported():
        bad.append(f"no seccomp filter for this machine's architecture ({os.uname().machine})")
    if bad:
        return False, "the sandbox is incomplete here: " + "; ".join(bad), disable_userns
    return True, "", disable_userns


def refusal(reason: str) -> str:
    """The error of an eval refused because the sandbox is missing: what, why, and the two ways on."""
    return (f"not evaluated: untrusted kernels run only in the sandbox, and {reason}. Install bubblewrap (Debian/"
            f"Ubuntu: apt install bubblewrap) and make sure it can create user namespaces, or start the runner "
            f"with --no-sandbox (host setting: {NO_SANDBOX_VAR}=1) to run kernels with the runner's own rights: "
            f"they can then read its files and signal its processes")


def disabled_by_environment(environ=None) -> bool:
    return (environ if environ is not None else os.environ).get(NO_SANDBOX_VAR, "") not in ("", "0")


if __name__ == "__main__":  # a manual check: python -m accelopt_runner.confinement
    path = shutil.which("bwrap")
    print(probe(path, sys.executable) if path else "bwrap is not installed")
