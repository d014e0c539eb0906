#pragma once

#include "store/databaseschema.h"

// The memory database: experiences and their FTS5 index (DESIGN.md §8). The index is a separate FTS5 table
// kept in sync by triggers, so every way a row changes (add, edit, delete, import, a hand-made SQL fix)
// updates it.
class MemorySchema
{
public:
    static DatabaseSchema schema();
};
