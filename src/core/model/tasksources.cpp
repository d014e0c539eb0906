#include "model/tasksources.h"

#include "model/datasetlayout.h"
#include "model/kernelfile.h"
#include "model/taskcatalog.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

namespace {

bool readInto(const QString &path, const QString &what, QString &text, QString &error)
{
    const KernelFile::ReadResult r = KernelFile::read(path);
    if (!r.ok) {
        error = QStringLiteral("cannot read the task's %1: %2").arg(what, r.error);
        return false;
    }
    text = r.text;
    return true;
}

} // namespace

std::optional<TaskSources> TaskSources::load(const QJsonObject &ref, const QString &tasksDir, QString &error)
{
    TaskSources t;
    const QString dataset = ref.value(QStringLiteral("dataset")).toString();
    const QString dir = ref.value(QStringLiteral("dir")).toString();
    t.name = ref.value(QStringLiteral("name")).toString();
    if (!dataset.isEmpty()) {
        const DatasetLayout::Files files = DatasetLayout::find(dataset, t.name);
        t.referencePath = files.reference;
        t.kernelPath = files.kernel;
        if (t.referencePath.isEmpty() || t.kernelPath.isEmpty()) {
            error =
                QStringLiteral("dataset %1 has no %2 for problem '%3' (looked for reference/%3_*.py and "
                               "kernels/%3_*_0.py); pass the starting kernel with --kernel or check the name")
                    .arg(dataset,
                         t.referencePath.isEmpty() ? QStringLiteral("reference") : QStringLiteral("kernel"),
                         t.name);
            return std::nullopt;
        }
    } else {
        const QString folder = !dir.isEmpty() ? dir : QDir(tasksDir).filePath(t.name);
        if (t.name.isEmpty())
            t.name = TaskCatalog::nameOf(folder); // task.json's name: the folder may be a copy called anything
        if (!QFileInfo(folder).isDir()) {
            error =
                QStringLiteral("no task '%1' in %2; 'accelopt tasks list' shows the tasks there are, or pass "
                               "a task folder")
                    .arg(t.name, tasksDir);
            return std::nullopt;
        }
        t.referencePath = QDir(folder).filePath(referenceFile(folder));
        t.kernelPath = QDir(folder).filePath(QStringLiteral("baseline.py"));
    }
    if (!readInto(t.referencePath, QStringLiteral("reference"), t.reference, error) ||
        !readInto(t.kernelPath, QStringLiteral("starting kernel"), t.kernel, error))
        return std::nullopt;
    return t;
}

QString TaskSources::referenceFile(const QString &folder)
{
    QFile f(QDir(folder).filePath(QStringLiteral("task.json")));
    if (f.size() > 1024 * 1024 || !f.open(QIODevice::ReadOnly))
        return QStringLiteral("reference.py");
    const QString named =
        QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("reference")).toString();
    return named.isEmpty() || named.contains(u'/') ? QStringLiteral("reference.py") : named;
}
