#include "store/sessionstatistics.h"

#include "common/logcategories.h"
#include "store/columnlist.h"
#include "store/database.h"
#include "store/evaluationtable.h"

namespace {

// The result columns of each query, as expressions, in the order of their enum.
enum class CostColumn
{
    Role,
    Calls,
    Failed,
    PromptTokens,
    CompletionTokens,
    WithoutTokens,
    Cost,
    WithoutCost,
    Count
};
constexpr ColumnList<CostColumn, std::size_t(CostColumn::Count)>
    costColumns({{{CostColumn::Role, "role"},
                  {CostColumn::Calls, "count(*)"},
                  {CostColumn::Failed, "sum(error <> '')"},
                  {CostColumn::PromptTokens, "total(prompt_tokens)"},
                  {CostColumn::CompletionTokens, "total(completion_tokens)"},
                  {CostColumn::WithoutTokens, "sum(prompt_tokens IS NULL)"},
                  {CostColumn::Cost, "total(cost_usd)"},
                  {CostColumn::WithoutCost, "sum(cost_usd IS NULL)"}}});
static_assert(costColumns.inOrder());

enum class IterationCostColumn
{
    Iteration,
    Cost,
    Count
};
constexpr ColumnList<IterationCostColumn, std::size_t(IterationCostColumn::Count)>
    iterationCostColumns({{{IterationCostColumn::Iteration, "COALESCE(p.iteration, c.iteration, 0)"},
                           {IterationCostColumn::Cost, "SUM(l.cost_usd)"}}});
static_assert(iterationCostColumns.inOrder());

enum class IterationCountColumn
{
    Iteration,
    Candidates,
    Correct,
    Count
};
constexpr ColumnList<IterationCountColumn, std::size_t(IterationCountColumn::Count)>
    iterationCountColumns({{{IterationCountColumn::Iteration, "c.iteration"},
                            {IterationCountColumn::Candidates, "count(*)"},
                            {IterationCountColumn::Correct, "sum(e.status = 'ok' AND e.correct = 1)"}}});
static_assert(iterationCountColumns.inOrder());

enum class IterationBestColumn
{
    Iteration,
    CandidateId,
    LatencyMs,
    PercentOfPeak,
    Count
};
constexpr ColumnList<IterationBestColumn, std::size_t(IterationBestColumn::Count)>
    iterationBestColumns({{{IterationBestColumn::Iteration, "c.iteration"},
                           {IterationBestColumn::CandidateId, "c.id"},
                           {IterationBestColumn::LatencyMs, "e.latency_mean_ms"},
                           {IterationBestColumn::PercentOfPeak, "e.percent_of_peak"}}});
static_assert(iterationBestColumns.inOrder());

enum class StatusCountColumn
{
    Status,
    Candidates,
    Count
};
constexpr ColumnList<StatusCountColumn, std::size_t(StatusCountColumn::Count)>
    statusCountColumns({{{StatusCountColumn::Status, "coalesce(e.status, 'pending')"},
                         {StatusCountColumn::Candidates, "count(*)"}}});
static_assert(statusCountColumns.inOrder());

enum class DeviceCountColumn
{
    OnDevice,
    SimulatedOnly,
    Count
};
constexpr ColumnList<DeviceCountColumn, std::size_t(DeviceCountColumn::Count)>
    deviceCountColumns({{{DeviceCountColumn::OnDevice, "coalesce(sum(e.backend = 'neuron'), 0)"},
                         {DeviceCountColumn::SimulatedOnly, "coalesce(sum(e.backend != 'neuron'), 0)"}}});
static_assert(deviceCountColumns.inOrder());

} // namespace

void SessionStatistics::fail(const QString &error)
{
    m_error = m_db.explain(error);
    // A read-only file is the user's condition, told by the caller: not a fault to warn of.
    if (m_error != error)
        qCInfo(lcStore).noquote() << m_error;
    else
        qCWarning(lcStore).noquote() << m_error;
}

SessionStatistics::CostTotals SessionStatistics::costTotals(const QString &sessionId)
{
    using C = CostColumn;
    CostTotals t;
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1 FROM llm_calls WHERE (:s = '' OR session_id = :s) "
                               "GROUP BY role")
                    .arg(costColumns.select()));
    q.bind(QStringLiteral(":s"), sessionId);
    if (!q.exec()) {
        fail(q.error());
        return t;
    }
    while (q.next()) {
        const ColumnRow<C> row(q);
        t.calls += row.integer(C::Calls);
        t.failedCalls += row.integer(C::Failed);
        t.promptTokens += row.integer64(C::PromptTokens);
        t.completionTokens += row.integer64(C::CompletionTokens);
        t.callsWithoutTokens += row.integer(C::WithoutTokens);
        t.costUsd += row.real(C::Cost);
        t.callsWithoutCost += row.integer(C::WithoutCost);
        const QString role = row.text(C::Role);
        t.costByRole.insert(role, row.real(C::Cost));
        t.callsByRole.insert(role, row.integer(C::Calls));
        t.callsWithoutCostByRole.insert(role, row.integer(C::WithoutCost));
    }
    return t;
}

