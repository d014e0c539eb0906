#!/usr/bin/env python3
"""The .deb, as a user meets it: built with CPack from a build tree, checked by lintian and the desktop's
validators, then installed with apt into a clean Debian 12 root made by mmdebstrap from the machine's own
package mirror. There, as an ordinary user, `accelopt --version` and `accelopt suite --tasks silu --size small`
run, bash completion offers the commands, options and installed task names, and the workbench starts under Xvfb
long enough to screenshot its window; afterwards nothing under /usr may have changed (no __pycache__ in the
data folder) and the package removes cleanly.

Needs root (mmdebstrap's root mode, chroot, mounts), mmdebstrap, lintian, appstream and desktop-file-utils
(packaging/install-deps.sh) and the mirror in /etc/apt/sources.list.d/debian.sources. Exits 77 (skipped)
when one of those is missing, so a machine without them says so instead of failing.

usage: package_test.py --build-dir BUILD --out DIR [--keep-root]
"""

import argparse
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zlib

SKIP = 77
PACKAGE = "accelopt-workbench"
USER = "tester"

# Asks the installed bash completion what it offers after each line, as pressing Tab there would.
COMPLETION_PROBE = r"""
. /usr/share/bash-completion/bash_completion
_completion_loader accelopt
offer() {
    COMP_LINE=$1; COMP_POINT=${#1}; read -ra COMP_WORDS <<<"$1"; [[ $1 == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
    _accelopt accelopt "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    echo "$1|${COMPREPLY[*]}"
}
offer 'accelopt '
offer 'accelopt suite --'
offer 'accelopt bench --task s'
offer 'accelopt hosts '
"""
EXPECTED_OFFERS = {"accelopt ": "suite", "accelopt suite --": "--tasks", "accelopt bench --task s": "silu swiglu",
                   "accelopt hosts ": "list add check remove"}


def log(message):
    print(f"package-test: {message}", flush=True)


def run(cmd, check=True, timeout=900, **kw):
    """Runs cmd, echoing it and its output; returns the CompletedProcess."""
    log("$ " + " ".join(cmd))
    started = time.monotonic()
    done = subprocess.run(cmd, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, **kw)
    if done.stdout.strip():
        print(done.stdout.rstrip(), flush=True)
    log(f"  ({time.monotonic() - started:.1f} s, exit {done.returncode})")
    if check and done.returncode != 0:
        raise SystemExit(f"package-test: FAILED: {' '.join(cmd)} exited {done.returncode}")
    return done


def mirror_source():
    """The machine's Debian sources (deb822) and one host in them, so the root comes from the same mirror."""
    path = "/etc/apt/sources.list.d/debian.sources"
    if not os.path.exists(path):
        return None, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("URIs:"):
                return path, urllib.parse.urlparse(line.split()[1]).hostname
    return path, None


def reachable(host, port=80):
    try:
        socket.create_connection((host, port), timeout=10).close()
        return True
    except OSError:
        return False


def preconditions():
    missing = [tool for tool in ("mmdebstrap", "lintian", "appstreamcli", "desktop-file-validate", "cpack", "chroot")
               if not shutil.which(tool)]
    if os.geteuid() != 0:
        return "needs root (mmdebstrap's root mode, chroot and mounts)"
    if missing:
        return "missing " + ", ".join(missing) + " (bash packaging/install-deps.sh installs them)"
    sources, host = mirror_source()
    if not sources or not host:
        return "no Debian mirror in /etc/apt/sources.list.d/debian.sources"
    if not reachable(host):
        return f"the mirror {host} is not reachable"
    return None


def build_deb(build_dir, out):
    run(["cpack", "-G", "DEB", "--config", os.path.join(build_dir, "CPackConfig.cmake"), "-B", out])
    debs = [f for f in os.listdir(out) if f.startswith(PACKAGE + "_") and f.endswith(".deb")]
    if len(debs) != 1:
        raise SystemExit(f"package-test: FAILED: expected one {PACKAGE} .deb in {out}, found {debs}")
    return os.path.join(out, debs[0])


