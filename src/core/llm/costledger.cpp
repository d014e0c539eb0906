#include "llm/costledger.h"

namespace {
void book(CostLedger::Totals &t, const std::optional<TokenUsage> &usage, const std::optional<double> &cost)
{
    ++t.calls;
    if (!usage) {
        ++t.unknownUsageCalls;
        return;
    }
    t.inputTokens += usage->inputTokens;
    t.outputTokens += usage->outputTokens;
    if (cost)
        t.knownUsd += *cost;
    else
        ++t.unpricedCalls;
}
} // namespace

std::optional<double> CostLedger::add(AgentRole role, const QString &model,
                                      const std::optional<TokenUsage> &usage)
{
    const std::optional<double> cost = usage ? m_prices.cost(model, *usage) : std::nullopt;
    book(m_total, usage, cost);
    book(m_byRole[AgentRoles::name(role)], usage, cost);
    book(m_byModel[model], usage, cost);
    return cost;
}

void CostLedger::clear()
{
    m_total = {};
    m_byRole.clear();
    m_byModel.clear();
}

QString CostLedger::describe(const Totals &t)
{
    QString text = QStringLiteral("$%1").arg(t.knownUsd, 0, 'f', 4);
    const int unknown = t.unknownUsageCalls + t.unpricedCalls;
    if (unknown > 0)
        text += QStringLiteral(" (+%1 call%2 of unknown cost)").arg(unknown).arg(unknown == 1 ? "" : "s");
    return text;
}
