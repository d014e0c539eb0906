#pragma once

#include "agents/prompttemplate.h"
#include "llm/agentrole.h"
#include "llm/chatmessage.h"
#include "model/nkigeneration.h"

#include <QHash>
#include <QMap>

// The agents' prompt templates, prompts/<role>/{system,user}.md. Each role declares the placeholders its
// agent fills; a template that uses an undeclared one, or leaves a declared one out (so that input would
// silently never reach the model), fails at load with the file and the name, not later at send.
class PromptLibrary
{
public:
    // The placeholders each role's agent provides; the system and user templates together must use exactly
    // these.
    static QStringList declaredPlaceholders(AgentRole role);

    // Loads every role. A file in overrideDir (same layout) replaces the shipped one. False with errors() set
    // when anything is missing or wrong; roles that loaded stay usable.
    bool load(const QString &shippedDir, const QString &overrideDir = QString());
    // The shipped prompts (DataPaths::promptsDir()) with the user's override folder, if any.
    static PromptLibrary loadDefault(const QString &overrideDir = QString());

    const QStringList &errors() const { return m_errors; }
    bool has(AgentRole role) const { return m_roles.contains(AgentRoles::name(role)); }
    QString systemPath(AgentRole role) const { return m_roles.value(AgentRoles::name(role)).systemPath; }
    QString userPath(AgentRole role) const { return m_roles.value(AgentRoles::name(role)).userPath; }

    // What the model must know of the NKI it writes (prompts/api/<generation>.md), for {{api_notes}}.
    QString apiNotes(NkiGeneration::Kind generation, AgentRole role) const;

    // [system, user] with the values filled in. A role that did not load gives no messages.
    ChatMessages render(AgentRole role, const QHash<QString, QString> &values) const;

private:
    struct RoleTemplates
    {
        PromptTemplate system;
        PromptTemplate user;
        QString systemPath;
        QString userPath;
    };
    std::optional<PromptTemplate> loadFile(const QString &path);

    QMap<QString, RoleTemplates> m_roles;
    QStringList m_errors;
    QHash<QString, QString> m_apiNotes; // classic, current, current_fixes
};