def check_deb(deb, out):
    """Contents, control fields, lintian (errors fail), and the desktop files as a software centre reads them."""
    info = run(["dpkg-deb", "--info", deb]).stdout
    for field in ("Depends:", "python3-numpy", "libqt6widgets6", "Recommends:", "bubblewrap"):
        if field not in info:
            raise SystemExit(f"package-test: FAILED: the control file lacks {field}")
    tree = os.path.join(out, "contents")
    shutil.rmtree(tree, ignore_errors=True)
    run(["dpkg-deb", "-x", deb, tree])
    expected = ["usr/bin/accelopt", "usr/bin/accelopt-workbench",
                "usr/share/accelopt/nkibench/tasks/silu/task.json", "usr/share/accelopt/prompts",
                "usr/share/accelopt/rules/recommendations.json", "usr/share/accelopt/README.md",
                "usr/share/icons/hicolor/scalable/apps/accelopt-workbench.svg",
                "usr/share/icons/hicolor/48x48/apps/accelopt-workbench.png",
                "usr/share/icons/hicolor/256x256/apps/accelopt-workbench.png",
                "usr/share/man/man1/accelopt.1.gz", "usr/share/man/man1/accelopt-workbench.1.gz",
                "usr/share/bash-completion/completions/accelopt",
                f"usr/share/doc/{PACKAGE}/copyright", f"usr/share/doc/{PACKAGE}/changelog.Debian.gz"]
    absent = [p for p in expected if not os.path.exists(os.path.join(tree, p))]
    if absent:
        raise SystemExit(f"package-test: FAILED: the package lacks {absent}")
    pycache = [d for d, _, _ in os.walk(tree) if d.endswith("__pycache__")]
    if pycache:
        raise SystemExit(f"package-test: FAILED: byte code in the package: {pycache}")
    metainfo = [os.path.join(tree, "usr/share/metainfo", f) for f in os.listdir(os.path.join(tree, "usr/share/metainfo"))]
    desktop = [os.path.join(tree, "usr/share/applications", f)
               for f in os.listdir(os.path.join(tree, "usr/share/applications"))]
    # --no-net: the screenshots' https addresses are checked for form only; this machine has no way out.
    run(["appstreamcli", "validate", "--no-net", "--strict", *metainfo])
    run(["desktop-file-validate", *desktop])
    for page in ("accelopt", "accelopt-workbench"):
        # man's own checker: groff warnings (bad macros, lines that do not fit) fail the page.
        done = run(["sh", "-c", f"LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "
                                f"{tree}/usr/share/man/man1/{page}.1.gz >/dev/null"])
        if done.stdout.strip():
            raise SystemExit(f"package-test: FAILED: man {page} has warnings")
    lint = run(["lintian", "--fail-on", "error", "--display-info", "--tag-display-limit", "0", deb], check=False)
    with open(os.path.join(out, "lintian.txt"), "w", encoding="utf-8") as f:
        f.write(lint.stdout)
    if lint.returncode != 0:
        raise SystemExit("package-test: FAILED: lintian reports errors (packaging/README.md lists what is known)")


class Root:
    """A clean Debian 12 root with /proc, /dev and /dev/shm mounted while the tests run in it."""

    def __init__(self, path):
        self.path = path
        self.mounts = []

    def create(self):
        sources, _ = mirror_source()
        # minbase: the required packages only, as a fresh minimal system has; the package must bring the rest.
        run(["mmdebstrap", "--mode=root", "--variant=minbase", "bookworm", self.path, sources], timeout=1200)
        for kind, target, extra in (("proc", "proc", ["-t", "proc", "proc"]), ("dev", "dev", ["--bind", "/dev"]),
                                    ("shm", "dev/shm", ["-t", "tmpfs", "shm"])):
            where = os.path.join(self.path, target)
            run(["mount", *extra, where])
            self.mounts.append(where)
        shutil.copy("/etc/resolv.conf", os.path.join(self.path, "etc/resolv.conf"))

    def unmount(self):
        for where in reversed(self.mounts):
            subprocess.run(["umount", "-l", where], check=False)
        self.mounts = []

    def still_mounted(self):
        """Mount points left under the root: deleting through a bind of /dev would delete the host's."""
        with open("/proc/self/mounts", encoding="utf-8") as f:
            return [line.split()[1] for line in f if line.split()[1].startswith(self.path + "/")]

    def sh(self, script, user="root", check=True, timeout=900):
        """Runs a shell script in the root, as root or the test user (with a login-like environment)."""
        env = ["env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "LANG=C.UTF-8",
               "DEBIAN_FRONTEND=noninteractive"]
        if user != "root":
            env += [f"HOME=/home/{user}", f"USER={user}", f"LOGNAME={user}"]
            return run(["chroot", f"--userspec={user}:{user}", self.path, *env, "sh", "-ec", script],
                       check=check, timeout=timeout)
        return run(["chroot", self.path, *env, "HOME=/root", "sh", "-ec", script], check=check, timeout=timeout)

    def popen(self, argv, user, log_path, extra_env=()):
        env = ["env", "-i", "PATH=/usr/bin:/bin", "LANG=C.UTF-8", f"HOME=/home/{user}", f"USER={user}", *extra_env]
        out = open(log_path, "w", encoding="utf-8")
        return subprocess.Popen(["chroot", f"--userspec={user}:{user}", self.path, *env, *argv],
                                stdout=out, stderr=subprocess.STDOUT)


