#include "search/stoprules.h"

namespace StopRules {

StopReason checkBudgets(const SearchConfig &config, const SearchProgress &progress)
{
    if (config.budgetUsd > 0 && progress.costUsd >= config.budgetUsd)
        return StopReason::MoneyBudget;
    if (config.budgetTokens > 0 && progress.tokens >= config.budgetTokens)
        return StopReason::TokenBudget;
    if (config.budgetWallSeconds > 0 && progress.wallSeconds >= config.budgetWallSeconds)
        return StopReason::WallTimeBudget;
    return StopReason::None;
}

StopReason check(const SearchConfig &config, const SearchProgress &progress)
{
    if (config.targetPercentOfPeak > 0 && progress.bestPercentOfPeak &&
        *progress.bestPercentOfPeak >= config.targetPercentOfPeak)
        return StopReason::TargetReached;
    if (progress.iterationsDone >= config.iterations)
        return StopReason::Iterations;
    if (const StopReason budget = checkBudgets(config, progress); budget != StopReason::None)
        return budget;
    if (config.patience > 0 && progress.iterationsWithoutImprovement >= config.patience)
        return StopReason::NoImprovement;
    return StopReason::None;
}

QString name(StopReason reason)
{
    switch (reason) {
    case StopReason::None:
        return QStringLiteral("none");
    case StopReason::Iterations:
        return QStringLiteral("iterations");
    case StopReason::MoneyBudget:
        return QStringLiteral("money_budget");
    case StopReason::TokenBudget:
        return QStringLiteral("token_budget");
    case StopReason::WallTimeBudget:
        return QStringLiteral("wall_time_budget");
    case StopReason::TargetReached:
        return QStringLiteral("target_reached");
    case StopReason::NoImprovement:
        return QStringLiteral("no_improvement");
    case StopReason::Stopped:
        return QStringLiteral("stopped");
    case StopReason::Failed:
        return QStringLiteral("failed");
    case StopReason::ModelsFailed:
        return QStringLiteral("models_failed");
    }
    return QStringLiteral("none");
}

std::optional<StopReason> fromName(const QString &text)
{
    for (StopReason r :
         {StopReason::None, StopReason::Iterations, StopReason::MoneyBudget, StopReason::TokenBudget,
          StopReason::WallTimeBudget, StopReason::TargetReached, StopReason::NoImprovement,
          StopReason::Stopped, StopReason::Failed, StopReason::ModelsFailed})
        if (name(r) == text)
            return r;
    return std::nullopt;
}

bool isFailure(StopReason reason)
{
    return reason == StopReason::Failed || reason == StopReason::ModelsFailed;
}

QString describe(StopReason reason)
{
    switch (reason) {
    case StopReason::None:
        return QStringLiteral("still running");
    case StopReason::Iterations:
        return QStringLiteral("all iterations done");
    case StopReason::MoneyBudget:
        return QStringLiteral("the money budget is spent");
    case StopReason::TokenBudget:
        return QStringLiteral("the token budget is spent");
    case StopReason::WallTimeBudget:
        return QStringLiteral("the wall-time budget is used up");
    case StopReason::TargetReached:
        return QStringLiteral("the target % of peak is reached");
    case StopReason::NoImprovement:
        return QStringLiteral("no improvement for the configured number of iterations");
    case StopReason::Stopped:
        return QStringLiteral("stopped on request");
    case StopReason::Failed:
        return QStringLiteral("failed");
    case StopReason::ModelsFailed:
        return QStringLiteral("every model call failed");
    }
    return {};
}

} // namespace StopRules
