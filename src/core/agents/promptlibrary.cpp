#include "agents/promptlibrary.h"

#include "common/datapaths.h"
#include "common/logcategories.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringDecoder>

QStringList PromptLibrary::declaredPlaceholders(AgentRole role)
{
    switch (role) {
    case AgentRole::Planner:
        return {QStringLiteral("reference"), QStringLiteral("kernel"),   QStringLiteral("profile"),
                QStringLiteral("glossary"),  QStringLiteral("findings"), QStringLiteral("experiences"),
                QStringLiteral("api_notes")};
    case AgentRole::Executor:
        return {QStringLiteral("reference"), QStringLiteral("kernel"), QStringLiteral("plan"),
                QStringLiteral("api_notes")};
    case AgentRole::Fixer:
        return {QStringLiteral("reference"), QStringLiteral("kernel"), QStringLiteral("plan"),
                QStringLiteral("error"), QStringLiteral("api_notes")};
    case AgentRole::Summarizer:
        return {QStringLiteral("before_kernel"),  QStringLiteral("after_kernel"),
                QStringLiteral("speedup"),        QStringLiteral("direction"),
                QStringLiteral("before_profile"), QStringLiteral("after_profile")};
    }
    return {};
}

std::optional<PromptTemplate> PromptLibrary::loadFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        m_errors << QStringLiteral("%1: cannot read (%2)").arg(path, file.errorString());
        return std::nullopt;
    }
    if (file.size() > 1024 * 1024) {
        m_errors << QStringLiteral("%1: larger than 1 MB; not a prompt template").arg(path);
        return std::nullopt;
    }
    QStringDecoder decoder(QStringDecoder::Utf8);
    const QString text = decoder(file.readAll());
    if (decoder.hasError()) {
        m_errors << QStringLiteral("%1: not UTF-8 text").arg(path);
        return std::nullopt;
    }
    QString error;
    auto parsed = PromptTemplate::parse(text, &error);
    if (!parsed)
        m_errors << QStringLiteral("%1: %2").arg(path, error);
    return parsed;
}

bool PromptLibrary::load(const QString &shippedDir, const QString &overrideDir)
{
    m_roles.clear();
    m_errors.clear();
    auto pick = [&](const QString &relative) {
        if (!overrideDir.isEmpty()) {
            const QString candidate = QDir(overrideDir).filePath(relative);
            if (QFileInfo::exists(candidate))
                return candidate;
        }
        return QDir(shippedDir).filePath(relative);
    };
    for (AgentRole role : AgentRoles::all()) {
        const QString name = AgentRoles::name(role);
        RoleTemplates t;
        t.systemPath = pick(name + QStringLiteral("/system.md"));
        t.userPath = pick(name + QStringLiteral("/user.md"));
        const int errorsBefore = int(m_errors.size());
        const auto system = loadFile(t.systemPath);
        const auto user = loadFile(t.userPath);
        if (!system || !user)
            continue;
        const QStringList declared = declaredPlaceholders(role);
        QStringList used = system->placeholders();
        for (const QString &p : user->placeholders())
            if (!used.contains(p))
                used << p;
        for (const QString &p : used)
            if (!declared.contains(p))
                m_errors << QStringLiteral(
                                "%1 prompt: unknown placeholder {{%2}} (in %3); the %1 provides: %4")
                                .arg(name, p, system->placeholders().contains(p) ? t.systemPath : t.userPath,
                                     declared.join(QStringLiteral(", ")));
        for (const QString &p : declared)
            if (!used.contains(p))
                m_errors << QStringLiteral("%1 prompt: placeholder {{%2}} is missing from both %3 and %4, so "
                                           "that input would never reach the model")
                                .arg(name, p, t.systemPath, t.userPath);
        if (m_errors.size() > errorsBefore)
            continue;
        t.system = *system;
        t.user = *user;
        m_roles.insert(name, t);
    }
    m_apiNotes.clear();
    for (const char *notes : {"classic", "current", "current_fixes"}) {
        const QString path = pick(QStringLiteral("api/%1.md").arg(QLatin1String(notes)));
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            m_errors << QStringLiteral("%1: cannot read the NKI API notes: %2").arg(path, file.errorString());
            continue;
        }
        m_apiNotes.insert(QLatin1String(notes), QString::fromUtf8(file.readAll()).trimmed());
    }
    for (const QString &e : std::as_const(m_errors))
        qCWarning(lcAgents).noquote() << e;
    return m_errors.isEmpty();
}

PromptLibrary PromptLibrary::loadDefault(const QString &overrideDir)
{
    PromptLibrary library;
    library.load(DataPaths::promptsDir(), overrideDir);
    return library;
}

QString PromptLibrary::apiNotes(NkiGeneration::Kind generation, AgentRole role) const
{
    QString notes = m_apiNotes.value(NkiGeneration::name(generation));
    // The fixer mends what a move to the current API typically breaks.
    if (generation == NkiGeneration::Kind::Current && role == AgentRole::Fixer)
        notes += QStringLiteral("\n\n") + m_apiNotes.value(QStringLiteral("current_fixes"));
    return notes;
}

ChatMessages PromptLibrary::render(AgentRole role, const QHash<QString, QString> &values) const
{
    const auto it = m_roles.constFind(AgentRoles::name(role));
    if (it == m_roles.cend())
        return {};
    return {ChatMessage::system(it->system.render(values)), ChatMessage::user(it->user.render(values))};
}
