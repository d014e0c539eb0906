#pragma once

#include <QJsonObject>
#include <QString>

// That a task folder passed the runner's task check as it is now: `.checked.json` in the folder holds a
// SHA-256 of task.json, the reference and baseline.py when the check passed. A search on a task that is not
// shipped runs the check first unless the stamp is current, so a task edited by hand is checked again and an
// unchanged one costs nothing.
class TaskCheckStamp
{
public:
    static QString fileName() { return QStringLiteral(".checked.json"); }
    // Empty when a file cannot be read.
    static QString fingerprint(const QString &folder);
    static bool isCurrent(const QString &folder);
    // Whether a search on the task `ref` (as in an eval request) must run the check first: a task folder that is
    // not shipped, without a current stamp.
    static bool needsCheck(const QJsonObject &ref, const QString &shippedDir);
    static bool write(const QString &folder, QString &error);
};
