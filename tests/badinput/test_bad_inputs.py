"""The bad-input suite (issue 20): every case in the cases_*.py tables is a wrong input to `accelopt` or to the
runner's protocol, and must get a clear message, the right exit status, and leave every file as it was.
See harness.py for what each case asserts, and README.md for how to add one."""
import collections

import pytest

import harness
import cases_flags
import cases_kernels
import cases_taskjson
import cases_hosts
import cases_llm
import cases_databases
import cases_memory

CLI_MODULES = (cases_flags, cases_kernels, cases_taskjson, cases_hosts, cases_llm, cases_databases, cases_memory)
CLI_CASES = [c for m in CLI_MODULES for c in m.CASES]


def _params(cases):
    """A strict xfail for a case that names a known bug: its fix shows as an XPASS, which fails the run."""
    out = []
    for c in cases:
        marks = [pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else []
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out


@pytest.mark.parametrize("case", _params(CLI_CASES))
def test_cli(case, cli_outcomes):
    outcome = cli_outcomes[case.id]
    if isinstance(outcome, BaseException):
        raise outcome
    harness.check(case, outcome)
