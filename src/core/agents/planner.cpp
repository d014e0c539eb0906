#include "agents/planner.h"

#include "agents/fencedblocks.h"
#include "agents/profileglossary.h"
#include "agents/promptlibrary.h"
#include "agents/replytext.h"

#include <QRegularExpression>

namespace {
QString formatOne(const Experience &e)
{
    QString text = QStringLiteral("### %1 (measured %2x)\n%3\n")
                       .arg(e.title.isEmpty() ? QStringLiteral("(untitled)") : e.title)
                       .arg(e.speedup, 0, 'f', 2)
                       .arg(e.lesson.trimmed());
    if (!e.snippetBefore.trimmed().isEmpty())
        text += QStringLiteral("Before:\n```python\n%1\n```\n").arg(e.snippetBefore.trimmed());
    if (!e.snippetAfter.trimmed().isEmpty())
        text += QStringLiteral("After:\n```python\n%1\n```\n").arg(e.snippetAfter.trimmed());
    return text;
}

// One line, so the planner weighs a simulator's prediction differently from a device's measurement.
QString provenanceLine(const QString &provenance)
{
    if (provenance.trimmed().isEmpty())
        return {};
    const bool simulated = provenance.startsWith(QStringLiteral("nkisim"));
    return QStringLiteral("Source of these numbers: %1%2.\n")
        .arg(provenance.trimmed(),
             simulated ? QStringLiteral(" (a simulator's prediction, not a device measurement)") : QString());
}
} // namespace

QString Planner::formatExperiences(const QList<Experience> &experiences)
{
    QStringList good, bad;
    for (const Experience &e : experiences)
        (e.isNegative() ? bad : good) << formatOne(e);
    QString text;
    text += QStringLiteral("## Changes that made kernels faster\n\n");
    text += good.isEmpty() ? QStringLiteral("(none recorded yet)\n") : good.join(u'\n');
    text += QStringLiteral("\n## Changes that made kernels slower (avoid repeating them)\n\n");
    text += bad.isEmpty() ? QStringLiteral("(none recorded yet)\n") : bad.join(u'\n');
    return text;
}

ChatMessages Planner::messages(const PromptLibrary &prompts, const Input &input)
{
    return prompts.render(
        AgentRole::Planner,
        {{QStringLiteral("reference"), input.reference.trimmed()},
         {QStringLiteral("kernel"), input.kernel.trimmed()},
         {QStringLiteral("profile"),
          provenanceLine(input.provenance) + ProfileGlossary::format(input.latencyMs, input.metrics)},
         {QStringLiteral("glossary"), ProfileGlossary::glossaryFor(input.metrics)},
         {QStringLiteral("findings"), input.findings.trimmed().isEmpty()
                                          ? QStringLiteral("(no findings available)")
                                          : input.findings.trimmed()},
         {QStringLiteral("experiences"), formatExperiences(input.experiences)},
         {QStringLiteral("api_notes"),
          prompts.apiNotes(NkiGeneration::of(input.kernel), AgentRole::Planner)}});
}

ParseResult<Plan> Planner::parse(const QString &reply)
{
    using Kind = AgentParseError::Kind;
    if (reply.trimmed().isEmpty())
        return AgentParseError{Kind::Empty, QStringLiteral("the planner's reply is empty")};
    const QList<FencedBlock> blocks = FencedBlocks::scan(reply);
    if (!blocks.isEmpty() && !blocks.last().closed)
        return AgentParseError{Kind::Truncated,
                               QStringLiteral("the plan ends inside the code block opened at line "
                                              "%1: it was cut off")
                                   .arg(blocks.last().line)};
    const QStringList prose = FencedBlocks::prose(reply).split(u'\n');
    Plan plan;
    plan.text = reply.trimmed();
    int titleLine = -1;
    plan.title = ReplyText::title(prose, &titleLine);

    static const QRegularExpression item(QStringLiteral("^\\s*(?:\\d+[.)]|[-*+])\\s+(.*\\S)\\s*$"));
    QStringList paragraph;
    for (int i = titleLine + 1; i < prose.size(); ++i) {
        const QString line = prose.at(i);
        const auto m = item.match(line);
        if (m.hasMatch())
            plan.steps << ReplyText::stripLabel(m.captured(1), QString());
        else if (!line.trimmed().isEmpty() &&
                 !line.trimmed().startsWith(QStringLiteral("steps"), Qt::CaseInsensitive) &&
                 !line.trimmed().startsWith(QStringLiteral("**steps"), Qt::CaseInsensitive))
            paragraph << line.trimmed();
    }
    // A plan written as prose is still a plan: one step, the paragraph.
    if (plan.steps.isEmpty() && !paragraph.isEmpty())
        plan.steps << paragraph.join(u' ');
    if (plan.steps.isEmpty() && !blocks.isEmpty())
        plan.steps << QStringLiteral("(see the code in the plan)");
    if (plan.title.isEmpty() || plan.steps.isEmpty())
        return AgentParseError{Kind::Malformed,
                               QStringLiteral("the planner's reply has a title but no steps: '%1'")
                                   .arg(ReplyText::clip(reply, 80))};
    return plan;
}