def xwd_to_png(xwd_path, png_path):
    """Xvfb's -fbdir framebuffer (an XWD file: big-endian header, 32-bit TrueColor pixels) as an RGB PNG.
    Returns the number of distinct colours, so a blank screen can be told from a drawn window."""
    with open(xwd_path, "rb") as f:
        data = f.read()
    header = struct.unpack(">25I", data[:100])
    header_size, depth, width, height, byte_order, bpp, line = (header[0], header[3], header[4], header[5],
                                                                 header[7], header[11], header[12])
    ncolors = header[19]
    if bpp != 32 or depth != 24:
        raise SystemExit(f"package-test: FAILED: unexpected framebuffer format (depth {depth}, {bpp} bpp)")
    pixels = data[header_size + 12 * ncolors:]
    rows, colors = [], set()
    for y in range(height):
        row = pixels[y * line:y * line + width * 4]
        # LSBFirst: B, G, R, pad per pixel; reorder to R, G, B.
        rgb = bytearray(width * 3)
        if byte_order == 0:
            rgb[0::3], rgb[1::3], rgb[2::3] = row[2::4], row[1::4], row[0::4]
        else:
            rgb[0::3], rgb[1::3], rgb[2::3] = row[1::4], row[2::4], row[3::4]
        if y % 8 == 0:
            colors.update(bytes(rgb[i:i + 3]) for i in range(0, len(rgb), 24))
        rows.append(b"\x00" + bytes(rgb))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b"")
    with open(png_path, "wb") as f:
        f.write(png)
    return len(colors)


def free_display():
    """A display number no X server uses: X servers also listen on abstract sockets, which a chroot shares with
    the host, so a server of the host (or of a second test run) on the same number would take our clients."""
    with open("/proc/net/unix", encoding="utf-8") as f:
        used = f.read()
    return next(n for n in range(70, 1000) if f"/tmp/.X11-unix/X{n}\n" not in used)


