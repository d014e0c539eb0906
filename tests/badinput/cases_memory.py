"""`accelopt memory import FILE` of broken and hostile exports. A file that is not an export, or holds one bad entry,
is refused whole ("nothing was imported"), naming the entry and the field, exit 1, and the memory database is
byte-identical afterwards; entries over a size limit are rejected one by one (named), the rest added."""
import json

from harness import SEED_EXPERIENCES, Case, Dir, Fifo, SeededMemory, Symlink

MEM = "state/memory.sqlite"
DOC = "work/export.json"
NOTHING = "nothing was imported"


def c(id_, args, exit_, *says, **kw):
    kw.setdefault("absent", (MEM + "-wal", MEM + "-shm"))
    return Case(id="memoryimport/" + id_, args=list(args), exit=exit_, says=tuple(says), **kw)


def imported(id_, content, *says, exit_=1, **kw):
    """Import content into the seeded memory: refused (exit 1), the memory unchanged."""
    files = {MEM: SeededMemory(), **({DOC: content} if content is not None else {})}
    kw.setdefault("quiet_stdout", exit_ == 1)
    return c(id_, ["memory", "import", "{work}/export.json"], exit_, *says, files=files, **kw)


def export(*entries, **top):
    return json.dumps({"format": "accelopt-memory", "version": 1, "experiences": list(entries), **top})


def entry(**fields):
    base = {"task": "silu", "title": "Fuse the scale", "lesson": "One pass over the tile.", "speedup": 1.3}
    base.update(fields)
    return {k: v for k, v in base.items() if v is not ...}


WHERE = "accelopt memory import: {work}/export.json: "
SPEEDUP = "'speedup' must be a positive number (slow latency / fast latency as measured)"

