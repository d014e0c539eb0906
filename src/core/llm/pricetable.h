#pragma once

#include "llm/tokenusage.h"

#include <QJsonObject>
#include <QMap>
#include <QString>

#include <optional>

// USD per million input and output tokens, per model id, as the user enters them (prices change; nothing is
// hard-coded). A model without an entry has an unknown cost, never a zero one.
class PriceTable
{
public:
    struct Price
    {
        double inputPerMillion = 0;
        double outputPerMillion = 0;
    };

    void set(const QString &model, Price price) { m_prices.insert(model, price); }
    void remove(const QString &model) { m_prices.remove(model); }
    std::optional<Price> price(const QString &model) const;
    std::optional<double> cost(const QString &model, const TokenUsage &usage) const;
    QStringList models() const { return m_prices.keys(); }

    QJsonObject toJson() const;
    static PriceTable fromJson(const QJsonObject &o);

private:
    QMap<QString, Price> m_prices;
};
