#include "store/sessionlock.h"

#include "common/privatefiles.h"

#include <QDir>
#include <QFileInfo>
#include <QLockFile>

SessionLock::SessionLock(const QString &databasePath, const QString &sessionId)
    : m_sessionId(sessionId), m_file(std::make_unique<QLockFile>(path(databasePath, sessionId)))
{
    m_file->setStaleLockTime(0); // only a dead owner makes it stale, never its age
}

SessionLock::~SessionLock() = default;

QString SessionLock::path(const QString &databasePath, const QString &sessionId)
{
    return databasePath + QStringLiteral("-locks/") + sessionId + QStringLiteral(".lock");
}

bool SessionLock::tryLock(QString &error)
{
    if (m_file->isLocked())
        return true;
    // A folder that cannot be made shows up as the lock failing, named below. Ours alone (it names the
    // sessions being run), so one an older build left open is tightened too.
    const QString folder = QFileInfo(m_file->fileName()).absolutePath();
    QString folderError;
    if (PrivateFiles::makeFolder(folder, folderError))
        PrivateFiles::tightenAndLog(folder);
    if (m_file->tryLock(0))
        return true;
    qint64 pid = 0;
    QString hostname, application;
    if (m_file->error() == QLockFile::LockFailedError && m_file->getLockInfo(&pid, &hostname, &application))
        error =
            QStringLiteral("session %1 is being run by another process (pid %2 on %3); stop that one first")
                .arg(m_sessionId)
                .arg(pid)
                .arg(hostname);
    else
        error = QStringLiteral("cannot lock session %1 (%2): check that its folder is writable")
                    .arg(m_sessionId, m_file->fileName());
    return false;
}

void SessionLock::unlock()
{
    m_file->unlock();
}

bool SessionLock::isLocked() const
{
    return m_file->isLocked();
}

bool SessionLock::isHeld(const QString &databasePath, const QString &sessionId)
{
    const QString file = path(databasePath, sessionId);
    if (!QFileInfo::exists(file))
        return false;
    QLockFile probe(file);
    probe.setStaleLockTime(0);
    if (probe.tryLock(0)) {
        probe.unlock(); // nobody held it (a stale file of a dead process): leave no trace
        return false;
    }
    return probe.error() == QLockFile::LockFailedError;
}
