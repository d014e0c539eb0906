#include "scriptedagents.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QRegularExpression>

namespace {

bool readFile(const QString &path, QString &text, QString &error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        error = QStringLiteral("cannot read %1: %2").arg(path, f.errorString());
        return false;
    }
    text = QString::fromUtf8(f.readAll());
    return true;
}

// "## name" sections of a fixture .md file: name -> the text up to the next "## ".
QMap<QString, QString> sections(const QString &text)
{
    QMap<QString, QString> out;
    QString name;
    QStringList body;
    auto flush = [&] {
        if (!name.isEmpty())
            out.insert(name, body.join(u'\n').trimmed() + u'\n');
    };
    for (const QString &line : text.split(u'\n')) {
        if (line.startsWith(QStringLiteral("## "))) {
            flush();
            name = line.mid(3).trimmed();
            body.clear();
        } else if (!name.isEmpty()) {
            body << line;
        }
    }
    flush();
    return out;
}

QString fenced(const QString &code)
{
    return QStringLiteral("Here is the kernel.\n\n```python\n") + code + QStringLiteral("```\n");
}

} // namespace

bool ScriptedAgents::load(const QString &fixtureDir, const QString &baseline, QString &error)
{
    QString text;
    if (!readFile(baseline, text, error))
        return false;
    m_kernels.insert(QStringLiteral("baseline"), text);
    const QDir dir(fixtureDir);
    for (const QString &file : dir.entryList({QStringLiteral("*.py")}, QDir::Files)) {
        if (!readFile(dir.filePath(file), text, error))
            return false;
        m_kernels.insert(QFileInfo(file).completeBaseName(), text);
    }
    if (!readFile(dir.filePath(QStringLiteral("plans.md")), text, error))
        return false;
    m_plans = sections(text);
    if (!readFile(dir.filePath(QStringLiteral("lessons.md")), text, error))
        return false;
    m_lessons = sections(text);
    for (const char *needed : {"fast1", "fast2", "slow1", "broken_compile", "broken_wrong"})
        if (!m_kernels.contains(QLatin1String(needed)) || !m_plans.contains(QLatin1String(needed))) {
            error =
                QStringLiteral("%1 lacks the %2 kernel or its plan").arg(fixtureDir, QLatin1String(needed));
            return false;
        }
    return true;
}

QString ScriptedAgents::roleOf(const ScriptedLlmServer::Request &r)
{
    const QString system = r.json.value(QStringLiteral("messages"))
                               .toArray()
                               .at(0)
                               .toObject()
                               .value(QStringLiteral("content"))
                               .toString();
    if (system.contains(QStringLiteral("repairs kernels")))
        return QStringLiteral("fixer");
    if (system.contains(QStringLiteral("notebook")))
        return QStringLiteral("summarizer");
    if (system.contains(QStringLiteral("implement optimization plans")))
        return QStringLiteral("executor");
    return QStringLiteral("planner");
}

QString ScriptedAgents::userText(const ScriptedLlmServer::Request &r)
{
    const QJsonArray messages = r.json.value(QStringLiteral("messages")).toArray();
    return messages.at(messages.size() - 1).toObject().value(QStringLiteral("content")).toString();
}

QString ScriptedAgents::variantIn(const QString &text) const
{
    // The longest source first: none is part of another, but a shorter match must not shadow a longer one.
    QString best;
    qsizetype bestLength = 0;
    for (auto it = m_kernels.cbegin(); it != m_kernels.cend(); ++it) {
        const QString body = it.value().trimmed();
        if (body.size() > bestLength && text.contains(body)) {
            best = it.key();
            bestLength = body.size();
        }
    }
    return best;
}

QString ScriptedAgents::lessonTitle(const QString &pair) const
{
    const QString lesson = m_lessons.value(pair);
    return lesson.section(u'\n', 0, 0).remove(QStringLiteral("Title:")).trimmed();
}

QString ScriptedAgents::variantOfPlan(const QString &text) const
{
    // Only the plans the planner hands out: the broken variants share a title with the step they fail at.
    for (const char *variant : {"fast1", "fast2", "slow1"}) {
        const QString plan = m_plans.value(QLatin1String(variant));
        if (text.contains(plan.section(u'\n', 0, 0).remove(QStringLiteral("Title:")).trimmed()))
            return QLatin1String(variant);
    }
    return {};
}

ScriptedLlmServer::Response ScriptedAgents::answer(const QString &content) const
{
    return ScriptedLlmServer::completion(content, ScriptedLlmServer::Usage{promptTokens, completionTokens});
}

ScriptedLlmServer::Response ScriptedAgents::reply(const ScriptedLlmServer::Request &r) const
{
    const QString role = roleOf(r);
    const QString user = userText(r);
    const qint64 seed = r.json.value(QStringLiteral("seed")).toInteger();
    if (role == QStringLiteral("planner")) {
        const QString kernel = variantIn(user);
        // Two good ideas for one bad one; past fast2 there is nothing left but the bad one.
        const QStringList next =
            kernel == QStringLiteral("fast2") ? QStringList{QStringLiteral("slow1")}
            : kernel == QStringLiteral("fast1")
                ? QStringList{QStringLiteral("fast2"), QStringLiteral("fast2"), QStringLiteral("slow1")}
                : QStringList{QStringLiteral("fast1"), QStringLiteral("fast1"), QStringLiteral("slow1")};
        return answer(m_plans.value(next.at(int(seed % next.size()))));
    }
    if (role == QStringLiteral("executor") || role == QStringLiteral("fixer")) {
        const QString target = variantOfPlan(user);
        if (target.isEmpty())
            return answer(QStringLiteral("I cannot tell which plan this is."));
        if (role == QStringLiteral("executor") && target.startsWith(QStringLiteral("fast")))
            switch (seed % 6) {
            case 0:
                return answer(fenced(m_kernels.value(QStringLiteral("broken_compile"))));
            case 1:
                return answer(fenced(m_kernels.value(QStringLiteral("broken_wrong"))));
            case 2:
                return answer(QStringLiteral("I would rather not change this kernel."));
            default:
                break;
            }
        return answer(fenced(m_kernels.value(target)));
    }
    const qsizetype split = user.indexOf(QStringLiteral("Kernel after the change"));
    const QString before = variantIn(user.left(split));
    const QString after = variantIn(user.mid(split));
    const QString key = before + QStringLiteral(" -> ") + after;
    if (m_lessons.contains(key))
        return answer(m_lessons.value(key));
    // No fixture lesson for this pair: a plain one, with the first lines where the two kernels differ.
    const QStringList a = m_kernels.value(before).split(u'\n');
    const QStringList b = m_kernels.value(after).split(u'\n');
    qsizetype line = 0;
    while (line < a.size() && line < b.size() && a.at(line) == b.at(line))
        ++line;
    return answer(QStringLiteral("Title: What changed from %1 to %2\nLesson: Going from %1 to %2 changed the "
                                 "latency as measured; compare the two profiles before repeating it.\n"
                                 "Before:\n```python\n%3\n```\nAfter:\n```python\n%4\n```\n")
                      .arg(before, after, a.value(line).trimmed(), b.value(line).trimmed()));
}

ScriptedLlmServer::Handler ScriptedAgents::handler(int delayMs) const
{
    return [this, delayMs](const ScriptedLlmServer::Request &r) {
        ScriptedLlmServer::Response response = reply(r);
        response.delayMs = delayMs;
        return response;
    };
}
