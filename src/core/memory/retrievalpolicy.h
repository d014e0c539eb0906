#pragma once

#include <QDateTime>
#include <QList>

// Which experiences the planner sees (docs/architecture.md, "One optimization", step 2: ExpN of them), and in
// which order.
//
// Rank, best first:
//   1. experiences of the same task before those of other tasks (what worked on this very kernel matters
//   most);
//   2. within each of those two groups, pinned ones first (the user said they matter);
//   3. then text similarity to the query (FTS5 bm25 over title, lesson, snippets and task); entries that
//   share
//      no word with the query come after all that do;
//   4. then the same target (trn1/trn2) first, then the larger effect (|log speedup|), then the newest.
//
// Balanced mix: negative experiences (changes that made the kernel slower) are shown as warnings, but they
// must not crowd out what to try. They get at most a quarter of the slots (at least one when limit >= 2),
// positives the rest. Pinned experiences are always taken, quota or not. When one kind runs short, the other
// fills the free slots, so the planner always sees min(limit, available) experiences. The result keeps the
// rank order.
class RetrievalPolicy
{
public:
    struct Entry
    {
        qint64 id = 0;
        bool sameTask = false;
        bool pinned = false;
        bool textMatch = false;
        double bm25 = 0; // lower is better, as SQLite's bm25() reports it
        bool sameTarget = false;
        bool negative = false;
        double speedup = 1;
        QDateTime updated;
    };

    static int negativeQuota(int limit);
    // The chosen ids, in rank order.
    static QList<qint64> choose(QList<Entry> entries, int limit);
};
