#pragma once

#include "memory/retrievalpolicy.h"

#include <QSqlDatabase>

// The few experiences among which RetrievalPolicy can choose, read without touching the rest of the memory.
//
// The policy takes every pinned experience and, of each group (same task or not, positive or negative), at
// most `limit` of the others, always a prefix of the group in rank order. So it is enough to read: the
// pinned ones; per group, the `limit` best text matches in rank order; and per group and target, the
// `limit` strongest by effect and date (the order after the text), from indexes. The policy then chooses
// from these exactly what it would choose from the whole memory.
class RetrievalCandidates
{
public:
    // `match` is an FTS5 expression (empty: no text to compare). False on a read error, with `error` set.
    static bool read(const QSqlDatabase &db, const QString &task, const QString &target, const QString &match,
                     int limit, QList<RetrievalPolicy::Entry> &entries, QString &error);
};
