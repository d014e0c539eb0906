#include "export/exportfile.h"

#include "common/logcategories.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

bool ExportFile::ensureFolder(const QString &folder, QString &error)
{
    const QString shown = QDir::toNativeSeparators(folder);
    if (folder.trimmed().isEmpty()) {
        error = QStringLiteral("no folder given: choose where to export to");
        return false;
    }
    const QFileInfo info(folder);
    if (info.exists() && !info.isDir()) {
        error = QStringLiteral("%1 is a file, not a folder: choose a folder to export into").arg(shown);
        return false;
    }
    if (info.isDir())
        return true;
    if (!QDir().mkpath(folder)) {
        error =
            QStringLiteral("cannot create the folder %1: check that its parent exists and is writable, or "
                           "choose another folder")
                .arg(shown);
        return false;
    }
    qCInfo(lcExport) << "created folder" << folder;
    return true;
}

bool ExportFile::write(const QString &path, const QByteArray &bytes, bool overwrite, QString &error)
{
    const QString shown = QDir::toNativeSeparators(path);
    if (QFileInfo(path).isDir()) {
        error = QStringLiteral("%1 is a folder; choose a file name").arg(shown);
        return false;
    }
    // Claiming the name with an exclusive create is what makes the refusal race-free: two exports of the same
    // name cannot both get past this point. The placeholder also gives the file the user's usual permissions,
    // which QSaveFile then keeps.
    bool placeholder = false;
    if (!overwrite) {
        QFile claim(path);
        if (!claim.open(QIODevice::WriteOnly | QIODevice::NewOnly)) {
            error = QFileInfo::exists(path)
                        ? QStringLiteral("%1 already exists and was left as it is; choose another name or "
                                         "allow replacing it")
                              .arg(shown)
                        : QStringLiteral("cannot create %1: %2; check that the folder is writable")
                              .arg(shown, claim.errorString());
            return false;
        }
        placeholder = true;
    }
    // QSaveFile writes to a temporary name beside the target and renames it at commit; either step can fail
    // with no better reason than "Unknown error" (a name near the file system's length limit does that).
    QSaveFile file(path);
    if (file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size() && file.commit()) {
        qCInfo(lcExport) << "wrote" << path << bytes.size() << "bytes";
        return true;
    }
    error =
        QStringLiteral("cannot write %1: %2; check that the folder is writable, the disk not full and the "
                       "file name not too long for the file system")
            .arg(shown, file.errorString());
    if (placeholder)
        QFile::remove(path);
    return false;
}
