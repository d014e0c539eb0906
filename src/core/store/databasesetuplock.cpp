#include "store/databasesetuplock.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QThread>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#endif

DatabaseSetupLock::~DatabaseSetupLock()
{
    unlock();
}

bool DatabaseSetupLock::lock(const QString &folder, int waitMs, QString &error)
{
    unlock();
#ifdef Q_OS_UNIX
    m_fd = ::open(QFile::encodeName(folder).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (m_fd < 0) {
        error = QStringLiteral("cannot open the folder %1: %2")
                    .arg(QDir::toNativeSeparators(folder), QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    // Polled rather than blocking, so a process that hangs while holding it costs the others an error
    // naming the folder instead of a hang.
    const QDeadlineTimer deadline(waitMs);
    while (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK) // e.g. a file system without flock: go on unserialized, as before
            return true;
        if (deadline.hasExpired()) {
            unlock();
            error = QStringLiteral("another AccelOpt process has been opening a database in %1 for %2 s "
                                   "without finishing; try again, or stop that process")
                        .arg(QDir::toNativeSeparators(folder))
                        .arg(waitMs / 1000);
            return false;
        }
        QThread::msleep(10);
    }
#else
    Q_UNUSED(folder);
    Q_UNUSED(waitMs);
    Q_UNUSED(error);
#endif
    return true;
}

void DatabaseSetupLock::unlock()
{
#ifdef Q_OS_UNIX
    if (m_fd >= 0)
        ::close(m_fd); // closing the descriptor releases the flock
#endif
    m_fd = -1;
}
