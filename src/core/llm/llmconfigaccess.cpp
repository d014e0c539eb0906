#include "llm/llmconfigaccess.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#endif

namespace {
#ifdef Q_OS_UNIX
// One path made `wanted` when group or others have any access to it. Empty when nothing was to do.
QString restrict(const QString &path, const QString &what, mode_t wanted)
{
    struct stat st = {};
    const QByteArray native = QFile::encodeName(path);
    if (::stat(native.constData(), &st) != 0 || (st.st_mode & 077) == 0)
        return {};
    const QString was = QString::number(st.st_mode & 0777, 8).rightJustified(4, u'0');
    if (st.st_uid != ::geteuid())
        return QStringLiteral("%1 %2 is open to other users (mode %3) but belongs to another user, so it was "
                              "left as it is; its owner can run chmod %4 on it")
            .arg(what, path, was, QString::number(wanted, 8));
    if (::chmod(native.constData(), wanted) != 0)
        return QStringLiteral("%1 %2 is open to other users (mode %3) and could not be tightened (%4); run "
                              "chmod %5 on it")
            .arg(what, path, was, QString::fromLocal8Bit(std::strerror(errno)), QString::number(wanted, 8));
    return QStringLiteral("%1 %2 was open to other users (mode %3); it is now %4, for you only")
        .arg(what, path, was, QString::number(wanted, 8).rightJustified(4, u'0'));
}
#endif
} // namespace

QStringList LlmConfigAccess::tighten(const QString &path, bool folderCreated)
{
    QStringList notes;
#ifdef Q_OS_UNIX
    const QFileInfo file(path);
    const QString folder = file.absolutePath();
    if (folderCreated || QFileInfo(folder).fileName() == QStringLiteral("AccelOpt"))
        notes << restrict(folder, QStringLiteral("The LLM settings folder"), 0700);
    if (file.isFile()) // a folder in its place keeps its mode: 0600 would lock its owner out of it
        notes << restrict(file.absoluteFilePath(), QStringLiteral("The LLM settings file"), 0600);
    notes.removeAll(QString());
#else
    Q_UNUSED(path)
    Q_UNUSED(folderCreated)
#endif
    return notes;
}
