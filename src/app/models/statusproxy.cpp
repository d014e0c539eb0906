#include "statusproxy.h"

#include "itemmodels/modelroles.h"
#include "model/evalstatus.h"
#include "theme.h"

#include <QApplication>
#include <QColor>
#include <QFont>
#include <QHash>
#include <QPainter>
#include <QPalette>
#include <QPixmap>

StatusProxy::StatusProxy(int statusColumn, int nameColumn, QObject *parent)
    : QIdentityProxyModel(parent), m_statusColumn(statusColumn), m_nameColumn(nameColumn)
{
}

QColor StatusProxy::statusColour(const QModelIndex &index)
{
    const int status = index.data(ModelRoles::Status).toInt();
    if (status == ModelRoles::Evaluating)
        return Theme::statusColor(Theme::Status::Busy);
    if (status == ModelRoles::Pending)
        return QColor(0x9e, 0x9e, 0x9e);
    if (status == int(EvalStatus::Ok) && !index.data(ModelRoles::Failed).toBool())
        return Theme::statusColor(Theme::Status::Good);
    return Theme::statusColor(Theme::Status::Bad);
}

QPixmap StatusProxy::dot(const QColor &colour)
{
    static QHash<QRgb, QPixmap> cache;
    auto it = cache.find(colour.rgb());
    if (it == cache.end()) {
        QPixmap pixmap(10, 10);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(Qt::NoPen);
        painter.setBrush(colour);
        painter.drawEllipse(1, 1, 8, 8);
        it = cache.insert(colour.rgb(), pixmap);
    }
    return *it;
}

QVariant StatusProxy::data(const QModelIndex &index, int role) const
{
    if (role == Qt::ForegroundRole) {
        if (index.column() == m_statusColumn && index.data(ModelRoles::Status).isValid())
            return statusColour(index);
        if (index.data(ModelRoles::Failed).toBool())
            return QApplication::palette().color(QPalette::Disabled, QPalette::Text);
    }
    if (role == Qt::FontRole && index.data(ModelRoles::InBeam).toBool()) {
        QFont font = QIdentityProxyModel::data(index, role).value<QFont>();
        font.setBold(true);
        return font;
    }
    if (role == Qt::DecorationRole && index.column() == 0 && index.data(ModelRoles::Status).isValid())
        return dot(statusColour(index));
    if (role == Qt::DisplayRole && index.column() == m_nameColumn && index.data(ModelRoles::IsBest).toBool())
        return QStringLiteral("★ ") + QIdentityProxyModel::data(index, role).toString();
    return QIdentityProxyModel::data(index, role);
}
