"""accelopt_runner: the host side of the AccelOpt Workbench runner protocol (../README.md).

`python3 -m accelopt_runner serve|eval|probe` (see ../README.md). Python 3 standard library + numpy only.
The package finds nkisim and the tasks relative to its own location (the deployed nkibench/ folder); the
command-line flags --nkibench and --tasks override that.
"""
import os

RUNNER_VERSION = "0.1.0"
PROTOCOL_VERSION = 1

RUNNER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # nkibench/runner
NKIBENCH_DIR = os.path.dirname(RUNNER_DIR)  # nkibench/ (holds nkisim/ and tasks/)
DEFAULT_TASKS_DIR = os.path.join(NKIBENCH_DIR, "tasks")
