#pragma once

#include "store/databaseschema.h"

// The workspace database's tables and their history: sessions and everything they produced
// (docs/architecture.md, "Stores and files"). Version 1 held the search results; version 2 added the LLM call
// log and the completed steps a resume starts from. Released steps are frozen (tests keep a hand-written copy
// of version 1 to prove the upgrade path).
class WorkspaceSchema
{
public:
    static DatabaseSchema schema();
};
