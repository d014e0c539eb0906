#include "llm/agentrole.h"

QList<AgentRole> AgentRoles::all()
{
    return {AgentRole::Planner, AgentRole::Executor, AgentRole::Fixer, AgentRole::Summarizer};
}

QString AgentRoles::name(AgentRole role)
{
    switch (role) {
    case AgentRole::Planner:
        return QStringLiteral("planner");
    case AgentRole::Executor:
        return QStringLiteral("executor");
    case AgentRole::Fixer:
        return QStringLiteral("fixer");
    case AgentRole::Summarizer:
        return QStringLiteral("summarizer");
    }
    return QStringLiteral("unknown");
}

std::optional<AgentRole> AgentRoles::fromName(const QString &name)
{
    for (AgentRole role : all())
        if (AgentRoles::name(role) == name.trimmed().toLower())
            return role;
    return std::nullopt;
}
