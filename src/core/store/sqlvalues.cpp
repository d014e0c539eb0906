#include "store/sqlvalues.h"

#include <QJsonDocument>

QString SqlValues::now()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

QString SqlValues::time(const QDateTime &t)
{
    return t.toUTC().toString(Qt::ISODateWithMs);
}

QDateTime SqlValues::timeFrom(const QVariant &v)
{
    return QDateTime::fromString(v.toString(), Qt::ISODateWithMs);
}

QString SqlValues::json(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

QJsonObject SqlValues::objectFrom(const QVariant &v)
{
    return QJsonDocument::fromJson(v.toString().toUtf8()).object();
}
