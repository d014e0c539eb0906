#include "store/evaluationtable.h"

#include "store/sqlvalues.h"

namespace {
using C = EvaluationTable::Column;
constexpr EvaluationTable::Columns list({{{C::Host, "host"},
                                          {C::Status, "status"},
                                          {C::Error, "error"},
                                          {C::Correct, "correct"},
                                          {C::L2RelErr, "l2_rel_err"},
                                          {C::MaxAbsErr, "max_abs_err"},
                                          {C::LatencyMeanMs, "latency_mean_ms"},
                                          {C::LatencyMinMs, "latency_min_ms"},
                                          {C::LatencyMaxMs, "latency_max_ms"},
                                          {C::LatencyP50Ms, "latency_p50_ms"},
                                          {C::RelSpread, "rel_spread"},
                                          {C::PeakMs, "peak_ms"},
                                          {C::PercentOfPeak, "percent_of_peak"},
                                          {C::Bound, "bound"},
                                          {C::MetricsJson, "metrics_json"},
                                          {C::RawJson, "raw_json"},
                                          {C::WallS, "wall_s"},
                                          {C::Attempts, "attempts"},
                                          {C::ReusedFrom, "reused_from"},
                                          {C::Backend, "backend"},
                                          {C::Sdk, "sdk"}}});
static_assert(list.inOrder());
} // namespace

const EvaluationTable::Columns &EvaluationTable::columns()
{
    return list;
}

Evaluation EvaluationTable::read(const Statement &q, const QString &candidateId, int first)
{
    const ColumnRow<C> row(q, first);
    Evaluation e;
    e.id = candidateId;
    e.host = row.text(C::Host);
    const QString status = row.text(C::Status);
    e.error = row.text(C::Error);
    if (const std::optional<EvalStatus> known = EvalStatuses::fromName(status)) {
        e.status = *known;
    } else {
        e.status = EvalStatus::InfraError;
        e.error = QStringLiteral("stored with an unknown status '%1': %2").arg(status, e.error);
    }
    if (!row.isNull(C::Correct))
        e.correct = row.integer(C::Correct) == 1;
    e.l2RelErr = row.number(C::L2RelErr);
    e.maxAbsErr = row.number(C::MaxAbsErr);
    e.latencyMeanMs = row.number(C::LatencyMeanMs);
    e.latencyMinMs = row.number(C::LatencyMinMs);
    e.latencyMaxMs = row.number(C::LatencyMaxMs);
    e.latencyP50Ms = row.number(C::LatencyP50Ms);
    e.relSpread = row.number(C::RelSpread);
    e.peakMs = row.number(C::PeakMs);
    e.percentOfPeak = row.number(C::PercentOfPeak);
    e.bound = row.text(C::Bound);
    e.metrics = SqlValues::objectFrom(row.value(C::MetricsJson));
    e.raw = SqlValues::objectFrom(row.value(C::RawJson));
    e.profile = Evaluation::profileFrom(e.raw);
    e.wallSeconds = row.number(C::WallS);
    e.attempts = row.integer(C::Attempts);
    e.reusedFrom = row.text(C::ReusedFrom);
    e.backend = row.text(C::Backend);
    e.sdk = row.text(C::Sdk);
    return e;
}

void EvaluationTable::bind(Statement &q, const Evaluation &e)
{
    q.bind(list.placeholder(C::Host), e.host)
        .bind(list.placeholder(C::Status), e.statusName())
        .bind(list.placeholder(C::Error), e.error)
        .bind(list.placeholder(C::Correct), e.correct ? QVariant(*e.correct ? 1 : 0) : QVariant())
        .bind(list.placeholder(C::L2RelErr), Statement::orNull(e.l2RelErr))
        .bind(list.placeholder(C::MaxAbsErr), Statement::orNull(e.maxAbsErr))
        .bind(list.placeholder(C::LatencyMeanMs), Statement::orNull(e.latencyMeanMs))
        .bind(list.placeholder(C::LatencyMinMs), Statement::orNull(e.latencyMinMs))
        .bind(list.placeholder(C::LatencyMaxMs), Statement::orNull(e.latencyMaxMs))
        .bind(list.placeholder(C::LatencyP50Ms), Statement::orNull(e.latencyP50Ms))
        .bind(list.placeholder(C::RelSpread), Statement::orNull(e.relSpread))
        .bind(list.placeholder(C::PeakMs), Statement::orNull(e.peakMs))
        .bind(list.placeholder(C::PercentOfPeak), Statement::orNull(e.percentOfPeak))
        .bind(list.placeholder(C::Bound), e.bound)
        .bind(list.placeholder(C::MetricsJson), SqlValues::json(e.metrics))
        .bind(list.placeholder(C::RawJson), SqlValues::json(e.raw))
        .bind(list.placeholder(C::WallS), Statement::orNull(e.wallSeconds))
        .bind(list.placeholder(C::Attempts), e.attempts)
        .bind(list.placeholder(C::ReusedFrom), Statement::orNull(e.reusedFrom))
        .bind(list.placeholder(C::Backend), e.backend)
        .bind(list.placeholder(C::Sdk), e.sdk);
}

QString EvaluationTable::rankable()
{
    // The baseline is its session's iteration 0: the index on (session_id, iteration) finds it for each row
    // without reading the session's other candidates (bench_store).
    return notDemoted() +
           QStringLiteral(
               " AND coalesce(e.backend, '') = coalesce((SELECT coalesce(b.backend, '') FROM evaluations b "
               "JOIN candidates bc ON bc.id = b.candidate_id WHERE bc.session_id = c.session_id AND "
               "bc.iteration = 0 AND bc.origin = 'baseline' AND b.run_index = 0), coalesce(e.backend, ''))");
}

QString EvaluationTable::notDemoted()
{
    // Two lookups rather than one condition with OR, so each uses an index (its own run 1; the same source
    // through candidates_by_hash): with the OR, SQLite read every candidate of the session for every row.
    const QString failed = QStringLiteral("r.run_index = 1 AND r.status != 'infra_error' AND NOT (r.status = 'ok' "
                                          "AND r.correct = 1)");
    return QStringLiteral("NOT EXISTS (SELECT 1 FROM evaluations r WHERE r.candidate_id = c.id AND %1) AND NOT "
                          "(c.source_hash != '' AND EXISTS (SELECT 1 FROM candidates d JOIN evaluations r ON "
                          "r.candidate_id = d.id WHERE d.session_id = c.session_id AND d.source_hash = "
                          "c.source_hash AND %1))")
        .arg(failed);
}
