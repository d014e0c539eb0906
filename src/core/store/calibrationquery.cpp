#include "store/calibrationquery.h"

#include "common/logcategories.h"
#include "store/columnlist.h"
#include "store/database.h"
#include "store/statement.h"

namespace {
enum class RunColumn
{
    SourceHash,
    Task,
    Target,
    Bound,
    Backend,
    Host,
    Sdk,
    Latency,
    Count
};
constexpr ColumnList<RunColumn, std::size_t(RunColumn::Count)>
    runColumns({{{RunColumn::SourceHash, "c.source_hash"},
                 {RunColumn::Task, "s.task_name"},
                 {RunColumn::Target, "s.target"},
                 {RunColumn::Bound, "e.bound"},
                 {RunColumn::Backend, "e.backend"},
                 {RunColumn::Host, "e.host"},
                 {RunColumn::Sdk, "e.sdk"},
                 {RunColumn::Latency, "e.latency_mean_ms"}}});
static_assert(runColumns.inOrder());
} // namespace

QList<CalibrationRun> CalibrationQuery::runs()
{
    using C = RunColumn;
    QList<CalibrationRun> result;
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1 FROM evaluations e JOIN candidates c ON c.id = e.candidate_id "
                               "JOIN sessions s ON s.id = c.session_id WHERE e.status = 'ok' AND "
                               "(e.correct IS NULL OR e.correct = 1) AND e.latency_mean_ms > 0 AND "
                               "e.backend IN ('sim', 'neuron') AND e.reused_from IS NULL AND "
                               "c.source_hash != '' ORDER BY s.created_at, e.id")
                    .arg(runColumns.select()));
    if (!q.exec()) {
        m_error = q.error();
        qCWarning(lcStore).noquote() << m_error;
        return result;
    }
    while (q.next()) {
        const ColumnRow<C> row(q);
        CalibrationRun r;
        r.sourceHash = row.text(C::SourceHash);
        r.task = row.text(C::Task);
        r.target = row.text(C::Target);
        r.kernelClass = row.text(C::Bound);
        r.onHardware = row.text(C::Backend) == QStringLiteral("neuron");
        r.host = row.text(C::Host).section(u'#', 0, 0);
        r.sdk = row.text(C::Sdk);
        r.latencyMs = row.real(C::Latency);
        result.append(r);
    }
    return result;
}
