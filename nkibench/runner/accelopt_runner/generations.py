"""Which NKI generation a kernel is written against, and whether this host's Neuron SDK takes it (routing of the
neuron backend; ../README.md, *Neuron SDK generations*).

A kernel's imports decide, by nkisim's own rule (nkisim/current/generation.py: `neuronxcc.nki*` is classic, `nki` /
`nki.*` is current). A kernel with no NKI import that uses nl./nisa./nki./np. gets the original harness's classic
import header (backend_sim.add_header), so it is classic. The sim backend accepts both generations; the neuron backend
only those in the host's `generations` (neuron_sdk.py), and refuses the other with a compile_error that offers the
port, before any child is started."""
from __future__ import annotations

import ast

from .backend_sim import add_header

CLASSIC, CURRENT = "classic", "current"
LABEL = {CLASSIC: "the classic neuronxcc.nki API", CURRENT: "the current nki API"}


def _of_module_name(name: str):
    try:
        from nkisim.current.generation import of_module_name
    except ImportError:  # nkisim not importable: the same rule, spelled out
        if name == "neuronxcc" or name.startswith("neuronxcc."):
            return CLASSIC
        return CURRENT if name == "nki" or name.startswith("nki.") else None
    return of_module_name(name)


def of_source(source: str, tree=None) -> dict:
    """{"generation": "classic"|"current"|None, "imports": {generation: first module imported},
    "mixed": bool}. Looks at every import statement, wherever it is (generated kernels import inside the body)."""
    if tree is None:
        tree = ast.parse(source)
    seen = {}
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        for n in names:
            g = _of_module_name(n)
            if g is not None:
                seen.setdefault(g, n)
    if not seen and add_header(source)[1]:
        seen[CLASSIC] = "neuronxcc.nki (the import header the runner prepends)"
    gen = next(iter(seen)) if len(seen) == 1 else None
    return {"generation": gen, "imports": seen, "mixed": len(seen) > 1}


def _sdk_words(info: dict) -> str:
    rel = info.get("sdk_release")
    cur = (info.get("nki_current") or {}).get("version")
    cc = info.get("neuronx_cc")
    if rel and not rel.startswith("<="):
        return f"Neuron SDK {rel}" + (f" (NKI {cur})" if cur else "")
    if rel:
        return f"Neuron SDK {rel.replace('<=', '')} or older (neuronx-cc {cc}, no nki package)"
    return f"Neuron SDK (neuronx-cc {cc}" + (f", NKI {cur}" if cur else "") + ", release unknown)"


def refusal(gen: str, info: dict):
    """None when the host takes a kernel of generation gen, else the compile_error text that says why and what to
    do (the port for a classic kernel on a current-only SDK)."""
    accepted = info.get("generations") or []
    if gen is None or gen in accepted:
        return None
    why = (info.get("generation_notes") or {}).get(gen, "")
    sdk = _sdk_words(info)
    if gen == CLASSIC:
        rel = info.get("sdk_release")
        why = "importing neuronxcc.nki is a compile error since Neuron SDK 2.30" if rel else why
        return (f"this host's {sdk} no longer accepts the classic neuronxcc.nki API"
                + (f" ({why})" if why else "") +
                "; port the kernel to the current API (accelopt port KERNEL --task T, or Port to Current NKI in the "
                "workbench), or evaluate it on the sim backend, which takes both generations")
    return (f"this host's {sdk} has only the classic neuronxcc.nki API and the kernel is written against the "
            f"current nki API (Neuron SDK 2.27 and later)" +
            "; evaluate it on a host with Neuron SDK 2.27 or later (upgrade this host's SDK), or on the sim backend, "
            "which takes both generations")


def note(gen: str, info: dict):
    """A warning for a kernel the host accepts under a caveat (classic on SDK 2.28/2.29), else None."""
    why = (info.get("generation_notes") or {}).get(gen)
    if gen in (info.get("generations") or []) and why:
        return f"generation: {why}"
    return None
