#pragma once

#include "memory/experiencerow.h"

#include <QList>
#include <QMetaType>

// A slice of the memory browser's list, as ExperienceStore::page returns it: `rows` are the list's rows from
// `offset` on, `total` the length of the whole list under the same filter and order. The window's model holds
// these snapshots only; the query that made them ran on the engine's thread.
struct ExperiencePage
{
    int offset = 0;
    int total = 0;            // rows matching the filter
    int storeTotal = 0;       // experiences in the memory, matching or not ("4 of 12 experiences")
    bool relevanceSkipped = false; // text, default order, more than relevanceLimit matches: newest first
    int focusRow = -1;        // where the experience asked for is in the list, or -1 (not asked for, or gone)
    QList<ExperienceRow> rows;
};
Q_DECLARE_METATYPE(ExperiencePage)
