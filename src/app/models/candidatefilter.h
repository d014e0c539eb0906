#pragma once

#include <QSortFilterProxyModel>

// The Search dock's candidate table, sorted by each column's value (not its text) and filtered by a text
// that any column may contain and by what the kernels came to: all, correct, failed, in the beam.
class CandidateFilter : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    enum class Show
    {
        All,
        Correct,
        Failed,
        InBeam
    };

    explicit CandidateFilter(QObject *parent = nullptr);
    void setShow(Show show);
    void setText(const QString &text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    Show m_show = Show::All;
    QString m_text;
};
