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
//
// One bound: when the query's words match more than `scoredMatches` experiences, only the most recently
// added of them count as text matches. Ranking a match costs about 3.5 µs (its bm25, its row, its place in
// the window), so a word shared by a whole task of a 100,000-experience memory cost 25-40 ms a planner call;
// the bound keeps a call under 20 ms, and the newest lessons are the ones written about today's models.
class RetrievalCandidates
{
public:
    static constexpr int scoredMatches = 2000;
    // `match` is an FTS5 expression (empty: no text to compare). False on a read error, with `error` set.
    static bool read(const QSqlDatabase &db, const QString &task, const QString &target, const QString &match,
                     int limit, QList<RetrievalPolicy::Entry> &entries, QString &error);
};
