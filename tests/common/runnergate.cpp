#include "runnergate.h"

#include <QFile>

namespace {

void touch(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("RunnerGate: cannot write %s", qPrintable(path));
}

bool isLive(pid_t pid)
{
    // A process that was killed but not yet reaped is a zombie: kill(pid, 0) still succeeds on it.
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray line = stat.readAll();
    const qsizetype paren = line.lastIndexOf(')');
    return paren > 0 && paren + 2 < line.size() && line.at(paren + 2) != 'Z' && line.at(paren + 2) != 'X';
}

} // namespace

RunnerGate::RunnerGate(const QString &dir) : m_dir(dir)
{
    if (!m_dir.mkpath(QStringLiteral("tokens")) || !m_dir.mkpath(QStringLiteral("held")))
        qFatal("RunnerGate: cannot create %s", qPrintable(dir));
    m_interpreter = m_dir.filePath(QStringLiteral("gated-python"));
    QFile script(m_interpreter);
    if (!script.open(QIODevice::WriteOnly))
        qFatal("RunnerGate: cannot write %s", qPrintable(m_interpreter));
    script.write(QStringLiteral("#!/bin/sh\nexec /usr/bin/python3 '%1/runner/gated_runner.py' '%2' \"$@\"\n")
                     .arg(QStringLiteral(ACCELOPT_TEST_FIXTURES), m_dir.absolutePath())
                     .toUtf8());
    script.close();
    script.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
}

void RunnerGate::open()
{
    touch(m_dir.filePath(QStringLiteral("open")));
}

void RunnerGate::release(int count)
{
    for (int i = 0; i < count; ++i)
        touch(m_dir.filePath(QStringLiteral("tokens/%1").arg(m_tokens++, 6, 10, QLatin1Char('0'))));
}

QSet<pid_t> RunnerGate::holders() const
{
    QSet<pid_t> live;
    const QStringList names = QDir(m_dir.filePath(QStringLiteral("held"))).entryList(QDir::Files);
    for (const QString &name : names) {
        const pid_t pid = pid_t(name.toInt());
        if (pid > 0 && isLive(pid))
            live.insert(pid);
    }
    return live;
}
