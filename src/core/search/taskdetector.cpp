#include "search/taskdetector.h"

#include "export/kernelexporter.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace {

std::optional<TaskDetector::Found> fromTaskFolder(const QFileInfo &file, const QString &tasksDir)
{
    const QDir folder = file.absoluteDir();
    if (!folder.exists(QStringLiteral("task.json")))
        return std::nullopt;
    const QString name = folder.dirName();
    const bool shipped =
        !tasksDir.isEmpty() && QFileInfo(folder.absolutePath()).canonicalFilePath() ==
                                   QFileInfo(QDir(tasksDir).filePath(name)).canonicalFilePath();
    const QString what = file.fileName() == QStringLiteral("baseline.py") ? QStringLiteral("the baseline")
                                                                          : QStringLiteral("a kernel");
    if (shipped)
        return TaskDetector::Found{
            {{QStringLiteral("name"), name}}, name, QStringLiteral("%1 of task %2").arg(what, name)};
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
    const QDir reference(dataset.filePath(QStringLiteral("reference")));
    // Task names hold underscores themselves (matmul_add_rmsnorm): the longest prefix with a reference wins.
    const QStringList parts = file.completeBaseName().split(u'_');
    for (qsizetype n = parts.size() - 1; n >= 1; --n) {
        const QString name = parts.mid(0, n).join(u'_');
        if (!reference.entryList({name + QStringLiteral("_*.py")}, QDir::Files).isEmpty())
            return TaskDetector::Found{
                {{QStringLiteral("dataset"), dataset.absolutePath()}, {QStringLiteral("name"), name}},
                name,
                QStringLiteral("a kernel of task %1 in the dataset %2").arg(name, dataset.absolutePath())};
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
    }
    return fromExportHeader(source, tasksDir);
}
