#pragma once

#include <QByteArray>
#include <QString>

// How the export room puts files into a user's project: the folder is created when missing, a file is
// replaced only when the caller says so, and a file is never seen half-written (a crash or a full disk leaves
// either the old content or nothing).
class ExportFile
{
public:
    // Creates `folder` (and its parents) when missing. False with a reason when it cannot be created or a
    // file of that name is in the way.
    static bool ensureFolder(const QString &folder, QString &error);

    // Writes `bytes` to `path` atomically. Without `overwrite` an existing file is refused, also one that
    // appears between the caller's own check and this call.
    static bool write(const QString &path, const QByteArray &bytes, bool overwrite, QString &error);
};
