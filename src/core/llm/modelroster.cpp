#include "llm/modelroster.h"

#include <QJsonArray>
#include <QRandomGenerator>
#include <QSet>

#include <algorithm>

void ModelRoster::assign(AgentRole role, const QList<Member> &members)
{
    if (members.isEmpty())
        m_roles.remove(AgentRoles::name(role));
    else
        m_roles.insert(AgentRoles::name(role), members);
}

QString ModelRoster::pick(AgentRole role, QRandomGenerator &rng) const
{
    const std::optional<Member> m = pickMember(role, rng);
    return m ? m->endpoint : QString();
}

std::optional<ModelRoster::Member> ModelRoster::pickMember(AgentRole role, QRandomGenerator &rng) const
{
    const QList<Member> list = members(role);
    double total = 0;
    for (const Member &m : list)
        total += std::max(0.0, m.weight);
    if (total <= 0)
        return std::nullopt;
    // One draw per pick, walked along the cumulative weights in the stored order: deterministic for a seed.
    double x = rng.generateDouble() * total;
    for (const Member &m : list) {
        const double w = std::max(0.0, m.weight);
        if (w > 0 && x < w)
            return m;
        x -= w;
    }
    for (auto it = list.crbegin(); it != list.crend(); ++it) // rounding at the very top end
        if (it->weight > 0)
            return *it;
    return std::nullopt;
}

QStringList ModelRoster::problems(const QStringList &knownEndpoints) const
{
    QStringList out;
    const QSet<QString> known(knownEndpoints.cbegin(), knownEndpoints.cend()); // not a list scan per member
    for (AgentRole role : AgentRoles::all()) {
        const QList<Member> list = members(role);
        if (list.isEmpty())
            out << QStringLiteral("no model is assigned to the %1").arg(AgentRoles::name(role));
        // pick() never chooses a member of weight 0: a role whose weights are all 0 would wait for a model
        // for ever once the search starts.
        if (!list.isEmpty() &&
            std::all_of(list.cbegin(), list.cend(), [](const Member &m) { return m.weight == 0; }))
            out << QStringLiteral("the %1's weights are all 0; give at least one endpoint a weight above 0")
                       .arg(AgentRoles::name(role));
        for (const Member &m : list) {
            if (!known.contains(m.endpoint))
                out << QStringLiteral("the %1 uses endpoint '%2', which does not exist")
                           .arg(AgentRoles::name(role), m.endpoint);
            if (m.weight < 0)
                out << QStringLiteral("the %1's weight for '%2' is negative")
                           .arg(AgentRoles::name(role), m.endpoint);
        }
    }
    return out;
}

QJsonObject ModelRoster::toJson() const
{
    QJsonObject o;
    for (auto it = m_roles.cbegin(); it != m_roles.cend(); ++it) {
        QJsonArray members;
        for (const Member &m : *it) {
            QJsonObject member{{QStringLiteral("endpoint"), m.endpoint}, {QStringLiteral("weight"), m.weight}};
            if (!m.model.isEmpty()) // only when chosen: older readers see the endpoint's default
                member.insert(QStringLiteral("model"), m.model);
            members.append(member);
        }
        o.insert(it.key(), members);
    }
    return o;
}

ModelRoster ModelRoster::fromJson(const QJsonObject &o)
{
    ModelRoster roster;
    for (AgentRole role : AgentRoles::all()) {
        QList<Member> members;
        for (const QJsonValue &v : o.value(AgentRoles::name(role)).toArray()) {
            const QJsonObject m = v.toObject();
            members.append({m.value(QStringLiteral("endpoint")).toString(),
                            m.value(QStringLiteral("weight")).toDouble(1.0),
                            m.value(QStringLiteral("model")).toString().trimmed()});
        }
        roster.assign(role, members);
    }
    return roster;
}

QString ModelRoster::format(const QList<Member> &members)
{
    QStringList parts;
    for (const Member &m : members) {
        const QString who = m.model.isEmpty() ? m.endpoint : QStringLiteral("%1 (%2)").arg(m.endpoint, m.model);
        parts << (m.weight == 1.0 ? who : QStringLiteral("%1:%2").arg(who).arg(m.weight));
    }
    return parts.join(QStringLiteral(", "));
}

std::optional<QList<ModelRoster::Member>> ModelRoster::parse(const QString &text, QString *error)
{
    QList<Member> members;
    for (const QString &raw : text.split(u',', Qt::SkipEmptyParts)) {
        const QString part = raw.trimmed();
        if (part.isEmpty())
            continue;
        const qsizetype colon = part.lastIndexOf(u':');
        Member m{part, 1.0};
        if (colon > 0) {
            bool ok = false;
            const double w = part.mid(colon + 1).trimmed().toDouble(&ok);
            if (!ok || w < 0) {
                if (error)
                    *error = QStringLiteral("'%1': the weight after ':' must be a number ≥ 0").arg(part);
                return std::nullopt;
            }
            m = {part.left(colon).trimmed(), w};
        }
        members.append(m);
    }
    return members;
}
