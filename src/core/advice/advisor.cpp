#include "advice/advisor.h"

#include "advice/profilevalues.h"
#include "advice/ruleset.h"
#include "model/evaluation.h"

#include <QStringList>

#include <algorithm>

QList<Finding> Advisor::evaluate(const RuleSet &rules, const Evaluation &evaluation)
{
    return evaluate(rules.rules(), ProfileValues(evaluation));
}

QList<Finding> Advisor::evaluate(const QList<Rule> &rules, const ProfileValues &values)
{
    QList<Finding> findings;
    for (const Rule &rule : rules) {
        Finding f;
        if (!rule.when.holds(values, &f.evidence))
            continue;
        f.ruleId = rule.id;
        f.title = rule.title;
        f.severity = rule.severity;
        f.advice = rule.advice.render(values);
        for (const QString &name : rule.cites) {
            const auto v = values.value(name);
            f.cited << Finding::Cited{name, v,
                                      v ? ValueUnit::format(*v, ValueUnit::forValue(name))
                                        : QStringLiteral("not reported")};
        }
        findings << f;
    }
    std::stable_sort(findings.begin(), findings.end(), [](const Finding &a, const Finding &b) {
        return a.severity == Severity::Warning && b.severity != Severity::Warning;
    });
    return findings;
}

QString Advisor::format(const QList<Finding> &findings)
{
    if (findings.isEmpty())
        return QStringLiteral("No rule flagged a problem in this profile.");
    QStringList lines;
    for (const Finding &f : findings) {
        QStringList because;
        for (const Evidence &e : f.evidence)
            because << e.text();
        QString line =
            QStringLiteral("- [%1] %2: %3").arg(Severities::name(f.severity), f.title, f.advice.trimmed());
        if (!because.isEmpty())
            line += QStringLiteral(" (because %1)").arg(because.join(QStringLiteral("; ")));
        lines << line;
    }
    return lines.join(u'\n');
}

QString Advisor::forPrompt(const RuleSet &rules, const Evaluation &evaluation)
{
    if (!rules.ok())
        return QStringLiteral("(no findings available: the recommendation rules did not load)");
    const ProfileValues values(evaluation);
    if (values.isEmpty())
        return QStringLiteral("(no findings available: the kernel has no profile)");
    return format(evaluate(rules.rules(), values));
}
