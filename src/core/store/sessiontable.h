#pragma once

#include "store/columnlist.h"
#include "store/sessionrecord.h"

// The sessions table's columns, once: the SELECT, the INSERT and the reader of a SessionRecord are built from
// this list.
class SessionTable
{
public:
    enum class Column
    {
        Id,
        TaskName,
        TaskJson,
        Target,
        Backend,
        Host,
        ConfigJson,
        Status,
        CreatedAt,
        UpdatedAt,
        CurrentIteration,
        CurrentStep,
        RunJson,
        StopReason,
        Count
    };
    using Columns = ColumnList<Column, std::size_t(Column::Count)>;
    static const Columns &columns();

    // A row whose SELECT starts with columns() at `first`.
    static SessionRecord read(const Statement &q, int first = 0);
    // Every column of an INSERT built from columns().placeholders().
    static void bind(Statement &q, const SessionRecord &session);
};
