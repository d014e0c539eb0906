#include "common/privatefiles.h"

#include "common/datapaths.h"
#include "common/logcategories.h"

#include <QDir>
#include <QFileInfo>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace {
QString octal(unsigned mode)
{
    return QStringLiteral("0%1").arg(mode & 0777, 3, 8, QLatin1Char('0'));
}
} // namespace

bool PrivateFiles::makeFolder(const QString &path, QString &error)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (QFileInfo(absolute).isDir())
        return true;
#ifdef Q_OS_UNIX
    // mkdir(2) with 0700 rather than QDir::mkpath and a chmod after: the folder is never open to others.
    QString sofar;
    for (const QString &part : absolute.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
        sofar += QLatin1Char('/') + part;
        if (QFileInfo(sofar).isDir())
            continue;
        if (::mkdir(QFile::encodeName(sofar).constData(), 0700) != 0 && errno != EEXIST) {
            error = QStringLiteral("cannot create the folder %1: %2")
                        .arg(QDir::toNativeSeparators(sofar), QString::fromLocal8Bit(std::strerror(errno)));
            return false;
        }
    }
    return true;
#else
    if (QDir().mkpath(absolute))
        return true;
    error = QStringLiteral("cannot create the folder %1").arg(QDir::toNativeSeparators(absolute));
    return false;
#endif
}

bool PrivateFiles::createFile(const QString &path, QString &error)
{
#ifdef Q_OS_UNIX
    const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ::close(fd);
        return true;
    }
    if (errno == EEXIST)
        return true;
    error = QStringLiteral("cannot create %1: %2")
                .arg(QDir::toNativeSeparators(path), QString::fromLocal8Bit(std::strerror(errno)));
    return false;
#else
    Q_UNUSED(path);
    Q_UNUSED(error);
    return true;
#endif
}

QString PrivateFiles::tighten(const QString &path)
{
#ifdef Q_OS_UNIX
    struct stat st;
    const QByteArray name = QFile::encodeName(path);
    if (::lstat(name.constData(), &st) != 0 || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) ||
        (st.st_mode & 077) == 0)
        return {};
    const unsigned tight = st.st_mode & 0700;
    if (::chmod(name.constData(), tight) != 0) {
        // A file the user made read-only (or immutable) is not ours to change: only the log hears of it.
        qCInfo(lcCore).noquote() << QStringLiteral("%1 is %2 and could not be tightened: %3")
                                        .arg(QDir::toNativeSeparators(path), octal(st.st_mode),
                                             QString::fromLocal8Bit(std::strerror(errno)));
        return {};
    }
    return QStringLiteral("tightened %1 from %2 to %3, so other local users cannot read it")
        .arg(QDir::toNativeSeparators(path), octal(st.st_mode), octal(tight));
#else
    Q_UNUSED(path);
    return {};
#endif
}

void PrivateFiles::tightenAndLog(const QString &path)
{
    if (const QString note = tighten(path); !note.isEmpty())
        qCWarning(lcCore).noquote() << note;
}

bool PrivateFiles::isOwnDataFolder(const QString &folder)
{
    const QString own = QFileInfo(DataPaths::userDataFile(QStringLiteral("x"))).absolutePath();
    return QDir::cleanPath(QFileInfo(folder).absoluteFilePath()) == QDir::cleanPath(own);
}
