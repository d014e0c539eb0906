#include "studyresult.h"

#include <QJsonArray>

#include <algorithm>

namespace {

const RunMeasure *latest(const StudyState::Run &run, int round)
{
    const RunMeasure *found = nullptr;
    for (const StudyState::Checkpoint &c : run.checkpoints)
        if (c.round <= round)
            found = &c.measure;
    return found;
}

QString number(const std::optional<double> &v, int decimals)
{
    return v ? QString::number(*v, 'f', decimals) : QString();
}

QString spreadText(const StudyResult::Spread &s, int decimals)
{
    if (s.n == 0)
        return QStringLiteral("-");
    if (s.n == 1)
        return QString::number(s.mean, 'f', decimals);
    return QStringLiteral("%1 [%2-%3]")
        .arg(QString::number(s.mean, 'f', decimals), QString::number(s.min, 'f', decimals),
             QString::number(s.max, 'f', decimals));
}

QJsonObject spreadJson(const StudyResult::Spread &s)
{
    if (s.n == 0)
        return {{QStringLiteral("n"), 0}};
    return {{QStringLiteral("n"), s.n},
            {QStringLiteral("mean"), s.mean},
            {QStringLiteral("min"), s.min},
            {QStringLiteral("max"), s.max}};
}

} // namespace

StudyResult::Spread StudyResult::Spread::of(const QList<double> &values)
{
    Spread s;
    s.n = int(values.size());
    if (values.isEmpty())
        return s;
    double sum = 0;
    for (double v : values)
        sum += v;
    s.mean = sum / s.n;
    s.min = *std::min_element(values.cbegin(), values.cend());
    s.max = *std::max_element(values.cbegin(), values.cend());
    return s;
}

StudyResult::StudyResult(const StudyState &state) : m_state(state)
{
    QStringList unpricedArms;
    bool anyCall = false;
    for (const QString &task : state.tasks)
        for (const ArmSpec &arm : state.arms) {
            Row row;
            row.task = task;
            row.arm = arm.name;
            row.spec = arm.spec();
            QList<double> percents, speedups, usd;
            bool priced = true;
            for (const StudyState::Run &run : state.runs) {
                if (run.task != task || run.arm != arm.name)
                    continue;
                const RunMeasure *m = latest(run, state.budget.slices);
                if (!m)
                    continue;
                ++row.runs;
                if (m->bestPercentOfPeak)
                    percents << *m->bestPercentOfPeak;
                if (m->speedup)
                    speedups << *m->speedup;
                if (m->costUsd)
                    usd << *m->costUsd;
                else
                    priced = false;
                row.tokens += double(m->tokens);
                row.evaluations += m->evaluations;
                row.deviceSeconds += m->deviceSeconds;
                row.unpricedCalls += m->callsWithoutCost;
                anyCall = anyCall || m->calls > 0;
            }
            if (row.runs > 0) {
                row.tokens /= row.runs;
                row.evaluations /= row.runs;
                row.deviceSeconds /= row.runs;
            }
            row.percentOfPeak = Spread::of(percents);
            row.speedup = Spread::of(speedups);
            if (priced && row.runs > 0)
                row.costUsd = Spread::of(usd).mean;
            else if (row.runs > 0 && !unpricedArms.contains(arm.name))
                unpricedArms << arm.name;
            m_rows << row;
        }
    m_basis = unpricedArms.isEmpty() && anyCall ? QStringLiteral("usd") : QStringLiteral("tokens");
    if (!unpricedArms.isEmpty())
        m_note = QStringLiteral("the cost in money is unknown for arm%1 %2: %3 model%4 no price in the LLM "
                                "settings (accelopt models price), so the arms are compared on tokens and "
                                "evaluations instead; a money figure for only some arms would not compare")
                     .arg(unpricedArms.size() > 1 ? QStringLiteral("s") : QString(),
                          unpricedArms.join(QStringLiteral(", ")),
                          unpricedArms.size() > 1 ? QStringLiteral("their") : QStringLiteral("its"),
                          unpricedArms.size() > 1 ? QStringLiteral("s have") : QStringLiteral(" has"));

    for (const QString &task : state.tasks)
        for (const ArmSpec &arm : state.arms) {
            Series series{task, arm.name, {}};
            for (int round = 1; round <= state.budget.slices; ++round) {
                QList<double> percents;
                double cost = 0;
                int n = 0;
                bool complete = true;
                for (const StudyState::Run &run : state.runs) {
                    if (run.task != task || run.arm != arm.name)
                        continue;
                    const RunMeasure *m = latest(run, round);
                    // A point stands for every repeat or for none: a mean over some would not compare.
                    if (!m || (!run.done && run.checkpoints.last().round < round)) {
                        complete = false;
                        break;
                    }
                    ++n;
                    cost += m_basis == QStringLiteral("usd") ? m->costUsd.value_or(0) : double(m->tokens);
                    if (m->bestPercentOfPeak)
                        percents << *m->bestPercentOfPeak;
                }
                if (!complete || n == 0)
                    break;
                series.points << Point{round, cost / n, Spread::of(percents)};
            }
            m_chart << series;
        }
}

