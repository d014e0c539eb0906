#include "model/tasklocations.h"

#include "common/datapaths.h"

#include <QDir>
#include <QFileInfo>

namespace {
const QString projectSubdir = QStringLiteral(".accelopt/tasks");

QDir startDir(const QString &nearPath)
{
    const QFileInfo info(nearPath);
    return info.isDir() ? QDir(info.absoluteFilePath()) : info.absoluteDir();
}
} // namespace

QString TaskLocations::projectTasksDir(const QString &nearPath)
{
    if (nearPath.isEmpty())
        return {};
    QDir dir = startDir(nearPath);
    for (;;) {
        const QFileInfo candidate(dir.filePath(projectSubdir));
        if (candidate.isDir())
            return candidate.absoluteFilePath();
        if (!dir.cdUp())
            return {};
    }
}

QString TaskLocations::newProjectTasksDir(const QString &nearPath)
{
    if (const QString found = projectTasksDir(nearPath); !found.isEmpty())
        return found;
    const QDir start = startDir(nearPath);
    QDir dir = start;
    for (;;) {
        if (QFileInfo::exists(dir.filePath(QStringLiteral(".git"))))
            return dir.filePath(projectSubdir);
        if (!dir.cdUp())
            break;
    }
    return start.filePath(projectSubdir);
}

QString TaskLocations::userTasksDir()
{
    return DataPaths::userDataFile(QStringLiteral("tasks"));
}

QList<TaskLocations::Place> TaskLocations::search(const QString &nearPath, const QString &shippedDir)
{
    QList<Place> places;
    const auto add = [&places](const QString &dir, const QString &origin) {
        if (dir.isEmpty() || !QFileInfo(dir).isDir())
            return;
        const QString canonical = QFileInfo(dir).canonicalFilePath();
        for (const Place &p : places)
            if (QFileInfo(p.dir).canonicalFilePath() == canonical)
                return;
        places.append({QFileInfo(dir).absoluteFilePath(), origin});
    };
    add(projectTasksDir(nearPath), QStringLiteral("project"));
    add(userTasksDir(), QStringLiteral("user"));
    add(shippedDir, QStringLiteral("shipped"));
    return places;
}

QString TaskLocations::describe(const Place &place)
{
    if (place.origin == QStringLiteral("shipped"))
        return QStringLiteral("NKIBench (%1)").arg(QDir::toNativeSeparators(place.dir));
    QString shown = QDir::toNativeSeparators(place.dir);
    const QString home = QDir::homePath();
    if (shown.startsWith(home + u'/'))
        shown = u'~' + shown.mid(home.size());
    return QStringLiteral("%1 (%2)").arg(place.origin, shown);
}
