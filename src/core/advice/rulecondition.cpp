#include "advice/rulecondition.h"

#include "advice/profilevalues.h"
#include "advice/valueunit.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

#include <cmath>
#include <limits>

namespace {
const QStringList kindKeys{QStringLiteral("all"), QStringLiteral("any"), QStringLiteral("metric"),
                           QStringLiteral("ratio"), QStringLiteral("bound")};

bool fail(QString *error, const QString &path, const QString &message)
{
    if (error)
        *error = QStringLiteral("%1: %2").arg(path, message);
    return false;
}

// A key the condition's kind does not use is almost always a typo that would silently change the rule.
bool onlyKeys(const QJsonObject &o, const QStringList &allowed, const QString &path, QString *error)
{
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!allowed.contains(it.key()))
            return fail(error, path,
                        QStringLiteral("unexpected field '%1' (this condition takes %2)")
                            .arg(it.key(), allowed.join(QStringLiteral(", "))));
    return true;
}

QString quoted(const QJsonValue &v)
{
    if (v.isString())
        return u'\'' + v.toString() + u'\'';
    if (v.isDouble())
        return QString::number(v.toDouble());
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    return v.isNull()    ? QStringLiteral("null")
           : v.isArray() ? QStringLiteral("an array")
                         : QStringLiteral("an object");
}

// The bound a rule asks for, against the runner's word for the bound that holds.
bool boundMatches(const QString &wanted, const QString &actual)
{
    if (wanted == QStringLiteral("compute"))
        return actual == QStringLiteral("matmul") || actual == QStringLiteral("vector");
    return wanted == actual;
}
} // namespace

QStringList RuleCondition::opNames()
{
    return {QStringLiteral("<"), QStringLiteral("<="), QStringLiteral(">"), QStringLiteral(">="),
            QStringLiteral("==")};
}

QStringList RuleCondition::boundNames()
{
    return {QStringLiteral("compute"), QStringLiteral("memory"), QStringLiteral("matmul"),
            QStringLiteral("vector")};
}

bool RuleCondition::isValueName(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral("^[a-z][a-z0-9_]*$"));
    return pattern.match(name).hasMatch();
}

bool RuleCondition::parseComparison(const QJsonObject &o, const QString &path, RuleCondition &c,
                                    QString *error)
{
    if (!o.contains(QStringLiteral("op")))
        return fail(error, path, QStringLiteral("missing field 'op' (one of %1)").arg(opNames().join(u' ')));
    const QJsonValue op = o.value(QStringLiteral("op"));
    if (!op.isString() || !opNames().contains(op.toString()))
        return fail(error, path + QStringLiteral(".op"),
                    QStringLiteral("unknown op %1; use one of %2").arg(quoted(op), opNames().join(u' ')));
    if (!o.contains(QStringLiteral("value")))
        return fail(error, path, QStringLiteral("missing field 'value' (the threshold, a number)"));
    const QJsonValue value = o.value(QStringLiteral("value"));
    if (!value.isDouble() || !std::isfinite(value.toDouble()))
        return fail(error, path + QStringLiteral(".value"),
                    QStringLiteral("the threshold must be a number, not %1").arg(quoted(value)));
    c.m_op = op.toString();
    c.m_threshold = value.toDouble();
    return true;
}