QString StudyResult::table() const
{
    QStringList header{QStringLiteral("task"),       QStringLiteral("arm"),     QStringLiteral("runs"),
                       QStringLiteral("best %peak"), QStringLiteral("speedup"), QStringLiteral("usd"),
                       QStringLiteral("tokens"),     QStringLiteral("evals"),   QStringLiteral("device s")};
    QList<QStringList> lines{header};
    for (const Row &r : m_rows)
        lines << QStringList{r.task,
                             r.arm,
                             QString::number(r.runs),
                             spreadText(r.percentOfPeak, 2),
                             spreadText(r.speedup, 3),
                             r.costUsd ? QString::number(*r.costUsd, 'f', 4) : QStringLiteral("unpriced"),
                             QString::number(r.tokens, 'f', 0),
                             QString::number(r.evaluations, 'f', 1),
                             QString::number(r.deviceSeconds, 'f', 2)};
    QList<qsizetype> widths(header.size(), 0);
    for (const QStringList &l : lines)
        for (qsizetype i = 0; i < l.size(); ++i)
            widths[i] = std::max(widths[i], l.at(i).size());
    QString out = QStringLiteral("study %1: budget %2 %3 per run in %4 rounds, %5 repeat%6; cost basis %7\n")
                      .arg(m_state.id)
                      .arg(m_state.budget.amount)
                      .arg(m_state.budget.kindName())
                      .arg(m_state.budget.slices)
                      .arg(m_state.repeats)
                      .arg(m_state.repeats > 1 ? QStringLiteral("s") : QString(), m_basis);
    for (const QStringList &l : lines) {
        QStringList cells;
        for (qsizetype i = 0; i < l.size(); ++i)
            cells << (i < 2 ? l.at(i).leftJustified(widths[i]) : l.at(i).rightJustified(widths[i]));
        out += cells.join(QStringLiteral("  ")).trimmed() + u'\n';
    }
    if (!m_note.isEmpty())
        out += QStringLiteral("note: ") + m_note + u'\n';
    if (!m_state.finished)
        out += QStringLiteral("partial: round %1 of %2 under way; resume with 'accelopt study --resume %3'\n")
                   .arg(m_state.round)
                   .arg(m_state.budget.slices)
                   .arg(m_state.id);
    return out;
}

QString StudyResult::csv() const
{
    QString out = QStringLiteral("study,task,arm,repeat,session,rounds,best_percent_of_peak,speedup,cost_usd,"
                                 "tokens,evaluations,device_seconds,unpriced_calls,stop_reason\n");
    for (const StudyState::Run &run : m_state.runs) {
        const RunMeasure *m = latest(run, m_state.budget.slices);
        if (!m)
            continue;
        out += QStringList{m_state.id,
                           run.task,
                           run.arm,
                           QString::number(run.repeat + 1),
                           run.sessionId,
                           QString::number(run.checkpoints.size()),
                           number(m->bestPercentOfPeak, 6),
                           number(m->speedup, 6),
                           number(m->costUsd, 9),
                           QString::number(m->tokens),
                           QString::number(m->evaluations),
                           QString::number(m->deviceSeconds, 'f', 6),
                           QString::number(m->callsWithoutCost),
                           run.stopReason}
                   .join(u',') +
               u'\n';
    }
    return out;
}

QJsonObject StudyResult::toJson() const
{
    QJsonArray rows;
    for (const Row &r : m_rows)
        rows << QJsonObject{{QStringLiteral("task"), r.task},
                            {QStringLiteral("arm"), r.arm},
                            {QStringLiteral("spec"), r.spec},
                            {QStringLiteral("runs"), r.runs},
                            {QStringLiteral("best_percent_of_peak"), spreadJson(r.percentOfPeak)},
                            {QStringLiteral("speedup"), spreadJson(r.speedup)},
                            {QStringLiteral("cost_usd"), r.costUsd ? QJsonValue(*r.costUsd) : QJsonValue()},
                            {QStringLiteral("tokens"), r.tokens},
                            {QStringLiteral("evaluations"), r.evaluations},
                            {QStringLiteral("device_seconds"), r.deviceSeconds},
                            {QStringLiteral("unpriced_calls"), r.unpricedCalls}};
    QJsonArray chart;
    for (const Series &s : m_chart) {
        QJsonArray points;
        for (const Point &p : s.points)
            points << QJsonObject{{QStringLiteral("round"), p.round},
                                  {QStringLiteral("cost"), p.cost},
                                  {QStringLiteral("best_percent_of_peak"), spreadJson(p.percentOfPeak)}};
        chart << QJsonObject{{QStringLiteral("task"), s.task},
                             {QStringLiteral("arm"), s.arm},
                             {QStringLiteral("points"), points}};
    }
    QJsonArray sessions;
    for (const StudyState::Run &run : m_state.runs)
        sessions << QJsonObject{{QStringLiteral("task"), run.task},
                                {QStringLiteral("arm"), run.arm},
                                {QStringLiteral("repeat"), run.repeat + 1},
                                {QStringLiteral("session"), run.sessionId},
                                {QStringLiteral("stop_reason"), run.stopReason}};
    return {{QStringLiteral("study"), m_state.id},    {QStringLiteral("finished"), m_state.finished},
            {QStringLiteral("round"), m_state.round}, {QStringLiteral("budget"), m_state.budget.toJson()},
            {QStringLiteral("basis"), m_basis},       {QStringLiteral("note"), m_note},
            {QStringLiteral("rows"), rows},           {QStringLiteral("chart"), chart},
            {QStringLiteral("sessions"), sessions}};
}
