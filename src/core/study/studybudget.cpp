#include "studybudget.h"

#include <QStringList>

#include <cmath>

QString StudyBudget::kindName() const
{
    switch (kind) {
    case Kind::Usd:
        return QStringLiteral("usd");
    case Kind::Tokens:
        return QStringLiteral("tokens");
    case Kind::Evaluations:
        break;
    }
    return QStringLiteral("evaluations");
}

std::optional<StudyBudget::Kind> StudyBudget::kindFromName(const QString &name)
{
    if (name == QStringLiteral("usd"))
        return Kind::Usd;
    if (name == QStringLiteral("tokens"))
        return Kind::Tokens;
    if (name == QStringLiteral("evaluations"))
        return Kind::Evaluations;
    return std::nullopt;
}

QStringList StudyBudget::problems() const
{
    QStringList out;
    if (!std::isfinite(amount) || amount <= 0)
        out << QStringLiteral("the budget must be positive (it is %1)").arg(amount);
    if (kind != Kind::Usd && amount != std::floor(amount))
        out << QStringLiteral("a %1 budget must be a whole number (it is %2)").arg(kindName()).arg(amount);
    if (slices < 1 || slices > 100)
        out << QStringLiteral("the slices must be 1 to 100 (they are %1)").arg(slices);
    return out;
}

QJsonObject StudyBudget::toJson() const
{
    return {{QStringLiteral("kind"), kindName()},
            {QStringLiteral("amount"), amount},
            {QStringLiteral("slices"), slices}};
}

std::optional<StudyBudget> StudyBudget::fromJson(const QJsonObject &o, QString *error)
{
    StudyBudget b;
    const auto kind = kindFromName(o.value(QStringLiteral("kind")).toString());
    if (!kind) {
        if (error)
            *error = QStringLiteral("budget kind '%1' is not usd, tokens or evaluations")
                         .arg(o.value(QStringLiteral("kind")).toString());
        return std::nullopt;
    }
    b.kind = *kind;
    b.amount = o.value(QStringLiteral("amount")).toDouble();
    b.slices = o.value(QStringLiteral("slices")).toInt();
    if (const QStringList p = b.problems(); !p.isEmpty()) {
        if (error)
            *error = p.join(QStringLiteral("; "));
        return std::nullopt;
    }
    return b;
}