std::optional<RuleCondition> RuleCondition::parse(const QJsonValue &json, const QString &path, QString *error)
{
    if (!json.isObject()) {
        fail(error, path, QStringLiteral("a condition is a JSON object, not %1").arg(quoted(json)));
        return std::nullopt;
    }
    const QJsonObject o = json.toObject();
    QStringList kinds;
    for (const QString &k : kindKeys)
        if (o.contains(k))
            kinds << k;
    if (kinds.isEmpty()) {
        QString stranger = o.isEmpty() ? QString() : o.begin().key();
        for (auto it = o.begin(); it != o.end(); ++it)
            if (it.key() != QStringLiteral("op") && it.key() != QStringLiteral("value")) {
                stranger = it.key();
                break;
            }
        const QString what = o.isEmpty() ? QStringLiteral("an empty condition")
                                         : QStringLiteral("unknown condition type '%1'").arg(stranger);
        fail(error, path, QStringLiteral("%1; a condition is one of %2").arg(what, kindKeys.join(u' ')));
        return std::nullopt;
    }
    if (kinds.size() > 1) {
        fail(error, path,
             QStringLiteral("a condition has one type, this one has %1")
                 .arg(kinds.join(QStringLiteral(" and "))));
        return std::nullopt;
    }
    const QString kind = kinds.first();
    RuleCondition c;
    if (kind == QStringLiteral("all") || kind == QStringLiteral("any")) {
        c.m_kind = kind == QStringLiteral("all") ? Kind::All : Kind::Any;
        const QJsonValue list = o.value(kind);
        if (!onlyKeys(o, {kind}, path, error))
            return std::nullopt;
        if (!list.isArray() || list.toArray().isEmpty()) {
            fail(error, path + u'.' + kind, QStringLiteral("must be a non-empty list of conditions"));
            return std::nullopt;
        }
        const QJsonArray items = list.toArray();
        for (qsizetype i = 0; i < items.size(); ++i) {
            auto child = parse(items.at(i), QStringLiteral("%1.%2[%3]").arg(path, kind).arg(i), error);
            if (!child)
                return std::nullopt;
            c.m_children.push_back(std::move(*child));
        }
        return c;
    }
    if (kind == QStringLiteral("bound")) {
        c.m_kind = Kind::Bound;
        const QJsonValue bound = o.value(kind);
        if (!onlyKeys(o, {kind}, path, error))
            return std::nullopt;
        if (!bound.isString() || !boundNames().contains(bound.toString())) {
            fail(error, path + QStringLiteral(".bound"),
                 QStringLiteral("unknown bound %1; use one of %2")
                     .arg(quoted(bound), boundNames().join(u' ')));
            return std::nullopt;
        }
        c.m_name = bound.toString();
        return c;
    }
    if (!onlyKeys(o, {kind, QStringLiteral("op"), QStringLiteral("value")}, path, error))
        return std::nullopt;
    if (kind == QStringLiteral("metric")) {
        c.m_kind = Kind::Metric;
        const QJsonValue name = o.value(kind);
        if (!name.isString() || !isValueName(name.toString())) {
            fail(error, path + QStringLiteral(".metric"),
                 QStringLiteral("must name a metric or derived value in snake_case, not %1")
                     .arg(quoted(name)));
            return std::nullopt;
        }
        c.m_name = name.toString();
    } else {
        c.m_kind = Kind::Ratio;
        const QJsonArray pair = o.value(kind).toArray();
        if (!o.value(kind).isArray() || pair.size() != 2 || !pair.at(0).isString() ||
            !pair.at(1).isString() || !isValueName(pair.at(0).toString()) ||
            !isValueName(pair.at(1).toString())) {
            fail(error, path + QStringLiteral(".ratio"),
                 QStringLiteral("must be two value names, numerator and denominator: [\"a\", \"b\"]"));
            return std::nullopt;
        }
        c.m_name = pair.at(0).toString();
        c.m_denominator = pair.at(1).toString();
    }
    if (!parseComparison(o, path, c, error))
        return std::nullopt;
    return c;
}

bool RuleCondition::compare(double value) const
{
    if (m_op == QStringLiteral("<"))
        return value < m_threshold;
    if (m_op == QStringLiteral("<="))
        return value <= m_threshold;
    if (m_op == QStringLiteral(">"))
        return value > m_threshold;
    if (m_op == QStringLiteral(">="))
        return value >= m_threshold;
    return value == m_threshold;
}

bool RuleCondition::holds(const ProfileValues &values, QList<Evidence> *evidence) const
{
    switch (m_kind) {
    case Kind::All: {
        QList<Evidence> found;
        for (const RuleCondition &c : m_children)
            if (!c.holds(values, &found))
                return false;
        if (evidence)
            *evidence << found;
        return true;
    }
    case Kind::Any: {
        // Every branch is checked so the evidence names all the reasons, not just the first.
        bool any = false;
        for (const RuleCondition &c : m_children)
            any = c.holds(values, evidence) || any;
        return any;
    }
    case Kind::Bound: {
        const QString actual = values.bound();
        if (!boundMatches(m_name, actual))
            return false;
        if (evidence)
            *evidence << Evidence{
                QStringLiteral("bound"), std::nullopt, QString(), std::nullopt, actual, m_name};
        return true;
    }
    case Kind::Metric:
    case Kind::Ratio:
        break;
    }
    std::optional<double> value = values.value(m_name);
    ValueUnit::Kind unit = ValueUnit::forValue(m_name);
    QString subject = m_name;
    if (m_kind == Kind::Ratio) {
        const std::optional<double> denominator = values.value(m_denominator);
        if (!value || !denominator)
            return false;
        if (*denominator != 0)
            value = *value / *denominator;
        else if (*value == 0)
            return false; // 0 / 0 says nothing either way
        else
            value = std::copysign(std::numeric_limits<double>::infinity(), *value);
        unit = ValueUnit::Ratio;
        subject = QStringLiteral("%1 / %2").arg(m_name, m_denominator);
    }
    if (!value || !compare(*value))
        return false;
    if (evidence)
        *evidence << Evidence{subject,
                              value,
                              m_op,
                              m_threshold,
                              ValueUnit::format(*value, unit),
                              ValueUnit::format(m_threshold, unit)};
    return true;
}

QStringList RuleCondition::valueNames() const
{
    QStringList names;
    if (m_kind == Kind::Metric)
        names << m_name;
    else if (m_kind == Kind::Ratio)
        names << m_name << m_denominator;
    for (const RuleCondition &c : m_children)
        for (const QString &n : c.valueNames())
            if (!names.contains(n))
                names << n;
    return names;
}
