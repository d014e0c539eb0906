#pragma once

#include "memory/experiencebrowser.h"
#include "memory/experiencepage.h"
#include "memory/experiencepagerequest.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QSet>
#include <QVector>

#include <functional>

// The memory browser's list, over a memory of any size, as snapshots: the query runs in the memory store
// (ExperienceStore::page) on the engine's thread, and this model holds only the pages it was sent. A new
// filter or order asks for the page holding the selection; the list is replaced when that answer arrives (the
// old rows stay until then, so typing never blanks it). Rows not seen yet are asked for when a view reads
// them, and show empty until they come. The model runs no SQL (like SearchState).
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
    static constexpr int relevanceLimit = ExperienceBrowser::relevanceLimit;
    static constexpr int pageSize = 128;

    // Sends a request on its way (to the engine) and returns its job id; the answer comes to pageArrived.
    using Requester = std::function<quint64(const ExperiencePageRequest &request)>;
    explicit ExperienceListModel(Requester requester, QObject *parent = nullptr);
    ~ExperienceListModel() override;

    // Asks for the list under this filter; `keepId` is an experience whose row the answer reports (the
    // selection to keep). listed() follows.
    void setFilter(const MemoryFilter &filter, qint64 keepId = 0);
    const MemoryFilter &filter() const { return m_filter; }
    // Asks for the same list again, after the memory changed.
    void refresh(qint64 keepId = 0);
    // An answer from the engine; answers to requests this model no longer waits for are dropped.
    void pageArrived(quint64 job, const ExperiencePage &page, const QString &error);

    // A new list or a page is asked for and not here yet.
    bool isWaiting() const { return m_listJob != 0 || !m_pageJobs.isEmpty(); }
    QString lastError() const { return m_error; }
    // The last list had text, no chosen column and more than relevanceLimit matches.
    bool relevanceSkipped() const { return m_relevanceSkipped; }
    int storeCount() const { return m_storeTotal; } // experiences in the memory, as of the last answer

    qint64 idAt(int row) const; // 0 while the row's page has not come
    // The row of an experience among the pages here, or -1.
    int rowOf(qint64 id) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

Q_SIGNALS:
    // A new list is in (ok) or was refused (the old one is kept, lastError() says why). keepRow: the row of
    // the experience asked to keep, or -1.
    void listed(bool ok, qint64 keepId, int keepRow);
    // A page came back from a list of another length: the memory changed since; ask for the list again.
    void stale();

private:
    void ask(qint64 keepId);
    const ExperienceRow *row(int r) const;
    ExperienceSort sortKey() const;

    Requester m_requester;
    MemoryFilter m_filter;
    int m_sortColumn = defaultOrder;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
    quint64 m_listJob = 0; // the newest list asked for
    qint64 m_listKeep = 0;
    int m_count = 0;
    int m_storeTotal = 0;
    bool m_relevanceSkipped = false;
    QHash<int, QVector<ExperienceRow>> m_pages;
    mutable QHash<quint64, int> m_pageJobs; // job -> page asked for, of the current list
    mutable QSet<int> m_asked;
    QString m_error;
};
