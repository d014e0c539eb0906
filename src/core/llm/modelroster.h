#pragma once

#include "llm/agentrole.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QStringList>

#include <optional>
#include <utility>

class QRandomGenerator;

// Which endpoint (and so which model) serves each agent role: one, or a weighted ensemble of several, as the
// paper pairs a planner model with a different executor model. Picks draw from a caller-owned, seedable
// generator, so a session replays the same choices from the same seed.
class ModelRoster
{
public:
    struct Member
    {
        // A constructor rather than an aggregate, so {endpoint, weight} written before models existed still
        // reads as the endpoint's default model.
        Member(QString endpointName = {}, double w = 1.0, QString modelName = {})
            : endpoint(std::move(endpointName)), weight(w), model(std::move(modelName))
        {
        }
        QString endpoint;
        double weight = 1.0;
        QString model; // one of the endpoint's served models; empty: its default model
        bool operator==(const Member &) const = default;
    };

    void assign(AgentRole role, const QList<Member> &members);
    void assign(AgentRole role, const QString &endpoint) { assign(role, {{endpoint, 1.0}}); }
    QList<Member> members(AgentRole role) const { return m_roles.value(AgentRoles::name(role)); }
    bool isAssigned(AgentRole role) const { return !members(role).isEmpty(); }

    // The endpoint for one call; empty when the role has no member with a positive weight.
    QString pick(AgentRole role, QRandomGenerator &rng) const;
    // The member (endpoint and model) for one call; the same draw as pick().
    std::optional<Member> pickMember(AgentRole role, QRandomGenerator &rng) const;
    // Unknown endpoints, negative weights and unassigned roles, in words.
    QStringList problems(const QStringList &knownEndpoints) const;

    QJsonObject toJson() const;
    static ModelRoster fromJson(const QJsonObject &o);
    // "big-model:3, small-model:1" <-> members; a bare name has weight 1. A member's model, when it names
    // one, is shown as "endpoint (model)" and not parsed back: the Models dialog picks it from a list.
    static QString format(const QList<Member> &members);
    static std::optional<QList<Member>> parse(const QString &text, QString *error = nullptr);

private:
    QMap<QString, QList<Member>> m_roles;
};
