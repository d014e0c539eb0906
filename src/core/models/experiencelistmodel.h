#pragma once

#include "memory/memoryfilter.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QHash>
#include <QVector>

class ExperienceStore;

// The memory browser's list, over an ExperienceStore of any size. A query (search text, filters, order)
// writes the matching ids, in order, into a temporary table of the store's connection, inside SQLite; rows
// are then read a page at a time as a view asks for them. So the row count is exact from the start, a
// keystroke costs one query, and scrolling reads only what comes into sight.
class ExperienceListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Pinned,
        Title,
        Task,
        Target,
        Speedup,
        Shown,
        HitRate,
        Updated,
        ColumnCount
    };
    // The order when no column is chosen: the best text match first, or with no text pinned then newest.
    static constexpr int defaultOrder = -1;
    // Ranking by text match costs time with every match (bm25 is computed for each); beyond this many the
    // default order lists them pinned then newest, and relevanceSkipped() says so.
    static constexpr int relevanceLimit = 20000;

    explicit ExperienceListModel(ExperienceStore *store, QObject *parent = nullptr);
    ~ExperienceListModel() override;

    // Runs the query; false (with lastError()) when the store refuses it, leaving the model empty.
    bool setFilter(const MemoryFilter &filter);
    const MemoryFilter &filter() const { return m_filter; }
    // Runs the same query again, after the memory changed.
    bool refresh();
    QString lastError() const { return m_error; }
    // The last query had text, no chosen column and more than relevanceLimit matches.
    bool relevanceSkipped() const { return m_relevanceSkipped; }

    qint64 idAt(int row) const;
    // The row of an experience, or -1; searches the ids in order, inside SQLite.
    int rowOf(qint64 id) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    struct Row
    {
        qint64 id = 0;
        bool pinned = false;
        QString title;
        QString task;
        QString target;
        double speedup = 1;
        int shown = 0;
        int decided = 0;
        int faster = 0;
        QDateTime updated;
    };
    static constexpr int pageSize = 128;

    bool run();
    const Row *row(int r) const;
    QString orderBy() const;

    ExperienceStore *m_store;
    QString m_table; // this model's temporary table
    MemoryFilter m_filter;
    int m_sortColumn = defaultOrder;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
    int m_count = 0;
    bool m_relevanceSkipped = false;
    mutable QHash<int, QVector<Row>> m_pages;
    QString m_error;
};
