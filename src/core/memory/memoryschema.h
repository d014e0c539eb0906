#pragma once

#include "store/databaseschema.h"

// The memory database: experiences and their FTS5 index (docs/architecture.md, "Stores and files"). The index
// is a separate FTS5 table kept in sync by triggers, so every way a row changes (add, edit, delete, import, a
// hand-made SQL fix) updates it.
class MemorySchema
{
public:
    static DatabaseSchema schema();
    // The indexes that only order or rank (none enforces anything), as CREATE INDEX statements: a large
    // import drops them and builds each once at the end, which is far quicker than updating them per row.
    static QStringList orderingIndexes();
    // The ranking of the full-text index, with column weights (title, lesson, snippets, task): a word in the
    // title says more about an experience than one in a code snippet. One definition, so the browser and the
    // planner agree on what is similar.
    static QString bm25() { return QStringLiteral("bm25(experiences_fts, 4.0, 2.0, 1.0, 1.0, 1.0)"); }
};
