#pragma once

#include "memory/experiencepage.h"
#include "memory/experiencesort.h"
#include "memory/memoryfilter.h"

#include <QString>

class Database;

// The memory browser's query, inside the memory store (ExperienceStore::page): a filter and an order write the
// matching ids, in order, into a temporary table of the store's connection; pages are then read from it. So a
// keystroke costs one query, scrolling reads only what comes into sight, and the count is exact from the start.
// The ids are listed again only when the filter or order changed, or the memory did (this connection's writes,
// or another connection's commits, as SQLite's data_version tells), so a page is always the memory as it is.
class ExperienceBrowser
{
public:
    // Ranking by text match costs time with every match (bm25 is computed for each); beyond this many the
    // default order lists them pinned then newest, and the page says relevanceSkipped.
    static constexpr int relevanceLimit = 20000;

    explicit ExperienceBrowser(Database &db);
    ~ExperienceBrowser(); // drops its temporary tables while the connection is open

    // false with `error` when SQLite refuses the query; any typed text is safe (FtsQuery).
    bool page(const MemoryFilter &filter, const ExperienceSort &sort, int offset, int limit, ExperiencePage &out,
              QString &error);
    // The row of an experience in that list, or -1 (not in it, or an error in `error`).
    int rowOf(const MemoryFilter &filter, const ExperienceSort &sort, qint64 id, QString &error);

private:
    bool ensureListed(const MemoryFilter &filter, const ExperienceSort &sort, QString &error);
    bool list(QString &error);
    bool changedSinceListed(bool &changed, QString &error) const;
    bool readChangeMarks(qint64 &dataVersion, qint64 &changes, QString &error) const;
    QString orderBy() const;

    Database &m_db;
    QString m_table; // the ids in order; m_table + "_match": the text's matches
    bool m_tablesMade = false;
    bool m_listed = false;
    MemoryFilter m_filter;
    ExperienceSort m_sort;
    qint64 m_dataVersion = -1; // as of the listing
    qint64 m_changes = -1;
    int m_count = 0;
    int m_storeCount = 0; // every experience, as of the listing: counted once per listing, not per page
    bool m_relevanceSkipped = false;
};
