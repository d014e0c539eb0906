#include "common/regularfile.h"

#include <QDir>
#include <QFileInfo>

bool RegularFile::isSpecial(const QString &path)
{
    const QFileInfo info(path);
    return info.exists() && !info.isFile() && !info.isDir();
}

QString RegularFile::refusal(const QString &path)
{
    return QStringLiteral("%1 is not a regular file (a pipe, socket or device)")
        .arg(QDir::toNativeSeparators(path));
}
