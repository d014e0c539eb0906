#pragma once

#include "store/statement.h"

#include <QString>
#include <QStringList>
#include <QVariant>

#include <array>
#include <cstddef>
#include <optional>

// One list of a query's columns, in the order of an enum: both the SELECT's column list and the reader's
// positions are built from it, so a reader cannot take a column from a place the query did not put it. Each
// entry pairs the enum value with its SQL (a column name, or an expression of an aggregate query), and a
// static_assert(list.inOrder()) beside the list checks at compile time that the pairs follow the enum.
template<typename Column, std::size_t N> class ColumnList
{
public:
    struct Entry
    {
        Column column;
        const char *sql;
    };

    constexpr explicit ColumnList(const std::array<Entry, N> &entries) : m_entries(entries) {}

    static constexpr int size() { return int(N); }
    constexpr bool inOrder() const
    {
        for (std::size_t i = 0; i < N; ++i)
            if (std::size_t(m_entries[i].column) != i)
                return false;
        return true;
    }
    QString sql(Column column) const { return QString::fromLatin1(m_entries[std::size_t(column)].sql); }
    // "c.id, c.session_id, ..." with a table alias, "id, session_id, ..." without.
    QString select(const QString &alias = {}) const
    {
        QStringList parts;
        for (const Entry &e : m_entries)
            parts << (alias.isEmpty() ? QString() : alias + u'.') + QString::fromLatin1(e.sql);
        return parts.join(QStringLiteral(", "));
    }
    // ":id, :session_id, ...": named placeholders for an INSERT of the same columns.
    QString placeholders() const
    {
        QStringList parts;
        for (const Entry &e : m_entries)
            parts << u':' + QString::fromLatin1(e.sql);
        return parts.join(QStringLiteral(", "));
    }
    QString placeholder(Column column) const { return u':' + sql(column); }

private:
    std::array<Entry, N> m_entries;
};

// A result row read through a ColumnList's enum, from the position where the list starts in the SELECT (0
// unless other columns come first).
template<typename Column> class ColumnRow
{
public:
    explicit ColumnRow(const Statement &statement, int first = 0) : m_statement(statement), m_first(first) {}

    QVariant value(Column column) const { return m_statement.value(m_first + int(column)); }
    QString text(Column column) const { return value(column).toString(); }
    int integer(Column column) const { return value(column).toInt(); }
    qint64 integer64(Column column) const { return value(column).toLongLong(); }
    double real(Column column) const { return value(column).toDouble(); }
    bool isNull(Column column) const { return value(column).isNull(); }
    // NULL is "unknown", never a made-up 0 (Statement::orNull writes it so).
    std::optional<double> number(Column column) const
    {
        const QVariant v = value(column);
        return v.isNull() ? std::nullopt : std::optional<double>(v.toDouble());
    }

private:
    const Statement &m_statement;
    int m_first;
};
