#include "candidatetab.h"

#include "itemmodels/candidatetext.h"
#include "kerneleditor.h"

#include <QTextBrowser>

CandidateTab::CandidateTab(const Candidate &candidate, const std::optional<PlanRecord> &plan,
                           const std::optional<Evaluation> &evaluation, std::optional<double> speedup,
                           QWidget *parent)
    : QSplitter(Qt::Horizontal, parent), m_id(candidate.id)
{
    setProperty("candidateId", candidate.id);
    m_editor = new KernelEditor(this);
    m_editor->setUntitledName(title(candidate));
    m_editor->setText(candidate.source);
    m_editor->setReadOnly(true);
    m_editor->setModified(false);
    m_details = new QTextBrowser(this);
    m_details->setObjectName(QStringLiteral("candidateDetails"));
    m_details->setOpenLinks(false);

    QString html =
        QStringLiteral("<h3>%1</h3><p>Candidate <code>%2</code> · iteration %3 · %4</p>")
            .arg(candidate.origin == Candidate::Origin::Baseline ? tr("Baseline") : tr("Candidate"),
                 candidate.id.left(8))
            .arg(candidate.iteration)
            .arg(CandidateText::kind(candidate));
    if (!candidate.parentId.isEmpty())
        html += tr("<p>Derived from <code>%1</code>%2.</p>")
                    .arg(candidate.parentId.left(8),
                         candidate.origin == Candidate::Origin::Fixer ? tr(" (a repair of it)") : QString());
    if (plan) {
        html += tr("<h4>Plan: %1</h4><ol>").arg(plan->plan.title.toHtmlEscaped());
        for (const QString &step : plan->plan.steps)
            html += QStringLiteral("<li>%1</li>").arg(step.toHtmlEscaped());
        html += QStringLiteral("</ol>");
    }
    html += tr("<h4>Evaluation</h4>");
    if (!evaluation) {
        html += tr("<p>Not evaluated.</p>");
    } else {
        const Evaluation &e = *evaluation;
        QStringList rows;
        auto row = [&rows](const QString &k, const QString &v) {
            if (!v.isEmpty())
                rows << QStringLiteral("<tr><td>%1&nbsp;&nbsp;</td><td>%2</td></tr>").arg(k, v);
        };
        row(tr("Status"),
            e.statusName() + (e.reusedFrom.isEmpty()
                                  ? QString()
                                  : tr(" (measurement of %1, the same kernel)").arg(e.reusedFrom.left(8))));
        row(tr("Correct"), e.correct ? (*e.correct ? tr("yes") : tr("no")) : QString());
        row(tr("Latency mean"),
            e.latencyMeanMs ? CandidateText::milliseconds(e.latencyMeanMs) + tr(" ms") : QString());
        row(tr("p50 / min / max"), e.latencyP50Ms ? QStringLiteral("%1 / %2 / %3 ms")
                                                        .arg(CandidateText::milliseconds(e.latencyP50Ms),
                                                             CandidateText::milliseconds(e.latencyMinMs),
                                                             CandidateText::milliseconds(e.latencyMaxMs))
                                                  : QString());
        row(tr("Speedup"),
            speedup ? QStringLiteral("%1× over the baseline").arg(*speedup, 0, 'f', 2) : QString());
        row(tr("% of peak"),
            e.percentOfPeak ? QStringLiteral("%1 % (%2-bound)").arg(*e.percentOfPeak, 0, 'f', 1).arg(e.bound)
                            : QString());
        row(tr("L2 rel. error"), e.l2RelErr ? QString::number(*e.l2RelErr, 'g', 3) : QString());
        row(tr("Host"), e.host);
        for (const QString &warning : e.warnings)
            row(tr("Warning"), warning.toHtmlEscaped());
        html += QStringLiteral("<table>%1</table>").arg(rows.join(QString()));
        if (!e.error.isEmpty())
            html += QStringLiteral("<pre style='white-space:pre-wrap'>%1</pre>")
                        .arg(e.error.left(4000).toHtmlEscaped());
    }
    m_details->setHtml(html);
    addWidget(m_editor);
    addWidget(m_details);
    setStretchFactor(0, 3);
    setStretchFactor(1, 1);
}

QString CandidateTab::title(const Candidate &candidate)
{
    // Where it sits in the search, not its hash: "it. 2 plan 3.1", "it. 3 fix 1"; the tooltip keeps the id.
    return candidate.origin == Candidate::Origin::Baseline
               ? QStringLiteral("baseline")
               : QStringLiteral("it. %1 %2").arg(candidate.iteration).arg(CandidateText::kind(candidate));
}
