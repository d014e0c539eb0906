#include "export/reportwriter.h"

#include "common/buildinfo.h"
#include "common/logcategories.h"
#include "export/exportformat.h"
#include "search/selection.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

#include <algorithm>

namespace {
const QString reportFormat = QStringLiteral("accelopt-session-report");
constexpr int reportVersion = 1;

QString iso(const QDateTime &t)
{
    return t.isValid() ? t.toUTC().toString(Qt::ISODate) : QString();
}

// Shortest text that reads back as the same double: a CSV or JSON consumer gets the stored value exactly.
QString exact(double v)
{
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

// Files say unknown by leaving the value out.
QString known(const std::optional<double> &v)
{
    return v ? exact(*v) : QString();
}

QJsonValue textOrNull(const QString &s)
{
    return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s);
}

// A spreadsheet runs a cell that starts with one of these as a formula; plan titles and errors come from an
// LLM or a generated kernel, so they are defused the way OWASP recommends (a leading apostrophe).
QString defused(const QString &text)
{
    static const QString triggers = QStringLiteral("=+-@\t\r");
    return !text.isEmpty() && triggers.contains(text.front()) ? u'\'' + text : text;
}

// One table cell of Markdown: one line, and no character that would end the cell, start HTML or code, or
// turn the rest of the row into emphasis or a link.
QString cell(const QString &text)
{
    static const QString special = QStringLiteral("\\|<>`*[]");
    QString result;
    for (const QChar c : ExportFormat::oneLine(text, 300)) {
        if (special.contains(c))
            result.append(u'\\');
        result.append(c);
    }
    return result;
}

QString shortId(const QString &id)
{
    return id.left(8);
}

QString code(const QString &id)
{
    return id.isEmpty() ? QStringLiteral("—") : QStringLiteral("`%1`").arg(shortId(id));
}

QString orDash(const QString &s)
{
    return s.isEmpty() ? QStringLiteral("—") : s;
}

QString valueText(const QJsonValue &v)
{
    if (v.isString())
        return v.toString();
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isDouble())
        return exact(v.toDouble());
    if (v.isNull() || v.isUndefined())
        return QStringLiteral("null");
    return QString::fromUtf8(v.isArray() ? QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact)
                                         : QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
}

