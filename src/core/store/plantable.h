#pragma once

#include "store/columnlist.h"
#include "store/planrecord.h"

// The plans table's columns, once: its SELECT, its INSERT and the reader of a PlanRecord are built from this
// list.
class PlanTable
{
public:
    enum class Column
    {
        Id,
        SessionId,
        Iteration,
        ParentCandidateId,
        PlanIndex,
        Title,
        StepsJson,
        RawText,
        Count
    };
    using Columns = ColumnList<Column, std::size_t(Column::Count)>;
    static const Columns &columns();

    static PlanRecord read(const Statement &q, int first = 0);
    static void bind(Statement &q, const PlanRecord &plan);
};
