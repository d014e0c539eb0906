"""Command lines that are wrong: unknown commands and options, values out of range, missing or extra arguments.
A usage error exits 2 with the option and the accepted values named, prints nothing on stdout, and writes nothing."""
from harness import Case, Dir

K = "{silu}"  # a good kernel: the shipped silu baseline
SMALL = ["--size", "small", "--timing-only"]  # the cheapest evaluation, where one is unavoidable
NO_WORKSPACE = ("state/workspace.sqlite",)
NO_MEMORY = ("state/memory.sqlite",)


def c(id_, args, exit_, *says, **kw):
    return Case(id="flags/" + id_, args=list(args), exit=exit_, says=tuple(says), **kw)


TIMEOUT_RANGE = "--timeout must be a number of seconds from 0.5 to 604800"

CASES = [
    # ------------------------------------------------------------------------------------------------ top level
    c("unknown-command", ["frobnicate"], 2, "unknown command 'frobnicate'", "accelopt --help"),
    c("empty-command", [""], 2, "unknown command ''", "accelopt --help"),
    c("command-in-capitals", ["BENCH"], 2, "unknown command 'BENCH'"),
    c("unknown-top-option", ["--no-such-option"], 2, "no-such-option"),

    # ------------------------------------------------------------------------------------------------ bench
    c("bench-no-kernel", ["bench"], 2, "give exactly one kernel file", "accelopt bench my_silu.py --task silu"),
    c("bench-two-kernels", ["bench", K, K, "--task", "silu"], 2, "give exactly one kernel file"),
    c("bench-no-task", ["bench", K], 2, "--task is required"),
    c("bench-task-without-value", ["bench", K, "--task"], 2, "Missing value after '--task'"),
    c("bench-misspelt-option", ["bench", K, "--tsk", "silu"], 2, "Unknown option 'tsk'"),
    c("bench-jobs-zero", ["bench", K, "--task", "silu", "--jobs", "0"], 2,
      "--jobs must be a whole number from 1 to 64, not '0'"),
    c("bench-jobs-over", ["bench", K, "--task", "silu", "--jobs", "65"], 2, "--jobs must be", "not '65'"),
    c("bench-jobs-word", ["bench", K, "--task", "silu", "--jobs", "many"], 2, "--jobs must be", "not 'many'"),
    c("bench-jobs-fraction", ["bench", K, "--task", "silu", "--jobs", "1.5"], 2, "--jobs must be", "not '1.5'"),
    c("bench-size-huge", ["bench", K, "--task", "silu", "--size", "huge"], 2, "--size must be full or small",
      "not 'huge'"),
    c("bench-size-empty", ["bench", K, "--task", "silu", "--size", ""], 2, "--size must be full or small"),
    c("bench-target-unknown", ["bench", K, "--task", "silu", "--target", "trn9"], 2,
      "--target must be trn1, trn2 or trn3, not 'trn9'"),
    c("bench-target-capitals", ["bench", K, "--task", "silu", "--target", "TRN1"], 2, "not 'TRN1'"),
    c("bench-backend-unknown", ["bench", K, "--task", "silu", "--backend", "gpu"], 2,
      "--backend must be sim or neuron, not 'gpu'"),
    c("bench-backend-empty", ["bench", K, "--task", "silu", "--backend", ""], 2, "--backend must be sim or neuron"),
    c("bench-seeds-negative", ["bench", K, "--task", "silu", "--seeds", "-1"], 2,
      "--seeds takes non-negative whole numbers separated by commas, not '-1'"),
    c("bench-seeds-word", ["bench", K, "--task", "silu", "--seeds", "1,x"], 2, "--seeds", "not '1,x'"),
    c("bench-seeds-fraction", ["bench", K, "--task", "silu", "--seeds", "1.5"], 2, "--seeds", "not '1.5'"),
    c("bench-seeds-overflow", ["bench", K, "--task", "silu", "--seeds", "99999999999"], 2, "--seeds"),
    c("bench-seeds-empty", ["bench", K, "--task", "silu", "--seeds", "", "--size", "small"], 2, "--seeds",
      xfail="`accelopt bench K --task silu --seeds ''` runs the evaluation with fresh random seeds and exits 0; "
            "an empty --seeds should be refused (exit 2, e.g. \"--seeds names no seed\"), as --tasks '' is"),
    c("bench-trace-cap-zero", ["bench", K, "--task", "silu", "--trace", "{work}/t.json", "--trace-cap", "0"], 2,
      "--trace-cap wants a whole number from 1 to 1000000"),
    c("bench-trace-cap-word", ["bench", K, "--task", "silu", "--trace", "{work}/t.json", "--trace-cap", "lots"], 2,
      "--trace-cap"),
    c("bench-trace-cap-over", ["bench", K, "--task", "silu", "--trace", "{work}/t.json", "--trace-cap", "1000001"],
      2, "--trace-cap"),
    c("bench-trace-cap-without-trace", ["bench", K, "--task", "silu", "--trace-cap", "0", *SMALL], 2,
      "--trace-cap",
      xfail="`accelopt bench K --task silu --trace-cap 0` (no --trace) ignores the invalid --trace-cap, runs the "
            "evaluation and exits 0; it should be refused (exit 2) like --trace-cap 0 with --trace, or say that "
            "--trace-cap needs --trace"),
    c("bench-trace-folder-missing", ["bench", K, "--task", "silu", "--trace", "{work}/no/such/t.json"], 2,
      "--trace", "no/such", "does not exist"),
    c("bench-trace-is-a-folder", ["bench", K, "--task", "silu", "--trace", "{work}", *SMALL], 2, "--trace",
      "{work}", quiet_stdout=True,
      xfail="`accelopt bench K --task silu --trace DIR` (DIR an existing folder) runs the evaluation, prints the "
            "table, then fails with 'cannot write the trace DIR: Filename refers to a directory' (exit 1); a "
            "--trace that is a folder should be refused before anything runs (exit 2), as a missing folder is"),
    c("bench-dataset-missing", ["bench", K, "--task", "silu", "--dataset", "{work}/nodata"], 2,
      "--dataset", "nodata", "is not a folder"),
    c("bench-dataset-is-a-file", ["bench", K, "--task", "silu", "--dataset", K], 2, "is not a folder"),
    c("bench-host-unknown", ["bench", K, "--task", "silu", "--host", "nosuch"], 2, "no host named 'nosuch'",
      "accelopt hosts list",
      xfail="`accelopt bench K --task silu --host nosuch` exits 1; a host name that is not configured is a usage "
            "error (exit 2), as `accelopt hosts check nosuch` says"),
    c("bench-task-unknown", ["bench", K, "--task", "no_such_task", "--size", "small"], 2, "no_such_task",
      quiet_stdout=True,
      xfail="`accelopt bench K --task no_such_task` starts a runner, prints an infra_error row and exits 1; an "
            "unknown task is a usage error found before anything runs (exit 2, \"no task 'no_such_task'\"), as "
            "`accelopt optimize --task` and `accelopt suite --tasks` do (tst_cli asserts the 1 today)"),
    *[c(f"bench-timeout-{name}", ["bench", K, "--task", "silu", "--timeout", value], 2, TIMEOUT_RANGE)
      for name, value in (("zero", "0"), ("negative", "-1"), ("nan", "nan"), ("inf", "inf"), ("huge", "1e99"),
                          ("tiny", "0.1"), ("word", "abc"), ("empty", ""), ("unit", "10s"))],

    # ------------------------------------------------------------------------------------------------ suite
    c("suite-positional", ["suite", "silu"], 2, "unexpected argument 'silu'"),
    c("suite-api-unknown", ["suite", "--api", "modern"], 2, "--api must be classic or current, not 'modern'"),
    c("suite-dataset-missing", ["suite", "--dataset", "{work}/nodata"], 2, "--dataset", "is not a folder"),
    c("suite-dataset-is-a-file", ["suite", "--dataset", K], 2, "is not a folder"),
    c("suite-dataset-empty", ["suite", "--dataset", "{work}/ds"], 2, "no tasks found in", "{work}/ds",
      files={"work/ds": Dir()}),
    c("suite-dataset-current-api", ["suite", "--dataset", "{work}/ds", "--api", "current"], 2,
      "classic kernels only", "accelopt port", files={"work/ds": Dir()}),
    c("suite-tasks-empty", ["suite", "--tasks", ""], 2, "--tasks names no task"),
    c("suite-tasks-only-commas", ["suite", "--tasks", ",, ,"], 2, "--tasks names no task"),
    c("suite-tasks-unknown", ["suite", "--tasks", "silu,nope"], 2, "no task 'nope'", "available: ", "silu"),
    c("suite-tasks-path", ["suite", "--tasks", "../tasks/silu"], 2, "no task '../tasks/silu'"),
    c("suite-jobs-over", ["suite", "--tasks", "silu", "--jobs", "100"], 2, "--jobs must be", "not '100'"),
    c("suite-timeout-word", ["suite", "--tasks", "silu", "--timeout", "abc"], 2, TIMEOUT_RANGE),
    c("suite-size-unknown", ["suite", "--tasks", "silu", "--size", "tiny"], 2, "--size must be full or small"),
    c("suite-seeds-word", ["suite", "--tasks", "silu", "--seeds", "one"], 2, "--seeds", "not 'one'"),
    c("suite-target-unknown", ["suite", "--tasks", "silu", "--target", "inf1"], 2, "--target must be"),
    c("suite-host-unknown", ["suite", "--tasks", "silu", "--host", "nosuch"], 2, "no host named 'nosuch'",
      xfail="`accelopt suite --tasks silu --host nosuch` exits 1; an unknown host is a usage error (exit 2), as "
            "`accelopt hosts check nosuch` says"),

    # ------------------------------------------------------------------------------------------------ optimize
    c("optimize-no-task", ["optimize"], 2, "--task is required"),
    c("optimize-positional-task", ["optimize", "silu"], 2, "unexpected argument 'silu'", "--task"),
    c("optimize-task-unknown", ["optimize", "--task", "nosuch"], 2, "no task 'nosuch'", "accelopt suite --help"),
    c("optimize-beam-zero", ["optimize", "--task", "silu", "-B", "0"], 2, "beam width B must be at least 1",
      "(it is 0)"),
    c("optimize-beam-negative", ["optimize", "--task", "silu", "--beam-width", "-1"], 2, "beam width B"),
    c("optimize-iterations-zero", ["optimize", "--task", "silu", "-T", "0"], 2, "iterations T must be at least 1"),
    c("optimize-iterations-word", ["optimize", "--task", "silu", "-T", "many"], 2,
      "-T wants a whole number, not 'many'"),
    c("optimize-plans-word", ["optimize", "--task", "silu", "--plans", "12x"], 2, "whole number", "'12x'"),
    c("optimize-topk-negative", ["optimize", "--task", "silu", "--topk", "-1"], 2, "TopK", "at least 0"),
    c("optimize-patience-negative", ["optimize", "--task", "silu", "--patience", "-3"], 2, "patience P"),
    c("optimize-seed-negative", ["optimize", "--task", "silu", "--seed", "-1"], 2, "seed must be at least 0"),
    c("optimize-gain-below-one", ["optimize", "--task", "silu", "--gain", "0.5"], 2,
      "the gain threshold must be above 1 (it is 0.5)"),
    c("optimize-gain-nan", ["optimize", "--task", "silu", "--gain", "nan"], 2, "gain threshold", "nan"),
    c("optimize-gain-word", ["optimize", "--task", "silu", "--gain", "big"], 2, "--gain wants a number, not 'big'"),
    c("optimize-budget-usd-negative", ["optimize", "--task", "silu", "--budget-usd", "-5"], 2, "money budget"),
    c("optimize-budget-usd-inf", ["optimize", "--task", "silu", "--budget-usd", "inf"], 2, "money budget", "inf"),
    c("optimize-budget-minutes-nan", ["optimize", "--task", "silu", "--budget-minutes", "nan"], 2,
      "wall-time budget"),
    c("optimize-budget-tokens-negative", ["optimize", "--task", "silu", "--budget-tokens", "-1"], 2,
      "token budget"),
    c("optimize-budget-tokens-word", ["optimize", "--task", "silu", "--budget-tokens", "1e6"], 2,
      "--budget-tokens wants a whole number"),
    c("optimize-target-percent-over", ["optimize", "--task", "silu", "--target-percent", "500"], 2,
      "target percent of peak must be between 0 (none) and 100"),
    c("optimize-preset-unknown", ["optimize", "--task", "silu", "--preset", "turbo"], 2,
      "--preset must be one of paper, interactive, not 'turbo'"),
    c("optimize-jobs-zero", ["optimize", "--task", "silu", "--jobs", "0"], 2, "--jobs must be a whole number"),
    c("optimize-llm-config-missing", ["optimize", "--task", "silu", "--llm-config", "{work}/llm.json"], 2,
      "--llm-config", "{work}/llm.json is not a file"),
    c("optimize-llm-config-folder", ["optimize", "--task", "silu", "--llm-config", "{work}"], 2, "is not a file"),
    c("optimize-timeout-huge", ["optimize", "--task", "silu", "--timeout", "1e9"], 2, TIMEOUT_RANGE, "not '1e9'"),
    c("optimize-timeout-zero", ["optimize", "--task", "silu", "--timeout", "0"], 2, TIMEOUT_RANGE),
    c("optimize-size-unknown", ["optimize", "--task", "silu", "--size", "huge"], 2, "--size"),
    c("optimize-backend-unknown", ["optimize", "--task", "silu", "--backend", "tpu"], 2,
      "--backend must be sim or neuron, not 'tpu'"),
    c("optimize-target-unknown", ["optimize", "--task", "silu", "--target", "trn9"], 2, "--target must be"),
    c("optimize-dataset-missing", ["optimize", "--task", "silu", "--dataset", "{work}/nodata"], 2,
      "--dataset", "is not a folder"),
    c("optimize-dataset-no-problem", ["optimize", "--task", "silu", "--dataset", "{work}/ds"], 2,
      "dataset {work}/ds has no reference for problem 'silu'", "--kernel", files={"work/ds": Dir()}),

    # ------------------------------------------------------------------------------------------------ resume
    c("resume-no-session", ["resume"], 2, "give exactly one session id", "accelopt resume 3f2a1b2c"),
    c("resume-two-sessions", ["resume", "abcd", "ef01"], 2, "give exactly one session id"),
    c("resume-jobs-zero", ["resume", "abcd", "--jobs", "0"], 2, "--jobs must be"),
    c("resume-llm-config-missing", ["resume", "abcd", "--llm-config", "{work}/none.json"], 2, "is not a file"),
    c("resume-beam-zero", ["resume", "abcd", "-B", "0"], 2, "beam width B must be at least 1", absent=NO_WORKSPACE,
      xfail="`accelopt resume abcd -B 0` looks the session up first: it creates an empty workspace.sqlite and "
            "exits 1 with \"no session 'abcd'\"; the invalid -B should be refused first (exit 2) and nothing "
            "created"),
    c("resume-preset-unknown", ["resume", "abcd", "--preset", "turbo"], 2, "--preset must be one of",
      absent=NO_WORKSPACE,
      xfail="`accelopt resume abcd --preset turbo` creates an empty workspace.sqlite and exits 1 with \"no session "
            "'abcd'\"; the unknown preset should be refused first (exit 2) and nothing created"),
    c("resume-without-workspace", ["resume", "abcd1234"], 1, "no workspace database", absent=NO_WORKSPACE,
      xfail="`accelopt resume abcd1234` with no workspace database creates an empty workspace.sqlite (and exits 1, "
            "\"no session 'abcd1234'\"); like `sessions show` and `export` it should say there is no workspace "
            "database at PATH and create nothing"),

    # ------------------------------------------------------------------------------------------------ compare
    c("compare-one-kernel", ["compare", K], 2, "give two kernels"),
    c("compare-three-kernels", ["compare", K, K, K], 2, "give two kernels"),
    c("compare-context-negative", ["compare", K, K, "--context", "-1"], 2,
      "--context wants a whole number from 0 to 10000, not '-1'"),
    c("compare-context-word", ["compare", K, K, "--context", "all"], 2, "--context", "not 'all'"),
    c("compare-context-over", ["compare", K, K, "--context", "10001"], 2, "--context"),
    c("compare-neither-file-nor-candidate", ["compare", K, "{work}/fast.py"], 2,
      "{work}/fast.py is not a file, and there is no workspace database", absent=NO_WORKSPACE),
    c("compare-size-unknown", ["compare", K, K, "--task", "silu", "--size", "huge"], 2, "--size must be"),
    c("compare-jobs-zero", ["compare", K, K, "--task", "silu", "--jobs", "0"], 2, "--jobs must be"),

    # ------------------------------------------------------------------------------------------------ export
    c("export-no-session", ["export", "--to", "{work}/out"], 2, "give one session id"),
    c("export-no-to", ["export", "abcd"], 2, "--to DIR is required"),
    c("export-to-empty", ["export", "abcd", "--to", ""], 2, "--to DIR is required"),
    c("export-name-climbs-out", ["export", "abcd", "--to", "{work}/out", "--name", "../escape.py"], 2,
      "--name takes a file name such as fast_silu.py, not '../escape.py'"),
    c("export-name-has-folder", ["export", "abcd", "--to", "{work}/out", "--name", "a/b.py"], 2,
      "--name takes a file name", "put the folder in --to"),
    c("export-name-empty", ["export", "abcd", "--to", "{work}/out", "--name", ""], 2, "--name takes a file name"),
    c("export-unknown-option", ["export", "abcd", "--to", "{work}/out", "--bogus"], 2, "Unknown option 'bogus'"),
    c("export-without-workspace", ["export", "abcd", "--to", "{work}/out"], 1,
      "no workspace database at {state}/workspace.sqlite", "--db PATH", absent=NO_WORKSPACE,
      quiet_stdout=True),
    c("export-db-missing", ["export", "abcd", "--to", "{work}/out", "--db", "{work}/typo.sqlite"], 1,
      "no workspace database at {work}/typo.sqlite", quiet_stdout=True),

    # ------------------------------------------------------------------------------------------------ port
    c("port-no-kernel", ["port"], 2, "give exactly one kernel file"),
    c("port-no-task", ["port", K], 2, "--task is required"),
    c("port-size-unknown", ["port", K, "--task", "silu", "--size", "huge"], 2, "--size must be small or full"),
    c("port-seeds-word", ["port", K, "--task", "silu", "--seeds", "x", "--out", "{work}/o.py"], 2,
      "--seeds takes non-negative whole numbers"),
    c("port-out-exists", ["port", "{work}/k.py", "--task", "silu"], 2, "k_current.py exists",
      "give --out a new file name", files={"work/k.py": b"# classic\n", "work/k_current.py": b"# mine\n"}),
    c("port-out-folder-missing", ["port", K, "--task", "silu", "--out", "{work}/no/dir/x.py"], 2,
      "--out", "the folder does not exist"),
    c("port-candidate-missing", ["port", K, "--task", "silu", "--candidate", "{work}/none.py", "--out",
                                 "{work}/o.py"], 2, "--candidate", "{work}/none.py does not exist"),
    c("port-kernel-missing", ["port", "{work}/none.py", "--task", "silu"], 2, "{work}/none.py does not exist"),

    # ------------------------------------------------------------------------------------------ subcommands
    c("hosts-no-subcommand", ["hosts"], 2, "list", "add", "check", "remove",
      xfail="`accelopt hosts` (no subcommand) prints its usage on stdout and exits 2; a usage error's text belongs "
            "on stderr (stdout empty), as for an unknown subcommand"),
    c("hosts-unknown-subcommand", ["hosts", "frob"], 2, "unknown subcommand 'frob' (list, add, check, remove)"),
    c("hosts-list-extra-argument", ["hosts", "list", "extra"], 2, "extra",
      xfail="`accelopt hosts list extra` ignores the stray argument and exits 0; it should be refused (exit 2)"),
    c("hosts-list-unknown-option", ["hosts", "list", "--all"], 2, "Unknown option 'all'"),
    c("hosts-add-no-name", ["hosts", "add"], 2, "give one host name",
      "accelopt hosts add trn1-dev --ssh trn1-dev"),
    c("hosts-add-no-kind", ["hosts", "add", "x"], 2, "give exactly one of --ssh HOST, --slurm HEAD or --local"),
    c("hosts-add-two-kinds", ["hosts", "add", "x", "--ssh", "box", "--local"], 2, "give exactly one of"),
    c("hosts-add-bad-name", ["hosts", "add", "bad name!", "--local"], 2, "host name 'bad name!' must be 1-64"),
    c("hosts-add-name-too-long", ["hosts", "add", "x" * 65, "--local"], 2, "must be 1-64 letters"),
    c("hosts-add-name-dash", ["hosts", "add", "-x", "--local"], 2, "Unknown option 'x'"),
    c("hosts-add-builtin-name", ["hosts", "add", "local", "--local"], 2, "'local' is the built-in host",
      xfail="`accelopt hosts add local --local` exits 1; the reserved name is a usage error (exit 2) like any "
            "other invalid host name ('bad name!' exits 2)"),
    c("hosts-add-slots-zero", ["hosts", "add", "x", "--local", "--slots", "0"], 2, "slots must be between 1 and 256"),
    c("hosts-add-slots-word", ["hosts", "add", "x", "--local", "--slots", "two"], 2, "slots must be"),
    c("hosts-add-weight-zero", ["hosts", "add", "x", "--local", "--weight", "0"], 2,
      "weight must be a number above 0"),
    c("hosts-add-env-no-equals", ["hosts", "add", "x", "--local", "--env", "A"], 2,
      "--env takes KEY=VALUE, not 'A'"),
    c("hosts-add-env-no-key", ["hosts", "add", "x", "--local", "--env", "=1"], 2, "--env takes KEY=VALUE"),
    c("hosts-add-backend-unknown", ["hosts", "add", "x", "--local", "--backend", "gpu"], 2,
      "backend must be 'sim' or 'neuron', not 'gpu'"),
    c("hosts-add-target-unknown", ["hosts", "add", "x", "--local", "--target", "trn9"], 2, "target must be"),
    c("hosts-add-port-word", ["hosts", "add", "x", "--ssh", "h", "--port", "abc"], 2,
      "--port must be a whole number from 1 to 65535, not 'abc'"),
    c("hosts-add-port-over", ["hosts", "add", "x", "--ssh", "h", "--port", "70000"], 2, "--port must be"),
    c("hosts-add-ssh-empty", ["hosts", "add", "x", "--ssh", ""], 2, "needs ssh_host"),
    c("hosts-add-ssh-option-injection", ["hosts", "add", "x", "--ssh", "-oProxyCommand=touch_pwned"], 2,
      "-oProxyCommand=touch_pwned", "must not start with '-'",
      xfail="`accelopt hosts add x --ssh -oProxyCommand=touch_pwned` is accepted and saved; an SSH host that "
            "starts with '-' (or holds spaces) should be refused (exit 2), as the SLURM fields are"),
    c("hosts-add-ssh-with-space", ["hosts", "add", "x", "--ssh", "trn box"], 2, "trn box",
      xfail="`accelopt hosts add x --ssh 'trn box'` is accepted and saved; a host name with a space is no SSH "
            "host and should be refused (exit 2)"),
    c("hosts-add-partition-not-slurm", ["hosts", "add", "x", "--ssh", "box", "--partition", "trn"], 2,
      "--partition is for a SLURM host"),
    c("hosts-add-slurm-option-value", ["hosts", "add", "x", "--slurm", "local", "--partition=-A"], 2,
      "must not start with '-'"),
    c("hosts-add-slurm-nodes-over", ["hosts", "add", "x", "--slurm", "local", "--nodes", "5000"], 2,
      "nodes must be between 1 and 1024"),
    c("hosts-add-slurm-time-space", ["hosts", "add", "x", "--slurm", "local", "--time", "1 day"], 2,
      "time_limit '1 day' must not start with '-' or hold spaces"),
    c("hosts-add-slurm-slots-times-nodes", ["hosts", "add", "x", "--slurm", "local", "--slots", "256", "--nodes",
                                            "17"], 2, "slots x nodes must be at most 4096"),
    c("hosts-remove-no-name", ["hosts", "remove"], 2, "give one host name"),
    c("hosts-remove-unknown", ["hosts", "remove", "nosuch"], 2, "no host named 'nosuch'",
      xfail="`accelopt hosts remove nosuch` exits 1 while `accelopt hosts check nosuch` exits 2 for the same "
            "unknown name; a name that is not configured is a usage error (exit 2)"),
    c("hosts-remove-builtin", ["hosts", "remove", "local"], 1, "the built-in host 'local' cannot be removed"),
    c("hosts-check-no-name", ["hosts", "check"], 2, "give one host name"),
    c("hosts-check-unknown", ["hosts", "check", "nosuch"], 2, "no host named 'nosuch'"),

    c("memory-no-subcommand", ["memory"], 2, "list", "import"),
    c("memory-unknown-subcommand", ["memory", "frob"], 2, "unknown subcommand 'frob'"),
    c("memory-show-no-id", ["memory", "show"], 2, "give one experience id", "accelopt memory list"),
    c("memory-show-word-id", ["memory", "show", "abc"], 2, "give one experience id"),
    c("memory-show-two-ids", ["memory", "show", "1", "2"], 2, "give one experience id"),
    c("memory-show-id-overflow", ["memory", "show", "99999999999999999999"], 2, "give one experience id"),
    c("memory-pin-no-id", ["memory", "pin"], 2, "give one experience id"),
    c("memory-delete-word-id", ["memory", "delete", "all"], 2, "give one experience id"),
    c("memory-search-no-words", ["memory", "search"], 2, "give the words to search for"),
    c("memory-import-no-file", ["memory", "import"], 2, "give one file to import"),
    c("memory-import-two-files", ["memory", "import", "a.json", "b.json"], 2, "give one file to import"),
    c("memory-list-limit-word", ["memory", "list", "--limit", "abc"], 2, "--limit", absent=NO_MEMORY),
    c("memory-list-extra-argument", ["memory", "list", "extra"], 2, "extra", absent=NO_MEMORY),
    c("memory-list-unknown-option", ["memory", "list", "--everything"], 2, "Unknown option 'everything'"),

    c("sessions-no-subcommand", ["sessions"], 2, "list", "show",
      xfail="`accelopt sessions` (no subcommand) prints its usage on stdout and exits 2; a usage error's text "
            "belongs on stderr"),
    c("sessions-unknown-subcommand", ["sessions", "frob"], 2, "unknown subcommand 'frob' (list, show)"),
    c("sessions-show-no-id", ["sessions", "show"], 2, "give one session id"),
    c("sessions-show-without-workspace", ["sessions", "show", "abcd"], 1, "no workspace database at",
      absent=NO_WORKSPACE, quiet_stdout=True),

    c("models-no-subcommand", ["models"], 2, "list", "presets", "test"),
    c("models-unknown-subcommand", ["models", "frob"], 2, "unknown subcommand 'frob' (list, presets, test)"),
    c("models-presets-unknown-option", ["models", "presets", "--bogus"], 2, "bogus"),
    c("models-list-unknown-option", ["models", "list", "--verbose"], 2, "Unknown option 'verbose'"),
    c("models-test-attempts-zero", ["models", "test", "--attempts", "0"], 2, "--attempts wants a positive number"),
]
