#pragma once

#include "model/candidate.h"
#include "store/columnlist.h"

// The candidates table's columns, once: its SELECTs (with the alias `c`), its INSERT and the reader of a
// Candidate are built from this list.
class CandidateTable
{
public:
    enum class Column
    {
        Id,
        SessionId,
        Iteration,
        ParentId,
        PlanId,
        PlanIndex,
        SampleIndex,
        FixRound,
        Origin,
        Source,
        SourceHash,
        Count
    };
    using Columns = ColumnList<Column, std::size_t(Column::Count)>;
    static const Columns &columns();
    static QString select() { return columns().select(QStringLiteral("c")); } // queries name the table `c`

    static Candidate read(const Statement &q, int first = 0);
    static void bind(Statement &q, const Candidate &candidate);
};
