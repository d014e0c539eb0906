"""Workspace and memory databases that are not what they should be: text, another application's SQLite file, the
other AccelOpt database, a newer schema, truncated or damaged pages, a folder, a pipe, a device, read-only. Every
command refuses them naming the file and why ("... it was left untouched"), exits 1, and changes no byte of it."""
from harness import (MEMORY_APP_ID, WORKSPACE_APP_ID, Case, Damaged, Dir, Fifo, ReadOnly, SeededMemory, Sqlite,
                     Symlink)

MEM = "state/memory.sqlite"
WS = "state/workspace.sqlite"
REFUSED = "it was left untouched"
NOT_MEMORY = "{state}/memory.sqlite is not an AccelOpt memory database or is damaged"
NOT_WORKSPACE = "{state}/workspace.sqlite is not an AccelOpt workspace database or is damaged"
NEWER = "was written by a newer AccelOpt"
SIDE_FILES = (MEM + "-wal", MEM + "-shm", WS + "-wal", WS + "-shm")

TEXT = b"this is not a database\n" * 200
FOREIGN = Sqlite(app_id=0x12345678, version=1, sql=("CREATE TABLE t(x)",))
PLAIN = Sqlite(app_id=0, version=0, sql=("CREATE TABLE notes(x)", "INSERT INTO notes VALUES (1)"))
MEMORY_NEWER = Sqlite(app_id=MEMORY_APP_ID, version=999, sql=("CREATE TABLE future(x)",))
WORKSPACE_NEWER = Sqlite(app_id=WORKSPACE_APP_ID, version=999, sql=("CREATE TABLE future(x)",))
AS_WORKSPACE = Sqlite(app_id=WORKSPACE_APP_ID, version=4, sql=("CREATE TABLE sessions(id)",))
AS_MEMORY = Sqlite(app_id=MEMORY_APP_ID, version=3, sql=("CREATE TABLE experiences(id)",))
# the right application id and schema version, and none of the tables: a damaged schema
MEMORY_HOLLOW = Sqlite(app_id=MEMORY_APP_ID, version=3, sql=("CREATE TABLE scratch(x)",))
WORKSPACE_HOLLOW = Sqlite(app_id=WORKSPACE_APP_ID, version=5, sql=("CREATE TABLE scratch(x)",))


def c(id_, args, exit_, *says, **kw):
    kw.setdefault("absent", SIDE_FILES)
    kw.setdefault("quiet_stdout", True)
    return Case(id="databases/" + id_, args=list(args), exit=exit_, says=tuple(says), **kw)


def memory(id_, sub, content, *says, exit_=1, **kw):
    """`accelopt memory SUB` over a bad memory database."""
    return c(id_, ["memory", *sub], exit_, f"accelopt memory {sub[0]}: ", *says, files={MEM: content, **kw.pop(
        "files", {})}, **kw)


def workspace(id_, args, content, *says, exit_=1, **kw):
    return c(id_, args, exit_, *says, files={WS: content, **kw.pop("files", {})}, **kw)


