#include "memory/retrievalpolicy.h"

#include <algorithm>
#include <cmath>

namespace {
bool ranksBefore(const RetrievalPolicy::Entry &a, const RetrievalPolicy::Entry &b)
{
    if (a.sameTask != b.sameTask)
        return a.sameTask;
    if (a.pinned != b.pinned)
        return a.pinned;
    if (a.textMatch != b.textMatch)
        return a.textMatch;
    if (a.textMatch && a.bm25 != b.bm25)
        return a.bm25 < b.bm25;
    if (a.sameTarget != b.sameTarget)
        return a.sameTarget;
    const double ea = std::abs(std::log(a.speedup));
    const double eb = std::abs(std::log(b.speedup));
    if (ea != eb)
        return ea > eb;
    if (a.updated != b.updated)
        return a.updated > b.updated;
    return a.id < b.id;
}
} // namespace

int RetrievalPolicy::negativeQuota(int limit)
{
    if (limit < 2)
        return 0;
    return std::max(1, limit / 4);
}

QList<qint64> RetrievalPolicy::choose(QList<Entry> entries, int limit)
{
    std::stable_sort(entries.begin(), entries.end(), ranksBefore);
    if (limit <= 0)
        return {};
    const auto negatives =
        std::count_if(entries.cbegin(), entries.cend(), [](const Entry &e) { return e.negative; });
    const int negativeSlots = static_cast<int>(std::min<qsizetype>(negativeQuota(limit), negatives));
    const int positiveSlots = limit - negativeSlots;

    QList<bool> taken(entries.size(), false);
    int count = 0, positives = 0, negativesTaken = 0;
    for (qsizetype i = 0; i < entries.size() && count < limit; ++i) {
        const Entry &e = entries.at(i);
        const bool fits = e.negative ? negativesTaken < negativeSlots : positives < positiveSlots;
        if (!fits && !e.pinned)
            continue;
        taken[i] = true;
        ++count;
        ++(e.negative ? negativesTaken : positives);
    }
    // One kind ran short: the other fills what is left, still in rank order.
    for (qsizetype i = 0; i < entries.size() && count < limit; ++i)
        if (!taken.at(i)) {
            taken[i] = true;
            ++count;
        }
    QList<qint64> ids;
    for (qsizetype i = 0; i < entries.size(); ++i)
        if (taken.at(i))
            ids.append(entries.at(i).id);
    return ids;
}
