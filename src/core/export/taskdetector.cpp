#include "export/taskdetector.h"

#include "export/kernelexporter.h"
#include "model/datasetlayout.h"
#include "model/kernelfile.h"
#include "model/taskcatalog.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRegularExpression>

namespace {

std::optional<TaskDetector::Found> fromTaskFolder(const QFileInfo &file, const QString &tasksDir)
{
    const QDir folder = file.absoluteDir();
    if (!folder.exists(QStringLiteral("task.json")))
        return std::nullopt;
    const bool shipped =
        !tasksDir.isEmpty() && QFileInfo(folder.absolutePath()).canonicalFilePath() ==
                                   QFileInfo(QDir(tasksDir).filePath(folder.dirName())).canonicalFilePath();
    // People know a task by the name in its task.json; the folder may be a copy called anything.
    const QString name = TaskCatalog::nameOf(folder.absolutePath());
    const QString what = file.fileName() == QStringLiteral("baseline.py") ? QStringLiteral("the baseline")
                                                                          : QStringLiteral("a kernel");
    if (shipped)
        return TaskDetector::Found{{{QStringLiteral("name"), folder.dirName()}},
                                   name,
                                   QStringLiteral("%1 of task %2").arg(what, name)};
    return TaskDetector::Found{{{QStringLiteral("dir"), folder.absolutePath()}},
                               name,
                               QStringLiteral("%1 of the task folder %2").arg(what, folder.absolutePath())};
}

std::optional<TaskDetector::Found> fromExportHeader(const QString &source, const QString &tasksDir)
{
    // Only a header the exporter wrote counts, and only a task this workbench has.
    const qsizetype begin = source.indexOf(KernelExporter::headerBegin);
    const qsizetype end = source.indexOf(KernelExporter::headerEnd);
    if (begin < 0 || end < begin)
        return std::nullopt;
    static const QRegularExpression taskLine(QStringLiteral("^# task:\\s+(\\S+)\\s*$"),
                                             QRegularExpression::MultilineOption);
    const QRegularExpressionMatch m = taskLine.match(source.mid(begin, end - begin));
    if (!m.hasMatch())
        return std::nullopt;
    const QString name = m.captured(1);
    if (tasksDir.isEmpty() ||
        !QFileInfo(QDir(tasksDir).filePath(name + QStringLiteral("/task.json"))).isFile())
        return std::nullopt;
    return TaskDetector::Found{
        {{QStringLiteral("name"), name}}, name, QStringLiteral("an exported kernel of task %1").arg(name)};
}

std::optional<TaskDetector::Found> fromOriginalDataset(const QFileInfo &file)
{
    const QDir kernels = file.absoluteDir();
    if (kernels.dirName() != QStringLiteral("kernels"))
        return std::nullopt;
    QDir dataset = kernels;
    if (!dataset.cdUp() || !dataset.exists(QStringLiteral("reference")))
        return std::nullopt;
    const QString name = DatasetLayout::problemOfKernel(dataset.absolutePath(), file.absoluteFilePath());
    if (name.isEmpty())
        return std::nullopt;
    return TaskDetector::Found{
        {{QStringLiteral("dataset"), dataset.absolutePath()}, {QStringLiteral("name"), name}},
        name,
        QStringLiteral("a kernel of task %1 in the dataset %2").arg(name, dataset.absolutePath())};
}

// A user task made from this very file (task.json "kernel_file", which accelopt task new records), or whose
// baseline is this text.
std::optional<TaskDetector::Found> fromUserTasks(const QFileInfo &file, const QString &source,
                                                 const QString &tasksDir)
{
    const QString canonical = file.canonicalFilePath();
    for (const TaskCatalog::Entry &entry : TaskCatalog::scanAll(tasksDir, file.absoluteFilePath())) {
        if (entry.origin == QStringLiteral("shipped") || !entry.problem.isEmpty())
            continue;
        QFile json(QDir(entry.folder).filePath(QStringLiteral("task.json")));
        const QString recorded = json.size() <= 1024 * 1024 && json.open(QIODevice::ReadOnly)
                                     ? QJsonDocument::fromJson(json.readAll())
                                           .object()
                                           .value(QStringLiteral("kernel_file"))
                                           .toString()
                                     : QString();
        const bool same =
            (!recorded.isEmpty() && !canonical.isEmpty() &&
             QFileInfo(QDir(entry.folder).filePath(recorded)).canonicalFilePath() == canonical) ||
            (!source.isEmpty() && KernelFile::read(entry.kernelPath).text == source);
        if (same)
            return TaskDetector::Found{
                entry.ref(), entry.name,
                QStringLiteral("the %1 task %2 (%3)").arg(entry.origin, entry.name, entry.folder)};
    }
    return std::nullopt;
}

} // namespace

std::optional<TaskDetector::Found> TaskDetector::detect(const QString &filePath, const QString &source,
                                                        const QString &tasksDir)
{
    if (!filePath.isEmpty()) {
        const QFileInfo file(filePath);
        if (auto found = fromTaskFolder(file, tasksDir))
            return found;
        if (auto found = fromOriginalDataset(file))
            return found;
        if (auto found = fromUserTasks(file, source, tasksDir))
            return found;
    }
    return fromExportHeader(source, tasksDir);
}
