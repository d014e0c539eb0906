"""hosts.json files that cannot be read as hosts: every command that reads the file refuses it naming the file (and
the entry and field where there is one), exits 1, and never rewrites it ("fix or move it, it was left untouched")."""
import json

from harness import Big, Case, Dir, Fifo, ReadOnly, Symlink

HOSTS = "state/hosts.json"
UNTOUCHED = "it was left untouched"


def c(id_, args, exit_, *says, **kw):
    return Case(id="hostsjson/" + id_, args=list(args), exit=exit_, says=tuple(says), **kw)


def entry(**fields):
    return json.dumps({"version": 1, "hosts": [{"name": "trn", **fields}]})


def listed(id_, content, *says, **kw):
    """`accelopt hosts list` over a bad hosts.json."""
    return c(id_, ["hosts", "list"], 1, "accelopt hosts list: ", *says, files={HOSTS: content}, quiet_stdout=True,
             **kw)


CASES = [
    listed("unterminated", '{"version": 1, "hosts": [', "the hosts file {state}/hosts.json is not valid JSON",
           "at byte 25", "unterminated array", "fix or move it", UNTOUCHED),
    listed("empty-file", b"", "is not valid JSON (at byte 0"),
    listed("only-whitespace", b"\n  \n", "is not valid JSON"),
    listed("trailing-garbage", '{"version": 1, "hosts": []} x', "garbage at the end of the document"),
    listed("not-utf8", b'{"version": 1, "hosts": [{"name": "caf\xe9"}]}', "is not valid JSON"),
    listed("array", "[]", "must hold an object {\"version\": 1, \"hosts\": [...]}, not an array"),
    listed("string", '"trn"', "is not valid JSON"),
    listed("number", "1", "{state}/hosts.json", regex=r"not (a single value|valid JSON)"),
    listed("no-version", '{"hosts": []}', "has version (none); this build reads version 1"),
    listed("newer-version", '{"version": 2, "hosts": []}', "has version 2; this build reads version 1"),
    listed("version-string", '{"version": "1", "hosts": []}', "has version \"1\""),
    listed("version-fraction", '{"version": 1.5, "hosts": []}', "has version 1.5"),
    listed("hosts-object", '{"version": 1, "hosts": {"trn": {}}}', "\"hosts\" must be an array of host entries"),
    listed("entry-number", '{"version": 1, "hosts": [7]}', "{state}/hosts.json, entry 1: a host entry must be an "
                                                           "object"),
    listed("entry-without-name", '{"version": 1, "hosts": [{}]}', "entry 1: host name '' must be 1-64 letters"),
    listed("name-with-space", entry(name="my trn"), "host name 'my trn' must be 1-64"),
    listed("kind-unknown", entry(kind="ftp"), "entry 1: host trn: kind must be 'local', 'ssh' or 'slurm', not 'ftp'"),
    listed("ssh-without-host", entry(kind="ssh"), "host trn: an ssh host needs ssh_host"),
    listed("slots-string", entry(slots="2"), "host trn: 'slots' must be a whole number, not \"2\""),
    listed("slots-fraction", entry(slots=2.5), "'slots' must be a whole number, not 2.5"),
    listed("slots-zero", entry(slots=0), "host trn: slots must be between 1 and 256"),
    listed("slots-huge", entry(slots=100000), "slots must be between 1 and 256"),
    listed("weight-zero", entry(weight=0), "weight must be a number above 0 and at most 1000"),
    listed("weight-string", entry(weight="heavy"), "'weight' must be a number, not \"heavy\""),
    listed("weight-overflow", '{"version": 1, "hosts": [{"name": "trn", "weight": 1e999}]}', "illegal number"),
    listed("nodes-zero", entry(kind="slurm", nodes=0), "nodes must be between 1 and 1024"),
    listed("port-out-of-range", entry(kind="ssh", ssh_host="box", port=70000), "host trn: port 70000 is out of "
                                                                              "range"),
    listed("env-not-strings", entry(env={"OMP_NUM_THREADS": 4}), "'env' must be an object of NAME: \"value\" "
                                                                "strings"),
    listed("env-array", entry(env=["A=1"]), "'env' must be an object"),
    listed("python-number", entry(python=3), "'python' must be a string, not 3"),
    listed("backend-unknown", entry(backend="gpu"), "backend must be 'sim' or 'neuron', not 'gpu'"),
    listed("target-unknown", entry(target="trn9"), "target must be trn1, trn2 or trn3, not 'trn9'"),
    listed("slurm-partition-option", entry(kind="slurm", partition="-A evil"),
           "partition '-A evil' must not start with '-' or hold spaces"),
    listed("slurm-too-many-slots", entry(kind="slurm", slots=256, nodes=100), "slots x nodes must be at most 4096"),
    listed("duplicate-name", json.dumps({"version": 1, "hosts": [{"name": "a"}, {"name": "a"}]}),
           "entry 2: a second host named 'a'"),
    listed("named-local", json.dumps({"version": 1, "hosts": [{"name": "local"}]}),
           "'local' is the built-in host's name; rename the entry"),
    listed("folder", Dir(), "the hosts file {state}/hosts.json is not a regular file", UNTOUCHED),
    listed("fifo", Fifo(), "the hosts file {state}/hosts.json is not a regular file"),
    listed("device", Symlink("/dev/zero"), "is not a regular file"),
    listed("over-4mib", Big(5 * 1024 * 1024, line=b" " * 99 + b"\n"), "is 5.0 MiB, more than a hosts file may be "
                                                                       "(4 MiB)"),

    # ------------------------------------------------------------- the other readers, and the writers
    c("add-over-corrupt", ["hosts", "add", "other", "--ssh", "box"], 1, "is not valid JSON", UNTOUCHED,
      files={HOSTS: '{"version": 1, "hosts": ['}),
    c("add-over-newer", ["hosts", "add", "other", "--local"], 1, "has version 2; this build reads version 1",
      files={HOSTS: json.dumps({"version": 2, "hosts": [{"name": "future", "kind": "quantum"}]})}),
    c("add-over-bad-entry", ["hosts", "add", "other", "--local"], 1, "entry 1: host trn: kind must be",
      files={HOSTS: entry(kind="ftp")}),
    c("add-over-folder", ["hosts", "add", "other", "--local"], 1, "is not a regular file", files={HOSTS: Dir()}),
    c("add-over-fifo", ["hosts", "add", "other", "--local"], 1, "is not a regular file", files={HOSTS: Fifo()}),
    c("add-read-only", ["hosts", "add", "other", "--local"], 1, "cannot write {state}/hosts.json",
      files={HOSTS: ReadOnly(entry())}),
    c("remove-from-corrupt", ["hosts", "remove", "trn"], 1, "is not valid JSON", UNTOUCHED,
      files={HOSTS: '{"version": 1, "hosts": [{"name": "trn"}'}),
    c("remove-from-newer", ["hosts", "remove", "trn"], 1, "has version 3", files={HOSTS: '{"version": 3}'}),
    c("check-with-corrupt", ["hosts", "check", "trn"], 1, "accelopt hosts check: ", "is not valid JSON",
      files={HOSTS: "{"}),
    c("bench-with-corrupt", ["bench", "{silu}", "--task", "silu", "--host", "trn"], 1, "accelopt bench: ",
      "{state}/hosts.json", "is not valid JSON", files={HOSTS: "{"}),
    c("bench-local-with-corrupt", ["bench", "{silu}", "--task", "silu"], 1, "{state}/hosts.json",
      files={HOSTS: '{"version": 1, "hosts": 5}'}),
    c("suite-with-bad-entry", ["suite", "--tasks", "silu", "--host", "trn"], 1, "accelopt suite: ",
      "entry 1: host trn: slots must be between 1 and 256", files={HOSTS: entry(slots=0)}),
    c("compare-with-corrupt", ["compare", "{silu}", "{silu}", "--task", "silu"], 1, "accelopt compare: ",
      "is not valid JSON", files={HOSTS: "]"}),
    c("port-with-corrupt", ["port", "{silu}", "--task", "silu", "--out", "{work}/o.py"], 1, "accelopt port: ",
      "is not valid JSON", files={HOSTS: "]"}),
]