CASES = [
    # ------------------------------------------------------------------------------- not an export at all
    imported("empty-file", b"", WHERE, "not valid JSON", "at byte 0"),
    imported("not-json", b"experiences: [1, 2]", WHERE, "not valid JSON"),
    imported("trailing-comma", export(entry()) [:-1] + ",}", WHERE, "not valid JSON"),
    imported("not-utf8", b'{"format": "accelopt-memory", "title": "caf\xe9"}', WHERE, "not valid JSON"),
    imported("utf16", export(entry()).encode("utf-16"), WHERE, "not valid JSON"),
    imported("nul-bytes", b"\x00\x00\x00", WHERE, "not valid JSON"),
    imported("nested-too-deep", b"[" * 5000 + b"]" * 5000, WHERE, "too deeply nested"),
    imported("top-level-array", json.dumps([entry()]), WHERE, "not an AccelOpt memory export (expected an object "
                                                              "with \"format\": \"accelopt-memory\")"),
    imported("format-missing", json.dumps({"version": 1, "experiences": []}), "not an AccelOpt memory export"),
    imported("format-other", json.dumps({"format": "chrome-trace", "version": 1, "experiences": []}),
             "not an AccelOpt memory export"),
    imported("version-missing", json.dumps({"format": "accelopt-memory", "experiences": []}),
             "the export has no valid \"version\""),
    imported("version-zero", export(version=0), "the export has no valid \"version\""),
    imported("version-string", export(version="1"), "the export has no valid \"version\""),
    imported("version-newer", export(version=2), "the export is format version 2, written by a newer AccelOpt; this "
                                                 "build reads up to version 1"),
    imported("experiences-missing", json.dumps({"format": "accelopt-memory", "version": 1}),
             "the export has no \"experiences\" list"),
    imported("experiences-object", export(experiences={"a": entry()}), "the export has no \"experiences\" list"),

    # ------------------------------------------------------------------------------- one bad entry refuses all
    imported("entry-number", export(7), "entry 1: it is not an object", NOTHING),
    imported("task-missing", export(entry(task=...)), "entry 1 (\"Fuse the scale\"): 'task' must be a non-empty "
                                                      "text", NOTHING),
    imported("title-blank", export(entry(title="   ")), "entry 1: 'title' must be a non-empty text"),
    imported("title-number", export(entry(title=42)), "'title' must be a non-empty text"),
    imported("lesson-missing", export(entry(lesson=...)), "'lesson' must be a non-empty text"),
    imported("speedup-string", export(entry(speedup="1.3x")), SPEEDUP),
    imported("speedup-zero", export(entry(speedup=0)), SPEEDUP),
    imported("speedup-negative", export(entry(speedup=-2)), SPEEDUP),
    imported("speedup-null", export(entry(speedup=None)), SPEEDUP),
    imported("speedup-missing", export(entry(speedup=...)), SPEEDUP),
    imported("kind-unknown", export(entry(kind="meh")), "'kind' must be \"positive\" or \"negative\""),
    imported("kind-contradicts-speedup", export(entry(kind="negative")),
             "'kind' is negative but the speedup 1.3 makes it positive (negative means speedup < 1)"),
    imported("pinned-string", export(entry(pinned="yes")), "'pinned' must be true or false"),
    imported("created-not-a-time", export(entry(created="yesterday")), "'created' must be an ISO 8601 time, not "
                                                                       "'yesterday'"),
    imported("updated-not-a-time", export(entry(updated="2024-13-45T99:00:00Z")), "'updated' must be an ISO 8601 "
                                                                                  "time"),
    imported("target-number", export(entry(target=2)), "'target' must be a text"),
    imported("snippet-array", export(entry(snippet_before=["a", "b"])), "'snippet_before' must be a text"),
    imported("session-id-number", export(entry(session_id=12)), "'session_id' must be a text"),
    imported("third-entry-bad", export(entry(title="a"), entry(title="b"), entry(title="c", speedup=-1)),
             "entry 3 (\"c\"): " + SPEEDUP, NOTHING),

    imported("nul-in-lesson", export(entry(lesson="Fuse\u0000 the scale")),
             "entry 1 (\"Fuse the scale\"): 'lesson' contains a NUL character; an experience's texts are plain text",
             NOTHING),
    imported("nul-in-title", export(entry(), entry(title="cut\u0000here")), "entry 2", "'title' contains a NUL",
             NOTHING),

    # ------------------------------------------------------------------------------- entries over a size limit
    imported("title-over-limit", export(entry(title="T" * 301), entry(title="fine")),
             "entry 1 (\"" + "T" * 60 + "\"): 'title' has 301 characters, over the limit of 300; not imported",
             "imported 1 experiences, skipped 0 already in the memory, rejected 1 over a size limit",
             exit_=0, stream="any", may_change=(MEM,)),
    imported("lesson-over-limit", export(entry(lesson="x" * (16 * 1024 + 1))),
             "'lesson' has 16385 characters, over the limit of 16384", "rejected 1 over a size limit",
             exit_=0, stream="any", may_change=(MEM,)),
    imported("snippet-over-limit", export(entry(snippet_after="y" * (64 * 1024 + 1))),
             "'snippet_after' has 65537 characters, over the limit of 65536", exit_=0, stream="any",
             may_change=(MEM,)),
    imported("only-duplicates", SEED_EXPERIENCES, "imported 0 experiences, skipped 2 already in the memory",
             exit_=0, stream="out"),

    # ------------------------------------------------------------------------------- what the file is
    imported("file-missing", None, "{work}/export.json", exit_=2),
    imported("file-folder", Dir(), "cannot read {work}/export.json", "directory"),
    imported("file-fifo", Fifo(), "{work}/export.json", "not a regular file", timeout=30),
    imported("file-device", Symlink("/dev/zero"), "{work}/export.json", "not a regular file", memory_limit_mb=384),
    c("refused-import-creates-no-database", ["memory", "import", "{work}/export.json", "--memory",
                                             "{work}/new.sqlite"], 1, "not valid JSON",
      files={DOC: b"{"}, absent=("work/new.sqlite",), quiet_stdout=True),
]