// A fence longer than any backtick run in the text, so a kernel that itself contains ``` (in a docstring,
// say) cannot close the block early.
QString fenceFor(const QString &text)
{
    qsizetype longest = 0;
    qsizetype run = 0;
    for (const QChar c : text) {
        run = c == u'`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    return QString(std::max<qsizetype>(3, longest + 1), u'`');
}

// A role's cost cell: "—" when none of its calls had a price, and the priced sum with a note when some did
// not.
QString roleCost(const SessionStatistics::CostTotals &cost, const QString &role)
{
    const int unpriced = cost.callsWithoutCostByRole.value(role);
    if (unpriced == cost.callsByRole.value(role))
        return QStringLiteral("—");
    const QString sum = QString::number(cost.costByRole.value(role), 'f', 4);
    if (unpriced == 0)
        return sum;
    return QStringLiteral("%1 (+%2 call%3 without a price)")
        .arg(sum)
        .arg(unpriced)
        .arg(unpriced == 1 ? QString() : QStringLiteral("s"));
}

QJsonObject evaluationJson(const Evaluation &e)
{
    return QJsonObject{{QStringLiteral("status"), e.statusName()},
                       {QStringLiteral("error"), textOrNull(e.error)},
                       {QStringLiteral("correct"), Evaluation::json(e.correct)},
                       {QStringLiteral("l2_rel_err"), Evaluation::json(e.l2RelErr)},
                       {QStringLiteral("max_abs_err"), Evaluation::json(e.maxAbsErr)},
                       {QStringLiteral("latency_ms"),
                        QJsonObject{{QStringLiteral("mean"), Evaluation::json(e.latencyMeanMs)},
                                    {QStringLiteral("min"), Evaluation::json(e.latencyMinMs)},
                                    {QStringLiteral("max"), Evaluation::json(e.latencyMaxMs)},
                                    {QStringLiteral("p50"), Evaluation::json(e.latencyP50Ms)}}},
                       {QStringLiteral("rel_spread"), Evaluation::json(e.relSpread)},
                       {QStringLiteral("roofline"),
                        QJsonObject{{QStringLiteral("peak_ms"), Evaluation::json(e.peakMs)},
                                    {QStringLiteral("bound"), textOrNull(e.bound)},
                                    {QStringLiteral("percent_of_peak"), Evaluation::json(e.percentOfPeak)}}},
                       {QStringLiteral("metrics"), e.metrics},
                       {QStringLiteral("host"), e.host},
                       {QStringLiteral("backend"), e.backend},
                       {QStringLiteral("sdk"), e.sdk},
                       {QStringLiteral("provenance"), textOrNull(e.provenance())},
                       {QStringLiteral("attempts"), e.attempts},
                       {QStringLiteral("wall_s"), Evaluation::json(e.wallSeconds)},
                       {QStringLiteral("reused_from"), textOrNull(e.reusedFrom)}};
}
} // namespace

ReportWriter::ReportWriter(SessionStore &store) : m_store(store) {}

QString ReportWriter::csvFileName(const QString &stem)
{
    return stem + QStringLiteral(".candidates.csv");
}

QString ReportWriter::jsonFileName(const QString &stem)
{
    return stem + QStringLiteral(".candidates.json");
}

QString ReportWriter::markdownFileName(const QString &stem)
{
    return stem + QStringLiteral(".report.md");
}

QString ReportWriter::csvField(const QString &value)
{
    static const QString special = QStringLiteral(",\"\r\n");
    if (std::none_of(value.cbegin(), value.cend(), [](QChar c) { return special.contains(c); }))
        return value;
    QString quoted = value;
    quoted.replace(u'"', QStringLiteral("\"\""));
    return u'"' + quoted + u'"';
}

bool ReportWriter::load(const QString &sessionId, const QDateTime &generatedAt)
{
    m_error.clear();
    m_rows.clear();
    m_bestLineage.clear();
    m_bestId.clear();
    m_baselineLatencyMs.reset();
    m_generatedAt = generatedAt.isValid() ? generatedAt.toUTC() : QDateTime::currentDateTimeUtc();
    const auto session = m_store.findSession(sessionId);
    if (!session) {
        m_error = m_store.lastError();
        qCWarning(lcExport).noquote() << m_error;
        return false;
    }
    m_session = *session;

    QHash<QString, PlanRecord> plans;
    for (const PlanRecord &p : m_store.plans(m_session.id))
        plans.insert(p.id, p);
    for (const Candidate &c : m_store.candidates(m_session.id)) {
        Row r;
        r.candidate = c;
        r.evaluation = m_store.evaluation(c.id);
        if (const auto plan = plans.constFind(c.planId); plan != plans.cend()) {
            r.planTitle = plan->plan.title;
            r.planSteps = plan->plan.steps;
        }
        m_rows.append(r);
    }
    for (const Row &r : std::as_const(m_rows))
        if (r.candidate.origin == Candidate::Origin::Baseline && r.correct() &&
            r.evaluation->latencyMeanMs > 0)
            m_baselineLatencyMs = r.evaluation->latencyMeanMs;
    for (Row &r : m_rows)
        if (m_baselineLatencyMs && r.correct())
            r.speedup = ExportFormat::speedupOver(*m_baselineLatencyMs, r.evaluation->latencyMeanMs);

    if (const auto best = m_store.bestCandidate(m_session.id)) {
        m_bestId = best->id;
        m_bestLineage = m_store.lineage(best->id);
    }
    m_demoted.clear();
    const QHash<QString, Evaluation> remeasured = m_store.remeasurements(m_session.id);
    for (auto it = remeasured.cbegin(); it != remeasured.cend(); ++it)
        if (Selection::failsRemeasure(it.value()))
            m_demoted.insert(it.key(), it.value());
    m_cost = m_store.statistics().costTotals(m_session.id);
    m_iterations = m_store.statistics().iterationSummaries(m_session.id);
    m_countsByStatus = m_store.statistics().candidateCountsByStatus(m_session.id);
    return true;
}

QJsonArray ReportWriter::demotedJson() const
{
    QJsonArray out;
    for (auto it = m_demoted.cbegin(); it != m_demoted.cend(); ++it)
        out.append(QJsonObject{{QStringLiteral("candidate"), it.key()},
                               {QStringLiteral("status"), it.value().statusName()},
                               {QStringLiteral("error"), it.value().error}});
    return out;
}

const ReportWriter::Row *ReportWriter::row(const QString &candidateId) const
{
    for (const Row &r : m_rows)
        if (r.candidate.id == candidateId)
            return &r;
    return nullptr;
}

QByteArray ReportWriter::csv() const
{
    static const QStringList columns{QStringLiteral("id"),
                                     QStringLiteral("iteration"),
                                     QStringLiteral("origin"),
                                     QStringLiteral("parent_id"),
                                     QStringLiteral("plan_id"),
                                     QStringLiteral("plan_index"),
                                     QStringLiteral("plan_title"),
                                     QStringLiteral("sample"),
                                     QStringLiteral("fix_round"),
                                     QStringLiteral("status"),
                                     QStringLiteral("correct"),
                                     QStringLiteral("l2_rel_err"),
                                     QStringLiteral("latency_mean_ms"),
                                     QStringLiteral("latency_min_ms"),
                                     QStringLiteral("latency_max_ms"),
                                     QStringLiteral("rel_spread"),
                                     QStringLiteral("percent_of_peak"),
                                     QStringLiteral("bound"),
                                     QStringLiteral("speedup_vs_baseline"),
                                     QStringLiteral("source_hash"),
                                     QStringLiteral("error"),
                                     QStringLiteral("provenance"),
                                     QStringLiteral("host"),
                                     QStringLiteral("sdk")};
    const auto index = [](int i) { return i < 0 ? QString() : QString::number(i); };
    QString text = columns.join(u',') + QStringLiteral("\r\n");
    for (const Row &r : m_rows) {
        const Candidate &c = r.candidate;
        const Evaluation e = r.evaluation.value_or(Evaluation{});
        const bool evaluated = r.evaluation.has_value();
        const QStringList fields{c.id,
                                 QString::number(c.iteration),
                                 Candidate::originName(c.origin),
                                 c.parentId,
                                 c.planId,
                                 index(c.planIndex),
                                 defused(r.planTitle),
                                 index(c.sampleIndex),
                                 QString::number(c.fixRound),
                                 evaluated ? e.statusName() : QStringLiteral("pending"),
                                 evaluated && e.correct
                                     ? (*e.correct ? QStringLiteral("true") : QStringLiteral("false"))
                                     : QString(),
                                 known(e.l2RelErr),
                                 known(e.latencyMeanMs),
                                 known(e.latencyMinMs),
                                 known(e.latencyMaxMs),
                                 known(e.relSpread),
                                 known(e.percentOfPeak),
                                 e.bound,
                                 r.speedup ? exact(*r.speedup) : QString(),
                                 c.sourceHash,
                                 defused(ExportFormat::firstLine(e.error)),
                                 e.provenance(),
                                 defused(e.host),
                                 defused(e.sdk)};
        QStringList quoted;
        for (const QString &f : fields)
            quoted.append(csvField(f));
        text += quoted.join(u',') + QStringLiteral("\r\n");
    }
    return text.toUtf8();
}

QByteArray ReportWriter::json() const
{
    QJsonArray iterations;
    for (const auto &it : m_iterations)
        iterations.append(
            QJsonObject{{QStringLiteral("iteration"), it.iteration},
                        {QStringLiteral("candidates"), it.candidates},
                        {QStringLiteral("correct"), it.correct},
                        {QStringLiteral("best_latency_ms"), Evaluation::json(it.bestLatencyMs)},
                        {QStringLiteral("best_percent_of_peak"), Evaluation::json(it.bestPercentOfPeak)},
                        {QStringLiteral("best_candidate"), textOrNull(it.bestCandidateId)}});
    // A role none of whose calls had a price has an unknown cost (null), not a cost of 0.
    QJsonObject byRole;
    QJsonObject unpricedByRole;
    for (auto it = m_cost.costByRole.cbegin(); it != m_cost.costByRole.cend(); ++it) {
        const QString role = it.key().isEmpty() ? QStringLiteral("(none)") : it.key();
        const int unpriced = m_cost.callsWithoutCostByRole.value(it.key());
        byRole.insert(role, unpriced == m_cost.callsByRole.value(it.key()) ? QJsonValue(QJsonValue::Null)
                                                                           : QJsonValue(it.value()));
        if (unpriced > 0)
            unpricedByRole.insert(role, unpriced);
    }
    QJsonObject byStatus;
    for (auto it = m_countsByStatus.cbegin(); it != m_countsByStatus.cend(); ++it)
        byStatus.insert(it.key(), it.value());
    QJsonArray candidates;
    for (const Row &r : m_rows) {
        const Candidate &c = r.candidate;
        candidates.append(QJsonObject{
            {QStringLiteral("id"), c.id},
            {QStringLiteral("iteration"), c.iteration},
            {QStringLiteral("origin"), Candidate::originName(c.origin)},
            {QStringLiteral("parent_id"), textOrNull(c.parentId)},
            {QStringLiteral("plan"),
             c.planId.isEmpty() ? QJsonValue(QJsonValue::Null)
                                : QJsonValue(QJsonObject{
                                      {QStringLiteral("id"), c.planId},
                                      {QStringLiteral("index"), c.planIndex},
                                      {QStringLiteral("title"), r.planTitle},
                                      {QStringLiteral("steps"), QJsonArray::fromStringList(r.planSteps)}})},
            {QStringLiteral("sample_index"), c.sampleIndex},
            {QStringLiteral("fix_round"), c.fixRound},
            {QStringLiteral("source_hash"), c.sourceHash},
            {QStringLiteral("evaluation"),
             r.evaluation ? QJsonValue(evaluationJson(*r.evaluation)) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("speedup_vs_baseline"), Evaluation::json(r.speedup)},
            {QStringLiteral("source"), c.source}});
    }
    QJsonArray lineage;
    for (const Candidate &c : m_bestLineage)
        lineage.append(c.id);
    const Row *best = row(m_bestId);
    const QJsonObject o{
        {QStringLiteral("format"), reportFormat},
        {QStringLiteral("version"), reportVersion},
        {QStringLiteral("generated"), iso(m_generatedAt)},
        {QStringLiteral("tool"), QJsonObject{{QStringLiteral("name"), QStringLiteral("AccelOpt Workbench")},
                                             {QStringLiteral("version"), BuildInfo::appVersion()}}},
        {QStringLiteral("session"),
         QJsonObject{{QStringLiteral("id"), m_session.id},
                     {QStringLiteral("task"), m_session.taskName},
                     {QStringLiteral("task_ref"), m_session.task},
                     {QStringLiteral("target"), m_session.target},
                     {QStringLiteral("backend"), m_session.backend},
                     {QStringLiteral("host"), m_session.host},
                     {QStringLiteral("status"), SessionRecord::statusName(m_session.status)},
                     {QStringLiteral("stop_reason"), m_session.stopReason},
                     {QStringLiteral("created"), iso(m_session.created)},
                     {QStringLiteral("updated"), iso(m_session.updated)},
                     {QStringLiteral("iteration"), m_session.currentIteration},
                     {QStringLiteral("step"), m_session.currentStep}}},
        {QStringLiteral("config"), m_session.config},
        {QStringLiteral("baseline_latency_ms"), Evaluation::json(m_baselineLatencyMs)},
        {QStringLiteral("best"),
         best ? QJsonValue(QJsonObject{
                    {QStringLiteral("candidate"), m_bestId},
                    {QStringLiteral("latency_ms"), Evaluation::json(best->evaluation->latencyMeanMs)},
                    {QStringLiteral("percent_of_peak"), Evaluation::json(best->evaluation->percentOfPeak)},
                    {QStringLiteral("speedup_vs_baseline"), Evaluation::json(best->speedup)},
                    {QStringLiteral("lineage"), lineage}})
              : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("demoted"), demotedJson()},
        {QStringLiteral("cost"),
         QJsonObject{{QStringLiteral("calls"), m_cost.calls},
                     {QStringLiteral("failed_calls"), m_cost.failedCalls},
                     {QStringLiteral("prompt_tokens"), m_cost.promptTokens},
                     {QStringLiteral("completion_tokens"), m_cost.completionTokens},
                     {QStringLiteral("calls_without_tokens"), m_cost.callsWithoutTokens},
                     {QStringLiteral("cost_usd"), m_cost.calls > 0 && m_cost.callsWithoutCost >= m_cost.calls
                                                      ? QJsonValue(QJsonValue::Null)
                                                      : QJsonValue(m_cost.costUsd)},
                     {QStringLiteral("calls_without_cost"), m_cost.callsWithoutCost},
                     {QStringLiteral("cost_usd_by_role"), byRole},
                     {QStringLiteral("calls_without_cost_by_role"), unpricedByRole}}},
        {QStringLiteral("iterations"), iterations},
        {QStringLiteral("candidates_by_status"), byStatus},
        {QStringLiteral("candidates"), candidates}};
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

QByteArray ReportWriter::markdown() const
{
    const auto ms = [](std::optional<double> v) {
        return v && *v > 0 ? QString::number(*v, 'g', 6) : QStringLiteral("—");
    };
    const auto pct = [](std::optional<double> v) {
        return v && *v >= 0 ? ExportFormat::percent(*v) : QStringLiteral("—");
    };
    const auto factor = [](std::optional<double> v) {
        return v ? ExportFormat::speedup(*v) : QStringLiteral("—");
    };
    const auto latencyOf = [](const Row *r) {
        return r && r->correct() && r->evaluation->latencyMeanMs > 0 ? r->evaluation->latencyMeanMs
                                                                     : std::nullopt;
    };
    const auto percentOf = [](const Row *r) {
        return r && r->evaluation ? r->evaluation->percentOfPeak : std::nullopt;
    };

    const SessionRecord &s = m_session;
    QString md;
    md += QStringLiteral("# AccelOpt session report: %1\n\n").arg(cell(orDash(s.taskName)));
    md += QStringLiteral("| | |\n|---|---|\n");
    md += QStringLiteral("| Session | `%1` |\n").arg(s.id);
    md += QStringLiteral("| Task | %1 |\n").arg(cell(orDash(s.taskName)));
    md += QStringLiteral("| Target / backend | %1 / %2 |\n")
              .arg(cell(orDash(s.target)), cell(orDash(s.backend)));
    md += QStringLiteral("| Host | %1 |\n").arg(cell(orDash(s.host)));
    QString state =
        QStringLiteral("%1 at iteration %2").arg(SessionRecord::statusName(s.status)).arg(s.currentIteration);
    if (!s.currentStep.isEmpty())
        state += QStringLiteral(", after step '%1'").arg(s.currentStep);
    if (!s.stopReason.isEmpty())
        state += QStringLiteral(", stopped by: %1").arg(s.stopReason);
    md += QStringLiteral("| Status | %1 |\n").arg(cell(state));
    md += QStringLiteral("| Started | %1 |\n").arg(iso(s.created));
    md += QStringLiteral("| Last update | %1 |\n").arg(iso(s.updated));
    md += QStringLiteral("| Report generated | %1 by AccelOpt Workbench %2 |\n\n")
              .arg(iso(m_generatedAt), BuildInfo::appVersion());

    const Row *best = row(m_bestId);
    md += QStringLiteral("## Result\n\n");
    md += QStringLiteral("- Baseline: %1\n")
              .arg(m_baselineLatencyMs ? ExportFormat::milliseconds(*m_baselineLatencyMs)
                                       : QStringLiteral("no correct timing"));
    if (best)
        md +=
            QStringLiteral("- Best: candidate `%1` (iteration %2): %3, %4 of peak, %5 over the baseline\n\n")
                .arg(best->candidate.id)
                .arg(best->candidate.iteration)
                .arg(ms(best->evaluation->latencyMeanMs), pct(percentOf(best)), factor(best->speedup));
    else
        md += QStringLiteral("- Best: none yet: no candidate has passed correctness\n\n");
    // A faster kernel the search rejected is said here, not only in a tooltip: why the best is what it is.
    for (auto it = m_demoted.cbegin(); it != m_demoted.cend(); ++it) {
        const Row *demoted = row(it.key());
        md += QStringLiteral(
                  "- Demoted: candidate `%1`%2 failed its re-measurement on fresh seeds at the small size "
                  "(%3%4), so it is not the best and the memory keeps no lesson from it\n")
                  .arg(it.key(),
                       demoted && demoted->speedup
                           ? QStringLiteral(" (measured %1 over the baseline)").arg(factor(demoted->speedup))
                           : QString(),
                       it.value().ok() ? QStringLiteral("incorrect") : it.value().statusName(),
                       it.value().error.isEmpty()
                           ? QString()
                           : QStringLiteral(": ") + ExportFormat::firstLine(it.value().error));
    }
    if (!m_demoted.isEmpty())
        md += u'\n';

    md += QStringLiteral("## Search settings\n\n");
    if (s.config.isEmpty()) {
        md += QStringLiteral("None recorded.\n\n");
    } else {
        md += QStringLiteral("| Setting | Value |\n|---|---|\n");
        for (auto it = s.config.constBegin(); it != s.config.constEnd(); ++it)
            md += QStringLiteral("| %1 | %2 |\n").arg(cell(it.key()), cell(valueText(it.value())));
        md += u'\n';
    }

    md += QStringLiteral("## Iterations\n\n");
    md += QStringLiteral(
        "| Iteration | Candidates | Correct | Best latency (ms) | % of peak | Best candidate |\n"
        "|---:|---:|---:|---:|---:|---|\n");
    for (const auto &it : m_iterations)
        md += QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 |\n")
                  .arg(it.iteration)
                  .arg(it.candidates)
                  .arg(it.correct)
                  .arg(ms(it.bestLatencyMs), pct(it.bestPercentOfPeak), code(it.bestCandidateId));
    md += u'\n';

    md += QStringLiteral("## Lineage of the best kernel\n\n");
    if (m_bestLineage.isEmpty()) {
        md += QStringLiteral("No correct kernel yet.\n\n");
    } else {
        md += QStringLiteral(
            "| Step | Candidate | Iteration | Origin | Plan | Latency (ms) | Speedup vs baseline | "
            "Gain over previous step |\n|---:|---|---:|---|---|---:|---:|---:|\n");
        std::optional<double> previous;
        for (qsizetype i = 0; i < m_bestLineage.size(); ++i) {
            const Row *r = row(m_bestLineage.at(i).id);
            const std::optional<double> latency = latencyOf(r);
            const std::optional<double> gain =
                previous && latency ? ExportFormat::speedupOver(*previous, *latency) : std::nullopt;
            const Candidate &c = m_bestLineage.at(i);
            QString origin = Candidate::originName(c.origin);
            if (c.origin == Candidate::Origin::Fixer)
                origin += QStringLiteral(" round %1").arg(c.fixRound);
            md += QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 | %8 |\n")
                      .arg(i)
                      .arg(code(c.id))
                      .arg(c.iteration)
                      .arg(origin, r ? cell(orDash(r->planTitle)) : QStringLiteral("—"), ms(latency),
                           factor(r ? r->speedup : std::nullopt), factor(gain));
            // A fixer's parent is the broken kernel, which has no timing: the gain spans it.
            if (latency)
                previous = latency;
        }
        md += u'\n';
    }

    md += QStringLiteral("## Cost\n\n");
    if (m_cost.calls == 0) {
        md += QStringLiteral("No LLM calls recorded.\n\n");
    } else {
        md += QStringLiteral("| Role | Cost (USD) |\n|---|---:|\n");
        for (auto it = m_cost.costByRole.cbegin(); it != m_cost.costByRole.cend(); ++it)
            md += QStringLiteral("| %1 | %2 |\n").arg(cell(orDash(it.key())), roleCost(m_cost, it.key()));
        // Unknown when no call had a price: a total of 0.0000 would read as free. (A partly priced total is
        // the sum of the priced calls; the line below says what it leaves out.)
        const QString total = m_cost.callsWithoutCost >= m_cost.calls ? QStringLiteral("unknown")
                                                                      : QString::number(m_cost.costUsd, 'f', 4);
        md += QStringLiteral("| **Total** | **%1** |\n\n").arg(total);
        md += QStringLiteral("%1 LLM calls (%2 failed), %3 prompt + %4 completion tokens.")
                  .arg(m_cost.calls)
                  .arg(m_cost.failedCalls)
                  .arg(m_cost.promptTokens)
                  .arg(m_cost.completionTokens);
        if (m_cost.callsWithoutCost > 0 || m_cost.callsWithoutTokens > 0)
            md += QStringLiteral(" Not included: %1 calls without a known price, %2 without token counts.")
                      .arg(m_cost.callsWithoutCost)
                      .arg(m_cost.callsWithoutTokens);
        md += QStringLiteral("\n\n");
    }

    md += QStringLiteral("## Candidates by status\n\n| Status | Count |\n|---|---:|\n");
    for (auto it = m_countsByStatus.cbegin(); it != m_countsByStatus.cend(); ++it)
        md += QStringLiteral("| %1 | %2 |\n").arg(cell(it.key()), QString::number(it.value()));
    md += QStringLiteral("| **All** | **%1** |\n\n").arg(m_rows.size());

    md += QStringLiteral("## Best kernel\n\n");
    if (best) {
        const QString fence = fenceFor(best->candidate.source);
        QString source = best->candidate.source;
        if (!source.endsWith(u'\n'))
            source += u'\n';
        md += QStringLiteral("Candidate `%1`:\n\n%2python\n%3%2\n").arg(best->candidate.id, fence, source);
    } else {
        md += QStringLiteral("None yet.\n");
    }
    return md.toUtf8();
}
