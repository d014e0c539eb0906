#include "llm/pricetable.h"

std::optional<PriceTable::Price> PriceTable::price(const QString &model) const
{
    const auto it = m_prices.constFind(model);
    if (it == m_prices.cend())
        return std::nullopt;
    return *it;
}

std::optional<double> PriceTable::cost(const QString &model, const TokenUsage &usage) const
{
    const auto p = price(model);
    if (!p)
        return std::nullopt;
    return (double(usage.inputTokens) * p->inputPerMillion +
            double(usage.outputTokens) * p->outputPerMillion) /
           1e6;
}

QJsonObject PriceTable::toJson() const
{
    QJsonObject o;
    for (auto it = m_prices.cbegin(); it != m_prices.cend(); ++it)
        o.insert(it.key(), QJsonObject{{QStringLiteral("input_per_mtok"), it->inputPerMillion},
                                       {QStringLiteral("output_per_mtok"), it->outputPerMillion}});
    return o;
}

PriceTable PriceTable::fromJson(const QJsonObject &o)
{
    PriceTable table;
    for (auto it = o.begin(); it != o.end(); ++it) {
        const QJsonObject p = it.value().toObject();
        table.set(it.key(), {p.value(QStringLiteral("input_per_mtok")).toDouble(),
                             p.value(QStringLiteral("output_per_mtok")).toDouble()});
    }
    return table;
}
