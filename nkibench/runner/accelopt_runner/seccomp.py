"""The seccomp filter of the eval sandbox, as the classic BPF program bwrap's `--seccomp FD` installs.

An evaluation needs Python, numpy and files; it never needs to debug or read another process, enter or make
namespaces, mount, load kernel code or set clocks. Those calls fail with EPERM, so a kernel that tries learns
nothing from a crash, and calls of another ABI on the same machine (i386 through int 0x80, x32) fail likewise:
their numbers would otherwise slip past a filter written for the native ones.

The numbers are Linux's (x86_64: asm/unistd_64.h; aarch64: asm-generic/unistd.h). A machine of another
architecture gets no filter, and the sandbox check says so (sandbox.bwrap_status).
"""
from __future__ import annotations

import platform
import struct

DENIED = ("ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "setns", "unshare", "mount",
          "umount2", "pivot_root", "chroot", "fsopen", "fsmount", "fsconfig", "move_mount", "open_tree", "fspick",
          "mount_setattr", "kexec_load", "kexec_file_load", "bpf", "init_module", "finit_module", "delete_module",
          "perf_event_open", "keyctl", "add_key", "request_key", "userfaultfd", "reboot", "swapon", "swapoff",
          "open_by_handle_at", "name_to_handle_at", "quotactl", "acct", "settimeofday", "clock_settime",
          "adjtimex", "clock_adjtime", "iopl", "ioperm", "lookup_dcookie", "vhangup")

_X86_64 = {"ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "pidfd_getfd": 438, "setns": 308,
           "unshare": 272, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "fsopen": 430,
           "fsmount": 432, "fsconfig": 431, "move_mount": 429, "open_tree": 428, "fspick": 433,
           "mount_setattr": 442, "kexec_load": 246, "kexec_file_load": 320, "bpf": 321, "init_module": 175,
           "finit_module": 313, "delete_module": 176, "perf_event_open": 298, "keyctl": 250, "add_key": 248,
           "request_key": 249, "userfaultfd": 323, "reboot": 169, "swapon": 167, "swapoff": 168,
           "open_by_handle_at": 304, "name_to_handle_at": 303, "quotactl": 179, "acct": 163, "settimeofday": 164,
           "clock_settime": 227, "adjtimex": 159, "clock_adjtime": 305, "iopl": 172, "ioperm": 173,
           "lookup_dcookie": 212, "vhangup": 153}
_AARCH64 = {"ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "pidfd_getfd": 438, "setns": 268,
            "unshare": 97, "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "fsopen": 430,
            "fsmount": 432, "fsconfig": 431, "move_mount": 429, "open_tree": 428, "fspick": 433,
            "mount_setattr": 442, "kexec_load": 104, "kexec_file_load": 294, "bpf": 280, "init_module": 105,
            "finit_module": 273, "delete_module": 106, "perf_event_open": 241, "keyctl": 219, "add_key": 217,
            "request_key": 218, "userfaultfd": 282, "reboot": 142, "swapon": 224, "swapoff": 225,
            "open_by_handle_at": 265, "name_to_handle_at": 264, "quotactl": 60, "acct": 89, "settimeofday": 170,
            "clock_settime": 112, "adjtimex": 171, "clock_adjtime": 266, "lookup_dcookie": 18, "vhangup": 58}

# machine -> (AUDIT_ARCH_*, syscall table, first number of a foreign ABI sharing the arch value or None)
ARCHES = {"x86_64": (0xC000003E, _X86_64, 0x40000000), "aarch64": (0xC00000B7, _AARCH64, None)}

# classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h)
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_ALLOW = 0x7FFF0000
_ERRNO_EPERM = 0x00050000 | 1
_NR_OFFSET, _ARCH_OFFSET = 0, 4  # struct seccomp_data


def supported(machine: str | None = None) -> bool:
    return (machine or platform.machine()) in ARCHES


def program(machine: str | None = None) -> bytes:
    """The filter as struct sock_filter records (u16 code, u8 jt, u8 jf, u32 k), native byte order."""
    arch, table, foreign_from = ARCHES[machine or platform.machine()]
    numbers = sorted({table[name] for name in DENIED if name in table})
    ins = [(_LD_W_ABS, 0, 0, _ARCH_OFFSET)]
    # the jump offsets count instructions after the jump; every "deny" jump lands on the last instruction
    body = [(_LD_W_ABS, 0, 0, _NR_OFFSET)]
    if foreign_from is not None:
        body.append((_JGE_K, None, 0, foreign_from))
    body += [(_JEQ_K, None, 0, nr) for nr in numbers]
    body.append((_RET_K, 0, 0, _ALLOW))
    ins.append((_JEQ_K, 0, len(body), arch))  # another ABI's arch value: straight to the denial
    ins += body
    ins.append((_RET_K, 0, 0, _ERRNO_EPERM))
    deny_at = len(ins) - 1
    out = bytearray()
    for at, (code, jt, jf, k) in enumerate(ins):
        if jt is None:
            jt = deny_at - at - 1
        out += struct.pack("=HBBI", code, jt, jf, k)
    return bytes(out)
