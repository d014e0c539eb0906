#include "advice/advicetemplate.h"

#include "advice/profilevalues.h"
#include "advice/rulecondition.h"

std::optional<AdviceTemplate> AdviceTemplate::parse(const QString &text, QString *error)
{
    auto fail = [error](const QString &message) {
        if (error)
            *error = message;
        return std::nullopt;
    };
    AdviceTemplate t;
    t.m_text = text;
    QString literal;
    qsizetype i = 0;
    while (i < text.size()) {
        const QChar c = text.at(i);
        if (c != u'{') {
            literal += c;
            ++i;
            continue;
        }
        if (i + 1 < text.size() && text.at(i + 1) == u'{') {
            literal += u'{';
            i += 2;
            continue;
        }
        const qsizetype close = text.indexOf(u'}', i + 1);
        if (close < 0)
            return fail(QStringLiteral("the '{' at character %1 is never closed").arg(i + 1));
        const QString inside = text.mid(i + 1, close - i - 1).trimmed();
        const QString name = inside.section(u'|', 0, 0).trimmed();
        const QString unitName = inside.contains(u'|') ? inside.section(u'|', 1).trimmed() : QString();
        if (!RuleCondition::isValueName(name))
            return fail(QStringLiteral("{%1} does not name a value (snake_case, like "
                                       "{dma_transfer_average_bytes})")
                            .arg(inside));
        Piece piece{QString(), name, std::nullopt};
        if (inside.contains(u'|')) {
            piece.unit = ValueUnit::fromName(unitName);
            if (!piece.unit)
                return fail(QStringLiteral("unknown unit type '%1' in {%2}; use one of %3")
                                .arg(unitName, inside, ValueUnit::names().join(QStringLiteral(", "))));
        }
        if (!literal.isEmpty())
            t.m_pieces << Piece{literal, QString(), std::nullopt};
        literal.clear();
        t.m_pieces << piece;
        i = close + 1;
    }
    if (!literal.isEmpty())
        t.m_pieces << Piece{literal, QString(), std::nullopt};
    return t;
}

QString AdviceTemplate::render(const ProfileValues &values) const
{
    QString out;
    for (const Piece &p : m_pieces) {
        if (p.name.isEmpty()) {
            out += p.literal;
        } else if (p.name == QStringLiteral("bound")) {
            out += values.bound().isEmpty() ? QStringLiteral("(not reported)") : values.bound();
        } else if (const auto v = values.value(p.name)) {
            out += ValueUnit::format(*v, p.unit.value_or(ValueUnit::forValue(p.name)));
        } else {
            out += QStringLiteral("(not reported)");
        }
    }
    return out;
}

QStringList AdviceTemplate::valueNames() const
{
    QStringList names;
    for (const Piece &p : m_pieces)
        if (!p.name.isEmpty() && p.name != QStringLiteral("bound") && !names.contains(p.name))
            names << p.name;
    return names;
}
