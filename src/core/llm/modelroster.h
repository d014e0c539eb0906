#pragma once

#include "llm/agentrole.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QStringList>

#include <optional>

class QRandomGenerator;

// Which endpoint (and so which model) serves each agent role: one, or a weighted ensemble of several, as the
// paper pairs a planner model with a different executor model. Picks draw from a caller-owned, seedable
// generator, so a session replays the same choices from the same seed.
class ModelRoster
{
public:
    struct Member
    {
        QString endpoint;
        double weight = 1.0;
        bool operator==(const Member &) const = default;
    };

    void assign(AgentRole role, const QList<Member> &members);
    void assign(AgentRole role, const QString &endpoint) { assign(role, {{endpoint, 1.0}}); }
    QList<Member> members(AgentRole role) const { return m_roles.value(AgentRoles::name(role)); }
    bool isAssigned(AgentRole role) const { return !members(role).isEmpty(); }

    // The endpoint for one call; empty when the role has no member with a positive weight.
    QString pick(AgentRole role, QRandomGenerator &rng) const;
    // Unknown endpoints, negative weights and unassigned roles, in words.
    QStringList problems(const QStringList &knownEndpoints) const;

    QJsonObject toJson() const;
    static ModelRoster fromJson(const QJsonObject &o);
    // "big-model:3, small-model:1" <-> members; a bare name has weight 1.
    static QString format(const QList<Member> &members);
    static std::optional<QList<Member>> parse(const QString &text, QString *error = nullptr);

private:
    QMap<QString, QList<Member>> m_roles;
};
