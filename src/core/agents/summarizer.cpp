#include "agents/summarizer.h"

#include "agents/fencedblocks.h"
#include "agents/profileglossary.h"
#include "agents/promptlibrary.h"
#include "agents/replytext.h"

#include <QRegularExpression>

ChatMessages Summarizer::messages(const PromptLibrary &prompts, const Input &input)
{
    const QString direction =
        input.speedup >= 1.0
            ? QStringLiteral("The change made the kernel faster: it now runs %1x as fast. Describe it as a "
                             "technique worth repeating.")
                  .arg(input.speedup, 0, 'f', 3)
            : QStringLiteral(
                  "The change made the kernel slower: it now runs at %1x of its former speed. Describe "
                  "it as a pitfall to avoid, saying what made it slower.")
                  .arg(input.speedup, 0, 'f', 3);
    return prompts.render(AgentRole::Summarizer,
                          {{QStringLiteral("before_kernel"), input.beforeKernel.trimmed()},
                           {QStringLiteral("after_kernel"), input.afterKernel.trimmed()},
                           {QStringLiteral("speedup"), QStringLiteral("%1x").arg(input.speedup, 0, 'f', 3)},
                           {QStringLiteral("direction"), direction},
                           {QStringLiteral("before_profile"),
                            ProfileGlossary::format(input.beforeLatencyMs, input.beforeMetrics)},
                           {QStringLiteral("after_profile"),
                            ProfileGlossary::format(input.afterLatencyMs, input.afterMetrics)}});
}

ParseResult<Experience> Summarizer::parse(const QString &reply, double speedup)
{
    using Kind = AgentParseError::Kind;
    const QString trimmed = reply.trimmed();
    if (trimmed.isEmpty())
        return AgentParseError{Kind::Empty, QStringLiteral("the summarizer's reply is empty")};
    if (trimmed.compare(QStringLiteral("NO CHANGE"), Qt::CaseInsensitive) == 0 ||
        trimmed.startsWith(QStringLiteral("NO CHANGE\n"), Qt::CaseInsensitive))
        return AgentParseError{Kind::NoChange, QStringLiteral("the summarizer found no meaningful difference "
                                                              "between the two kernels")};
    const QList<FencedBlock> blocks = FencedBlocks::scan(reply);
    if (!blocks.isEmpty() && !blocks.last().closed)
        return AgentParseError{Kind::Truncated,
                               QStringLiteral("the summary ends inside the code block opened at "
                                              "line %1: it was cut off")
                                   .arg(blocks.last().line)};
    if (blocks.size() < 2)
        return AgentParseError{Kind::NoCode,
                               QStringLiteral("the summary needs a before and an after snippet, each "
                                              "in a code block; it has %1")
                                   .arg(blocks.size())};
    const QStringList prose = FencedBlocks::prose(reply).split(u'\n');
    Experience e;
    e.speedup = speedup;
    int titleLine = -1;
    e.title = ReplyText::title(prose, &titleLine);
    // The lesson is the prose after the title, minus the labels that introduce the snippets.
    static const QRegularExpression snippetLabel(
        QStringLiteral("^\\s*(\\*\\*)?\\s*(before|after|original|optimized|slow|fast)( code| "
                       "snippet)?\\s*:?\\s*(\\*\\*)?\\s*:?\\s*$"),
        QRegularExpression::CaseInsensitiveOption);
    QStringList lesson;
    for (int i = titleLine + 1; i < prose.size(); ++i) {
        const QString line = prose.at(i);
        if (snippetLabel.match(line).hasMatch())
            continue;
        lesson << ReplyText::stripLabel(line, QStringLiteral("Lesson"));
    }
    e.lesson = lesson.join(u'\n').trimmed();
    e.snippetBefore = blocks.at(0).code.trimmed();
    e.snippetAfter = blocks.at(1).code.trimmed();
    if (e.title.isEmpty())
        return AgentParseError{Kind::Malformed, QStringLiteral("the summary has no title")};
    if (e.lesson.isEmpty())
        return AgentParseError{Kind::Malformed,
                               QStringLiteral("the summary has a title and snippets but no lesson")};
    return e;
}