def screenshot_workbench(root, out):
    """Starts Xvfb and the workbench in the root as the test user; keeps the screen once the window is drawn."""
    fbdir = "/tmp/xvfb-fb"
    root.sh(f"mkdir -p {fbdir} && chmod 1777 {fbdir}")
    display = free_display()
    xvfb = root.popen(["Xvfb", f":{display}", "-screen", "0", "1440x900x24", "-fbdir", fbdir, "-nolisten", "tcp",
                       "-br"], USER, os.path.join(out, "xvfb.log"))
    workbench = None
    try:
        for _ in range(100):
            if os.path.exists(os.path.join(root.path, f"tmp/.X11-unix/X{display}")):
                break
            time.sleep(0.1)
        log_path = os.path.join(out, "workbench.log")
        workbench = root.popen(["accelopt-workbench"], USER, log_path,
                               [f"DISPLAY=:{display}", "ACCELOPT_NO_KEYCHAIN=1"])
        started = time.monotonic()
        png = os.path.join(out, "workbench-installed.png")
        previous, colors = None, 0
        while time.monotonic() - started < 60:
            time.sleep(1)
            if workbench.poll() is not None:
                raise SystemExit(f"package-test: FAILED: the workbench exited ({workbench.returncode}); see {log_path}")
            with open(log_path, encoding="utf-8", errors="replace") as f:
                if "started" not in f.read():
                    continue
            with open(os.path.join(root.path, fbdir.lstrip("/"), "Xvfb_screen0"), "rb") as f:
                frame = f.read()
            if frame == previous:  # drawn and settled: two looks a second apart agree
                colors = xwd_to_png(os.path.join(root.path, fbdir.lstrip("/"), "Xvfb_screen0"), png)
                break
            previous = frame
        log(f"screenshot of the installed workbench: {png} ({colors} colours)")
        if colors < 20:
            raise SystemExit("package-test: FAILED: the workbench's window did not appear (screen blank)")
        with open(log_path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        # It found its data on its own (no ACCELOPT_DATA_DIR): the Tasks come from the installed copy.
        if "/usr/share/accelopt/nkibench/tasks" not in text:
            raise SystemExit(f"package-test: FAILED: the workbench did not find /usr/share/accelopt; see {log_path}")
    finally:
        for process in (workbench, xvfb):
            if process and process.poll() is None:
                process.terminate()
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def test_in_root(deb, out, keep):
    workdir = tempfile.mkdtemp(prefix="accelopt-package-root-", dir="/var/tmp")
    root = Root(os.path.join(workdir, "root"))
    try:
        root.create()
        shutil.copy(deb, os.path.join(root.path, "tmp"))
        name = os.path.basename(deb)
        # As a user would: apt with its defaults (Recommends too), from the package file.
        root.sh(f"apt-get update -qq && apt-get install -y -q /tmp/{name}")
        root.sh(f"touch /tmp/before-run && useradd --create-home {USER}")
        version = root.sh("accelopt --version", user=USER).stdout
        if "/usr/share/accelopt" not in version:
            raise SystemExit("package-test: FAILED: accelopt --version does not show the installed data folder")
        # A chroot cannot make user namespaces (the kernel refuses CLONE_NEWUSER there), so the sandbox is missing,
        # as on a host with them turned off: kernels are refused, with what is missing and the way on.
        refused = root.sh("accelopt suite --tasks silu --size small", user=USER, timeout=600, check=False)
        said = refused.stdout or ""  # run() merges stderr into stdout
        if "untrusted kernels run only in the sandbox" not in said or "ACCELOPT_RUNNER_NO_SANDBOX=1" not in said:
            raise SystemExit(f"package-test: FAILED: without the sandbox the suite did not refuse clearly:\n{said}")
        unconfined = "ACCELOPT_RUNNER_NO_SANDBOX=1 "
        suite = root.sh(unconfined + "accelopt suite --tasks silu --size small", user=USER, timeout=600).stdout
        if "silu" not in suite or " ok " not in f" {suite} ":
            raise SystemExit("package-test: FAILED: the suite did not run silu")
        # Root runs it too: the one user who could write into /usr/share/accelopt, and must not.
        root.sh(unconfined + "accelopt suite --tasks silu --size small", timeout=600)
        root.sh("apt-get install -y -q --no-install-recommends xvfb xauth bash-completion")
        with open(os.path.join(root.path, "tmp/complete.sh"), "w", encoding="utf-8") as f:
            f.write(COMPLETION_PROBE)
        offers = dict(line.split("|", 1) for line in
                      root.sh("bash /tmp/complete.sh", user=USER).stdout.splitlines() if "|" in line)
        for line, wanted in EXPECTED_OFFERS.items():
            if wanted not in offers.get(line, ""):
                raise SystemExit(f"package-test: FAILED: Tab after '{line}' offers '{offers.get(line)}', not '{wanted}'")
        screenshot_workbench(root, out)
        changed = root.sh(f"find /usr/share/accelopt -newer /tmp/before-run -o -name __pycache__; "
                          f"dpkg --verify {PACKAGE} || true").stdout.strip()
        if changed:
            raise SystemExit(f"package-test: FAILED: something wrote into the installed files:\n{changed}")
        root.sh(f"ls -d /home/{USER}/.local/share/AccelOpt* /home/{USER}/.config/AccelOpt* 2>/dev/null || true",
                user=USER)
        root.sh(f"apt-get purge -y -q {PACKAGE} && test ! -e /usr/share/accelopt && test ! -e /usr/bin/accelopt")
    finally:
        root.unmount()
        left = root.still_mounted()
        if keep or left:
            log(f"root kept at {root.path}" + (f" (still mounted: {left}; unmount, then delete it)" if left else ""))
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", required=True, help="a configured and built tree (its CPackConfig.cmake)")
    parser.add_argument("--out", required=True, help="where the .deb, lintian's report and the screenshot go")
    parser.add_argument("--keep-root", action="store_true", help="leave the Debian root for a look afterwards")
    args = parser.parse_args()
    why = preconditions()
    if why:
        log(f"skipped: {why}")
        return SKIP
    started = time.monotonic()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    deb = build_deb(os.path.abspath(args.build_dir), out)
    check_deb(deb, out)
    test_in_root(deb, out, args.keep_root)
    shutil.rmtree(os.path.join(out, "_CPack_Packages"), ignore_errors=True)  # CPack's staging copy
    log(f"passed in {time.monotonic() - started:.0f} s; {deb}, {out}/lintian.txt, {out}/workbench-installed.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