CASES = [
    # --------------------------------------------------------------------------------------------- memory
    memory("memory-text", ["list"], TEXT, NOT_MEMORY, "it is not an SQLite database", REFUSED),
    memory("memory-foreign", ["list"], FOREIGN, NOT_MEMORY, "the database of another application "
                                                            "(application id 0x12345678)"),
    memory("memory-plain-sqlite", ["search", "tiles"], PLAIN, NOT_MEMORY, "application id 0x00000000"),
    memory("memory-is-a-workspace", ["list"], AS_WORKSPACE, NOT_MEMORY, "it is an AccelOpt workspace database"),
    memory("memory-newer", ["list"], MEMORY_NEWER, "{state}/memory.sqlite " + NEWER,
           "(memory schema version 999; this build knows up to", "Update AccelOpt or choose another file"),
    memory("memory-truncated", ["show", "1"], Damaged("truncate"), NOT_MEMORY, "it is truncated"),
    memory("memory-header-damaged", ["list"], Damaged("header"), NOT_MEMORY, "its header is damaged"),
    memory("memory-pages-damaged", ["list"], Damaged("pages"), NOT_MEMORY, "SQLite's integrity check failed"),
    memory("memory-folder", ["list"], Dir(), "{state}/memory.sqlite is a folder, not a database file"),
    memory("memory-symlink-to-folder", ["list"], Symlink("{work}"), "is a folder, not a database file"),
    memory("memory-pin-newer", ["pin", "1"], MEMORY_NEWER, NEWER),
    memory("memory-delete-damaged", ["delete", "1"], Damaged("pages"), NOT_MEMORY),
    memory("memory-export-foreign", ["export", "{work}/out.json"], FOREIGN, NOT_MEMORY,
           absent=SIDE_FILES + ("work/out.json",)),
    memory("memory-import-into-newer", ["import", "{work}/seed.json"], MEMORY_NEWER, NEWER,
           files={"work/seed.json": b'{"format": "accelopt-memory", "version": 1, "experiences": []}'}),
    memory("memory-import-into-text", ["import", "{work}/seed.json"], TEXT, NOT_MEMORY,
           files={"work/seed.json": b'{"format": "accelopt-memory", "version": 1, "experiences": []}'}),
    memory("memory-option-points-at-workspace", ["list", "--memory", "{state}/ws.sqlite"], SeededMemory(),
           "{state}/ws.sqlite is not an AccelOpt memory database", "it is an AccelOpt workspace database",
           files={"state/ws.sqlite": AS_WORKSPACE}),
    memory("memory-fifo", ["list"], Fifo(), "{state}/memory.sqlite", "not a regular file", timeout=30),
    memory("memory-device", ["list"], Symlink("/dev/zero"), "{state}/memory.sqlite", "not a regular file"),
    memory("memory-hollow-schema", ["list"], MEMORY_HOLLOW, NOT_MEMORY, REFUSED),
    memory("memory-read-only-pin", ["pin", "1"], ReadOnly(SeededMemory()), "{state}/memory.sqlite is read-only "
           "(the file is not writable), so it cannot be changed; it was left untouched. Make it writable",
           regex=r"\A(?![\s\S]*^accelopt\.memory: )"),
    c("memory-read-only-list", ["memory", "list"], 0, "Overlap loads with affine_range", stream="out",
      quiet_stdout=False, files={MEM: ReadOnly(SeededMemory())}),
    c("memory-in-read-only-folder", ["memory", "list"], 0, "Overlap loads with affine_range", stream="out",
      quiet_stdout=False, files={"state": ReadOnly(Dir({"memory.sqlite": SeededMemory()}))}),
    c("memory-in-read-only-folder-pin", ["memory", "pin", "1"], 1, "accelopt memory pin: ",
      "{state}/memory.sqlite is read-only (its folder {state} is not writable)",
      files={"state": ReadOnly(Dir({"memory.sqlite": SeededMemory()}))}),
    # objects AccelOpt did not create run inside its own writes: refused, named, the file untouched (issue 33);
    # its own FTS5 shadow tables and triggers are not among them (every healthy memory case shows that)
    memory("memory-planted-trigger", ["list"], SeededMemory(plant=(
        "CREATE TRIGGER wipe AFTER INSERT ON experiences BEGIN DELETE FROM experiences; END",)),
           "{state}/memory.sqlite holds what AccelOpt did not put there: trigger 'wipe' on table experiences",
           REFUSED),
    memory("memory-planted-view-table-index", ["pin", "1"], SeededMemory(plant=(
        "CREATE VIEW everything AS SELECT * FROM experiences", "CREATE TABLE notes(x)",
        "CREATE INDEX by_lesson ON experiences(lesson)")),
           "view 'everything'", "table 'notes'", "index 'by_lesson' on table experiences", REFUSED),
    c("memory-list-missing-path", ["memory", "list", "--memory", "{work}/typo/memory.sqlite"], 0, "the memory is empty",
      stream="out", quiet_stdout=False, absent=("work/typo",)),
    c("memory-export-missing-path", ["memory", "export", "--memory", "{work}/none.sqlite"], 0, stream="out",
      quiet_stdout=False, absent=("work/none.sqlite",)),
    memory("memory-error-said-once", ["list"], FOREIGN, NOT_MEMORY,
           regex=r"\A(?![\s\S]*^accelopt\.memory: )"),

    # --------------------------------------------------------------------------------------------- workspace
    workspace("workspace-text-sessions-list", ["sessions", "list"], TEXT, NOT_WORKSPACE, "it is not an SQLite "
                                                                                         "database", REFUSED),
    workspace("workspace-is-a-memory", ["sessions", "list"], AS_MEMORY, NOT_WORKSPACE,
              "it is an AccelOpt memory database"),
    workspace("workspace-newer-sessions-show", ["sessions", "show", "abcd"], WORKSPACE_NEWER,
              "{state}/workspace.sqlite " + NEWER, "workspace schema version 999"),
    workspace("workspace-foreign-export", ["export", "abcd", "--to", "{work}/out"], FOREIGN, NOT_WORKSPACE,
              "application id 0x12345678", absent=SIDE_FILES + ("work/out",)),
    workspace("workspace-truncated-export", ["export", "abcd", "--to", "{work}/out"], Damaged("truncate",
                                                                                              WORKSPACE_APP_ID),
              NOT_WORKSPACE, "it is truncated"),
    workspace("workspace-pages-resume", ["resume", "abcd"], Damaged("pages", WORKSPACE_APP_ID),
              "accelopt resume: cannot open the workspace database: ", NOT_WORKSPACE),
    workspace("workspace-newer-resume", ["resume", "abcd"], WORKSPACE_NEWER, NEWER),
    workspace("workspace-text-optimize", ["optimize", "--task", "silu"], TEXT,
              "accelopt optimize: cannot open the workspace database: ", NOT_WORKSPACE,
              absent=SIDE_FILES + ("state/memory.sqlite",)),
    workspace("workspace-folder-export", ["export", "abcd", "--to", "{work}/out"], Dir(),
              "{state}/workspace.sqlite is a folder, not a database file"),
    c("workspace-db-option-is-a-memory", ["export", "abcd", "--to", "{work}/out", "--db", "{state}/m.sqlite"], 1,
      "{state}/m.sqlite is not an AccelOpt workspace database", "it is an AccelOpt memory database",
      files={"state/m.sqlite": SeededMemory()}),
    workspace("workspace-error-said-once", ["sessions", "list"], FOREIGN, NOT_WORKSPACE,
              regex=r"\A(?![\s\S]*^accelopt\.store: )"),
    workspace("workspace-hollow-schema", ["sessions", "list"], WORKSPACE_HOLLOW, NOT_WORKSPACE, REFUSED),
    workspace("workspace-compare-damaged", ["compare", "abcd", "{silu}"], Damaged("pages", WORKSPACE_APP_ID),
              NOT_WORKSPACE),
    workspace("workspace-fifo", ["sessions", "list"], Fifo(), "{state}/workspace.sqlite", "not a regular file",
              timeout=30),
    c("optimize-memory-damaged", ["optimize", "--task", "silu"], 1,
      "accelopt optimize: cannot open the optimization memory: ", NOT_MEMORY, "--no-memory",
      files={MEM: TEXT}, creates=(r"state/workspace\.sqlite",), absent=(MEM + "-wal",)),
    c("optimize-refused-creates-no-database", ["optimize", "--task", "silu"], 1, "no model endpoints are configured",
      absent=(WS, MEM)),
]
