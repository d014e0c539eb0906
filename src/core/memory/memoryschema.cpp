#include "memory/memoryschema.h"

DatabaseSchema MemorySchema::schema()
{
    DatabaseSchema s;
    s.kind = QStringLiteral("memory");
    s.applicationId = DatabaseSchema::memoryApplicationId;
    s.coreTables = {QStringLiteral("experiences")};
    s.steps.append(MigrationStep{
        1,
        QStringLiteral("experiences with a full-text index"),
        {QStringLiteral(R"(CREATE TABLE experiences (
             id INTEGER PRIMARY KEY,
             kind TEXT NOT NULL CHECK (kind IN ('positive', 'negative')),
             task TEXT NOT NULL,
             target TEXT NOT NULL DEFAULT '',
             speedup REAL NOT NULL CHECK (speedup > 0),
             title TEXT NOT NULL,
             lesson TEXT NOT NULL,
             snippet_before TEXT NOT NULL DEFAULT '',
             snippet_after TEXT NOT NULL DEFAULT '',
             slow_candidate_id TEXT NOT NULL DEFAULT '',
             fast_candidate_id TEXT NOT NULL DEFAULT '',
             slow_hash TEXT NOT NULL DEFAULT '',
             fast_hash TEXT NOT NULL DEFAULT '',
             session_id TEXT NOT NULL DEFAULT '',
             pinned INTEGER NOT NULL DEFAULT 0,
             created_at TEXT NOT NULL,
             updated_at TEXT NOT NULL))"),
         QStringLiteral("CREATE INDEX experiences_by_task ON experiences(task)"),
         // remove_diacritics 2: "Schöne" finds "schone"; unicode61 splits on anything that is not a letter or
         // digit.
         QStringLiteral("CREATE VIRTUAL TABLE experiences_fts USING fts5(title, lesson, snippet_before, "
                        "snippet_after, task, tokenize = 'unicode61 remove_diacritics 2')"),
         QStringLiteral(R"(CREATE TRIGGER experiences_fts_insert AFTER INSERT ON experiences BEGIN
             INSERT INTO experiences_fts (rowid, title, lesson, snippet_before, snippet_after, task)
             VALUES (new.id, new.title, new.lesson, new.snippet_before, new.snippet_after, new.task);
             END)"),
         QStringLiteral(R"(CREATE TRIGGER experiences_fts_delete AFTER DELETE ON experiences BEGIN
             DELETE FROM experiences_fts WHERE rowid = old.id;
             END)"),
         QStringLiteral(
             R"(CREATE TRIGGER experiences_fts_update AFTER UPDATE OF title, lesson, snippet_before,
             snippet_after, task ON experiences BEGIN
             DELETE FROM experiences_fts WHERE rowid = old.id;
             INSERT INTO experiences_fts (rowid, title, lesson, snippet_before, snippet_after, task)
             VALUES (new.id, new.title, new.lesson, new.snippet_before, new.snippet_after, new.task);
             END)")}});
    // The import's duplicate rule looks each entry up by the first two; without them every lookup scanned the
    // task's rows and an import grew with the square of its size.
    s.steps.append(MigrationStep{
        2,
        QStringLiteral("indexes for the import's duplicate rule"),
        {QStringLiteral("CREATE INDEX experiences_by_pair ON experiences(task, slow_hash, fast_hash)"),
         QStringLiteral("CREATE INDEX experiences_by_title ON experiences(task, title)"),
         // retrieve() always considers the pinned ones, of any task.
         QStringLiteral("CREATE INDEX experiences_pinned ON experiences(pinned) WHERE pinned <> 0")}});
    // Usage evidence: every retrieval for a plan, and its outcome once the plan's kernels are
    // measured. The counts on experiences are derived from retrievals (recomputed, never incremented, so a
    // resumed search recording the same plan again changes nothing); they are kept there so the browser can
    // sort 100,000 experiences by hit rate without aggregating.
    s.steps.append(MigrationStep{
        3,
        QStringLiteral("usage evidence and the browser's and retrieval's orderings"),
        QStringList{QStringLiteral("ALTER TABLE experiences ADD COLUMN shown INTEGER NOT NULL DEFAULT 0"),
         QStringLiteral("ALTER TABLE experiences ADD COLUMN decided INTEGER NOT NULL DEFAULT 0"),
         QStringLiteral("ALTER TABLE experiences ADD COLUMN faster INTEGER NOT NULL DEFAULT 0"),
         QStringLiteral(R"(CREATE TABLE retrievals (
             experience_id INTEGER NOT NULL REFERENCES experiences(id) ON DELETE CASCADE,
             plan_id TEXT NOT NULL,
             session_id TEXT NOT NULL,
             iteration INTEGER NOT NULL,
             rank INTEGER NOT NULL,
             outcome TEXT CHECK (outcome IN ('faster', 'not_faster')),
             retrieved_at TEXT NOT NULL,
             PRIMARY KEY (experience_id, plan_id)) WITHOUT ROWID)"),
         QStringLiteral("CREATE INDEX retrievals_by_plan ON retrievals(plan_id)"),
         // How many experiences hold a word, for choosing the query's distinctive words (TermRarity).
         QStringLiteral("CREATE VIRTUAL TABLE experiences_vocab USING fts5vocab(experiences_fts, row)")} +
            orderingIndexes()});
    // Version 4 (issue 34): whether a lesson's speedup was predicted by nkisim or measured on a device.
    s.steps.append(MigrationStep{
        4,
        QStringLiteral("where an experience's speedup was measured"),
        {QStringLiteral("ALTER TABLE experiences ADD COLUMN measured_on TEXT NOT NULL DEFAULT ''")}});
    return s;
}

QStringList MemorySchema::orderingIndexes()
{
    return {
        // The browser's default order and its speedup sort, read in index order instead of sorted.
        QStringLiteral("CREATE INDEX experiences_by_date ON experiences(pinned DESC, updated_at DESC, id DESC)"),
        QStringLiteral("CREATE INDEX experiences_by_speedup ON experiences(speedup)"),
        // The browser's session filter and its list of sessions.
        QStringLiteral("CREATE INDEX experiences_by_session ON experiences(session_id)"),
        // retrieve() reads the strongest experiences of each task, kind and target (RetrievalPolicy's order
        // after the text) from these, within the task and outside it.
        QStringLiteral("CREATE INDEX experiences_by_effect_in_task ON experiences(task, target, kind, "
                       "max(speedup, 1.0 / speedup) DESC, updated_at DESC)"),
        QStringLiteral("CREATE INDEX experiences_by_effect ON experiences(target, kind, "
                       "max(speedup, 1.0 / speedup) DESC, updated_at DESC, task)"),
        // What retrieve() ranks text matches by, looked up by id without reading the rows' lessons and code:
        // a quarter of the time of reading the table for a few thousand matches.
        QStringLiteral("CREATE INDEX experiences_for_ranking ON experiences(id, task, kind, target, speedup, "
                       "updated_at, pinned)")};
}
