#pragma once

#include <QColor>
#include <QIdentityProxyModel>
#include <QPixmap>

// Paints what the core's item models say with ModelRoles (they have no colours): a status in its colour, a
// failed kernel dimmed, the beam in bold, the session's best with a star, a running evaluation in blue.
class StatusProxy : public QIdentityProxyModel
{
    Q_OBJECT
public:
    // `statusColumn`: the column whose text is the status (coloured), -1 for none; `nameColumn`: the one that
    // carries the best kernel's star.
    explicit StatusProxy(int statusColumn, int nameColumn = 0, QObject *parent = nullptr);
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    static QColor statusColour(const QModelIndex &index);

private:
    static QPixmap dot(const QColor &colour);
    int m_statusColumn;
    int m_nameColumn;
};
