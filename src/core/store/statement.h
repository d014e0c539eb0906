#pragma once

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QVariant>

#include <optional>

// A prepared SQL statement with the error text a person can act on. QSqlQuery's own errors lose the statement
// that failed; this keeps it, so a log line says which query broke and why.
class Statement
{
public:
    Statement(const QSqlDatabase &db, const QString &sql);

    Statement &bind(const QString &placeholder, const QVariant &value);
    bool exec();
    bool next() { return m_query.next(); }
    QVariant value(int column) const { return m_query.value(column); }
    QVariant value(const QString &column) const { return m_query.value(column); }
    int rowsAffected() const { return m_query.numRowsAffected(); }
    const QSqlQuery &query() const { return m_query; }
    QString error() const { return m_error; }

    // NULL for "unknown": the store never writes a made-up 0 or -1 where the value was not measured.
    static QVariant orNull(double value) { return value < 0 ? QVariant() : QVariant(value); }
    static QVariant orNull(const std::optional<double> &value)
    {
        return value ? QVariant(*value) : QVariant();
    }
    static QVariant orNull(const std::optional<qint64> &value)
    {
        return value ? QVariant(*value) : QVariant();
    }
    static QVariant orNull(const QString &value) { return value.isEmpty() ? QVariant() : QVariant(value); }

private:
    QSqlQuery m_query;
    QString m_sql;
    QString m_error;
    bool m_prepared = false;
};
