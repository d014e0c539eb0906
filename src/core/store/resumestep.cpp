#include "store/resumestep.h"

QString ResumeSteps::name(ResumeStep step)
{
    switch (step) {
    case ResumeStep::Baseline:
        return QStringLiteral("baseline");
    case ResumeStep::Plan:
        return QStringLiteral("plan");
    case ResumeStep::Execute:
        return QStringLiteral("execute");
    case ResumeStep::Select:
        return QStringLiteral("select");
    case ResumeStep::Summarize:
        break;
    }
    return QStringLiteral("summarize");
}

std::optional<ResumeStep> ResumeSteps::fromName(const QString &name)
{
    for (ResumeStep step : {ResumeStep::Baseline, ResumeStep::Plan, ResumeStep::Execute, ResumeStep::Select,
                            ResumeStep::Summarize})
        if (ResumeSteps::name(step) == name)
            return step;
    return std::nullopt;
}
