#include "model/taskcatalog.h"

#include "common/logcategories.h"
#include "model/tasklocations.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

namespace {
constexpr qint64 maxTaskJsonBytes = 1024 * 1024;

void readTaskJson(const QString &path, TaskCatalog::Entry &entry)
{
    QFile file(path);
    if (file.size() > maxTaskJsonBytes) {
        entry.problem = QStringLiteral("task.json is larger than 1 MiB");
        return;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        entry.problem = QStringLiteral("task.json cannot be read: %1").arg(file.errorString());
        return;
    }
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &err);
    if (err.error != QJsonParseError::NoError) {
        entry.problem = QStringLiteral("task.json is not valid JSON (offset %1: %2)")
                            .arg(err.offset)
                            .arg(err.errorString());
        return;
    }
    if (!doc.isObject()) {
        entry.problem = QStringLiteral("task.json must hold a JSON object");
        return;
    }
    const QJsonObject obj = doc.object();
    if (const QString name = obj.value(QStringLiteral("name")).toString(); !name.isEmpty())
        entry.name = name;
    entry.description = obj.value(QStringLiteral("description")).toString();
}
} // namespace

QJsonObject TaskCatalog::Entry::ref() const
{
    if (origin == QStringLiteral("shipped"))
        return {{QStringLiteral("name"), QFileInfo(folder).fileName()}};
    return {{QStringLiteral("dir"), folder}};
}

QString TaskCatalog::nameOf(const QString &folder)
{
    Entry entry;
    entry.name = QFileInfo(folder).fileName();
    readTaskJson(QDir(folder).filePath(QStringLiteral("task.json")), entry);
    return entry.name;
}

QList<TaskCatalog::Entry> TaskCatalog::scanAll(const QString &shippedDir, const QString &nearPath)
{
    QList<Entry> entries;
    for (const TaskLocations::Place &place : TaskLocations::search(nearPath, shippedDir))
        entries += scan(place.dir, place.origin);
    return entries;
}

std::optional<TaskCatalog::Entry> TaskCatalog::find(const QString &name, const QString &shippedDir,
                                                    const QString &nearPath)
{
    for (const Entry &entry : scanAll(shippedDir, nearPath))
        if (entry.name == name || QFileInfo(entry.folder).fileName() == name)
            return entry;
    return std::nullopt;
}

QList<TaskCatalog::Entry> TaskCatalog::scan(const QString &tasksDir, const QString &origin)
{
    QList<Entry> entries;
    const QDir dir(tasksDir);
    if (!dir.exists()) {
        qCInfo(lcModel) << "no tasks folder at" << tasksDir;
        return entries;
    }
    const QFileInfoList folders = dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QFileInfo &folder : folders) {
        const QDir taskDir(folder.absoluteFilePath());
        const QString taskJson = taskDir.filePath(QStringLiteral("task.json"));
        const QString baseline = taskDir.filePath(QStringLiteral("baseline.py"));
        if (!QFileInfo::exists(taskJson) && !QFileInfo::exists(baseline))
            continue; // not a task folder (e.g. __pycache__)
        Entry entry;
        entry.name = folder.fileName();
        entry.folder = folder.absoluteFilePath();
        entry.origin = origin;
        entry.originDir = dir.absolutePath();
        if (QFileInfo::exists(taskJson))
            readTaskJson(taskJson, entry);
        else
            entry.problem = QStringLiteral("task.json is missing");
        if (QFileInfo::exists(baseline))
            entry.kernelPath = baseline;
        else if (entry.problem.isEmpty())
            entry.problem = QStringLiteral("baseline.py is missing");
        const QString current = taskDir.filePath(QStringLiteral("baseline_current.py"));
        if (QFileInfo::exists(current))
            entry.currentKernelPath = current;
        if (!entry.problem.isEmpty())
            qCWarning(lcModel) << "task" << entry.folder << ":" << entry.problem;
        entries.append(entry);
    }
    return entries;
}