QMap<int, double> SessionStatistics::costByIteration(const QString &sessionId)
{
    using C = IterationCostColumn;
    QMap<int, double> cost;
    Statement q(
        m_db.connection(),
        QStringLiteral("SELECT %1 FROM llm_calls l LEFT JOIN plans p ON p.id = l.tag LEFT JOIN candidates c "
                       "ON c.id = l.tag WHERE l.session_id = :s AND l.cost_usd IS NOT NULL GROUP BY 1")
            .arg(iterationCostColumns.select()));
    q.bind(QStringLiteral(":s"), sessionId);
    if (!q.exec()) {
        fail(q.error());
        return cost;
    }
    while (q.next()) {
        const ColumnRow<C> row(q);
        cost.insert(row.integer(C::Iteration), row.real(C::Cost));
    }
    return cost;
}

QList<SessionStatistics::IterationSummary> SessionStatistics::iterationSummaries(const QString &sessionId)
{
    QList<IterationSummary> result;
    Statement counts(
        m_db.connection(),
        QStringLiteral("SELECT %1 FROM candidates c LEFT JOIN evaluations e ON e.candidate_id = c.id "
                       "AND e.run_index = 0 WHERE c.session_id = :s GROUP BY c.iteration ORDER BY "
                       "c.iteration")
            .arg(iterationCountColumns.select()));
    counts.bind(QStringLiteral(":s"), sessionId);
    if (!counts.exec()) {
        fail(counts.error());
        return result;
    }
    while (counts.next()) {
        using C = IterationCountColumn;
        const ColumnRow<C> row(counts);
        IterationSummary s;
        s.iteration = row.integer(C::Iteration);
        s.candidates = row.integer(C::Candidates);
        s.correct = row.integer(C::Correct);
        result.append(s);
    }
    Statement best(
        m_db.connection(),
        QStringLiteral("SELECT %1 FROM candidates c JOIN evaluations e ON e.candidate_id = c.id AND "
                       "e.run_index = 0 WHERE c.session_id = :s AND e.status = 'ok' AND e.correct = 1 "
                       "AND e.latency_mean_ms IS NOT NULL AND %2 ORDER BY c.iteration, "
                       "e.latency_mean_ms, c.id")
            .arg(iterationBestColumns.select(), EvaluationTable::rankable()));
    best.bind(QStringLiteral(":s"), sessionId);
    if (!best.exec()) {
        fail(best.error());
        return result;
    }
    while (best.next()) {
        using C = IterationBestColumn;
        const ColumnRow<C> row(best);
        for (IterationSummary &s : result) {
            if (s.iteration != row.integer(C::Iteration) || s.bestLatencyMs)
                continue;
            s.bestCandidateId = row.text(C::CandidateId);
            s.bestLatencyMs = row.real(C::LatencyMs);
            s.bestPercentOfPeak = row.number(C::PercentOfPeak);
        }
    }
    return result;
}

SessionStatistics::DeviceCounts SessionStatistics::deviceCounts(const QString &sessionId)
{
    using C = DeviceCountColumn;
    DeviceCounts counts;
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1 FROM candidates c JOIN evaluations e ON e.candidate_id = c.id AND "
                               "e.run_index = 0 WHERE c.session_id = :s")
                    .arg(deviceCountColumns.select()));
    q.bind(QStringLiteral(":s"), sessionId);
    if (!q.exec()) {
        fail(q.error());
        return counts;
    }
    if (q.next()) {
        const ColumnRow<C> row(q);
        counts.onDevice = row.integer(C::OnDevice);
        counts.simulatedOnly = row.integer(C::SimulatedOnly);
    }
    return counts;
}

QMap<QString, int> SessionStatistics::candidateCountsByStatus(const QString &sessionId)
{
    using C = StatusCountColumn;
    QMap<QString, int> counts;
    Statement q(
        m_db.connection(),
        QStringLiteral("SELECT %1 FROM candidates c LEFT JOIN evaluations e ON e.candidate_id = c.id AND "
                       "e.run_index = 0 WHERE c.session_id = :s GROUP BY 1")
            .arg(statusCountColumns.select()));
    q.bind(QStringLiteral(":s"), sessionId);
    if (!q.exec()) {
        fail(q.error());
        return counts;
    }
    while (q.next()) {
        const ColumnRow<C> row(q);
        counts.insert(row.text(C::Status), row.integer(C::Candidates));
    }
    return counts;
}
