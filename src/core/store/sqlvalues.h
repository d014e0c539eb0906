#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <QVariant>

// How the workspace stores values SQLite has no type for: times as UTC ISO text with milliseconds, JSON as
// compact text. Every table's reader and writer goes through these, so a column is written as it is read.
namespace SqlValues {
QString now();
QString time(const QDateTime &t);
QDateTime timeFrom(const QVariant &v);
QString json(const QJsonObject &o);
QJsonObject objectFrom(const QVariant &v);
} // namespace SqlValues
