#pragma once

#include <QDate>
#include <QString>

// What the memory browser shows: a search text and filters, all of which must hold. Empty or zero fields do
// not filter.
struct MemoryFilter
{
    enum class Kind { Any, Positive, Negative };

    QString text; // searched as typed: every word must occur, the last one as a prefix (FtsQuery)
    QString task;
    QString target;
    QString sessionId;
    Kind kind = Kind::Any;
    bool pinnedOnly = false;
    double minSpeedup = 0; // 0: no lower bound
    double maxSpeedup = 0; // 0: no upper bound
    QDate since;           // invalid: any date; else updated on or after this day (UTC)

    bool operator==(const MemoryFilter &) const = default;
};
