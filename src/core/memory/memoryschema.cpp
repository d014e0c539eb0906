#include "memory/memoryschema.h"

DatabaseSchema MemorySchema::schema()
{
    DatabaseSchema s;
    s.kind = QStringLiteral("memory");
    s.applicationId = DatabaseSchema::memoryApplicationId;
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
    return s;
}
