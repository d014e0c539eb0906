#pragma once

#include <QList>
#include <QString>

#include <optional>

// The four agent roles of the AccelOpt loop (docs/architecture.md, "One optimization"). The ledger, the
// roster and the call records all key on them, so the names below are also what settings files and the
// session store hold.
enum class AgentRole
{
    Planner,
    Executor,
    Fixer,
    Summarizer
};

namespace AgentRoles {
QList<AgentRole> all();
QString name(AgentRole role); // "planner", "executor", "fixer", "summarizer"
std::optional<AgentRole> fromName(const QString &name);
} // namespace AgentRoles
