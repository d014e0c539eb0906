#pragma once

#include "search/searchconfig.h"

#include <QString>

#include <optional>

// Where a search stands, as the stop rules need it. Checked between iterations (and the budgets also while
// one runs), so a budget may be overshot by the calls already in flight, never by a new step.
struct SearchProgress
{
    int iterationsDone = 0; // completed iterations, the baseline not counted
    double costUsd = 0;
    qint64 tokens = 0;
    double wallSeconds = 0;
    std::optional<double> bestPercentOfPeak;
    int iterationsWithoutImprovement = 0;
};

// Why a search stopped (docs/architecture.md, "One optimization", step 8).
enum class StopReason
{
    None,
    Iterations,
    MoneyBudget,
    TokenBudget,
    WallTimeBudget,
    TargetReached,
    NoImprovement,
    Stopped,      // the user asked
    Failed,       // the baseline could not be evaluated, or the store refused a write
    ModelsFailed, // every model call of an iteration failed: wrong key, unreachable server, unknown model
};

namespace StopRules {

// The first rule that applies, in this order: target reached, iterations, budgets (money, tokens, wall),
// patience. None when the search may go on.
StopReason check(const SearchConfig &config, const SearchProgress &progress);
// Only the budgets: what may cut an iteration short.
StopReason checkBudgets(const SearchConfig &config, const SearchProgress &progress);
QString name(StopReason reason); // "iterations", "money_budget", ...: for the store and the CLI
std::optional<StopReason> fromName(const QString &name);
bool isFailure(StopReason reason);   // the search could not do its job (the session failed)
QString describe(StopReason reason); // a sentence for people

} // namespace StopRules
