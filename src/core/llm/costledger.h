#pragma once

#include "llm/agentrole.h"
#include "llm/pricetable.h"

#include <QMap>

// Tokens and money spent, per call, per role, per model and in total (docs/architecture.md, "One
// optimization", step 8). Calls whose reply had no usage block, or whose model has no price, are counted as
// such, so a total is known to be a lower bound instead of silently low.
class CostLedger
{
public:
    struct Totals
    {
        int calls = 0;
        int unknownUsageCalls = 0; // no usage block: tokens and cost unknown
        int unpricedCalls = 0;     // tokens known, model missing from the price table
        qint64 inputTokens = 0;
        qint64 outputTokens = 0;
        double knownUsd = 0; // the sum over calls whose cost is known

        bool costComplete() const { return unknownUsageCalls == 0 && unpricedCalls == 0; }
    };

    void setPrices(const PriceTable &prices) { m_prices = prices; }
    const PriceTable &prices() const { return m_prices; }

    // Books one call and returns its cost when known.
    std::optional<double> add(AgentRole role, const QString &model, const std::optional<TokenUsage> &usage);

    Totals total() const { return m_total; }
    Totals forRole(AgentRole role) const { return m_byRole.value(AgentRoles::name(role)); }
    Totals forModel(const QString &model) const { return m_byModel.value(model); }
    QStringList models() const { return m_byModel.keys(); }
    void clear();

    // "$1.2345 (+3 calls of unknown cost)" for status bars and the CLI.
    static QString describe(const Totals &totals);

private:
    PriceTable m_prices;
    Totals m_total;
    QMap<QString, Totals> m_byRole;
    QMap<QString, Totals> m_byModel;
};
