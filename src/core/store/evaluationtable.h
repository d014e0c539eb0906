#pragma once

#include "model/evaluation.h"
#include "store/columnlist.h"

// The evaluations table's measurement columns, once: its SELECTs, its INSERTs (after candidate_id and
// run_index) and the reader of an Evaluation are built from this list.
class EvaluationTable
{
public:
    enum class Column
    {
        Host,
        Status,
        Error,
        Correct,
        L2RelErr,
        MaxAbsErr,
        LatencyMeanMs,
        LatencyMinMs,
        LatencyMaxMs,
        LatencyP50Ms,
        RelSpread,
        PeakMs,
        PercentOfPeak,
        Bound,
        MetricsJson,
        RawJson,
        WallS,
        Attempts,
        ReusedFrom,
        Backend,
        Sdk,
        Count
    };
    using Columns = ColumnList<Column, std::size_t(Column::Count)>;
    static const Columns &columns();

    // A row whose SELECT starts with columns() at `first`. An unknown status (a newer version's) reads as an
    // infrastructure error that says so.
    static Evaluation read(const Statement &q, const QString &candidateId, int first = 0);
    static void bind(Statement &q, const Evaluation &evaluation);

    // An SQL condition on a candidate `c` of the session: not a re-measured failure, of this kernel or of
    // another with the same normalized source (Selection::failsRemeasure: a run that says something about
    // the kernel and is not correct). Each of its two lookups uses an index (the row's own run 1; its
    // source's other candidates through candidates_by_hash), so a best-kernel query stays linear in the
    // session's size (bench_store).
    static QString notDemoted();
    // notDemoted(), and the row measured by the backend that measured the session's baseline (its run 0):
    // a speedup compares like with like. In a session that confirms on hardware (SearchConfig::confirmOn) the
    // baseline is measured on the device, so a kernel only nkisim measured ("simulated only") is never its
    // best; in any other session every row shares the baseline's backend and nothing changes. What the best
    // kernel queries (the best, the summaries' best, each iteration's best) ask of the `e`/`c` row.
    static QString rankable();
};
