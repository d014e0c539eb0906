#include "suitecommand.h"

#include "common/datapaths.h"
#include "evalbatch.h"
#include "model/datasetlayout.h"
#include "model/kernelfile.h"
#include "model/taskcatalog.h"
#include "resulttable.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QTextStream>

namespace {
// The problems of a dataset in the original NKIBench layout and their starting kernels, named as `bench --task
// NAME --dataset D` and the runner name them (DatasetLayout): silu, not the file name silu_M4096_N7168_0.
QMap<QString, QString> datasetKernels(const QString &dataset, QTextStream &err)
{
    QMap<QString, QString> byTask;
    QString skipped;
    for (const QString &problem : DatasetLayout::problems(dataset, &skipped))
        if (const QString kernel = DatasetLayout::find(dataset, problem).kernel; !kernel.isEmpty())
            byTask.insert(problem, kernel);
    if (!skipped.isEmpty())
        err << "accelopt suite: warning: " << skipped << "\n";
    return byTask;
}

// A name the runner also takes for a dataset: a case named as its files are (silu_M4096_N7168), whose
// reference and kernel DatasetLayout finds by that prefix.
QString caseKernel(const QString &dataset, const QString &name)
{
    const DatasetLayout::Files files = DatasetLayout::find(dataset, name);
    return files.reference.isEmpty() ? QString() : files.kernel;
}
} // namespace

int SuiteCommand::run(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(summary());
    parser.addHelpOption();
    parser.addOptions({{QStringLiteral("dataset"),
                        QStringLiteral("A dataset in the original NKIBench layout."), QStringLiteral("DIR")},
                       {QStringLiteral("tasks"), QStringLiteral("Comma-separated task names (default: all)."),
                        QStringLiteral("LIST")},
                       {QStringLiteral("api"),
                        QStringLiteral("Which baseline of each task: classic (baseline.py, neuronxcc.nki) or current "
                                       "(baseline_current.py, the nki namespace). Default: classic."),
                        QStringLiteral("API"), QStringLiteral("classic")}});
    EvalBatch::addCommonOptions(parser);
    QTextStream err(stderr);
    if (!parser.parse(QStringList{QStringLiteral("accelopt suite")} + arguments)) {
        err << "accelopt suite: " << parser.errorText() << "\n";
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << parser.helpText();
        return 0;
    }
    if (!parser.positionalArguments().isEmpty()) {
        err << "accelopt suite: unexpected argument '" << parser.positionalArguments().first() << "'\n";
        return 2;
    }

    const QString api = parser.value(QStringLiteral("api"));
    if (api != QStringLiteral("classic") && api != QStringLiteral("current")) {
        err << "accelopt suite: --api must be classic or current, not '" << api << "'\n";
        return 2;
    }
    const bool current = api == QStringLiteral("current");
    // task name -> kernel file
    QMap<QString, QString> available;
    QStringList withoutCurrent;
    const QString dataset = parser.value(QStringLiteral("dataset"));
    if (!dataset.isEmpty()) {
        if (!QFileInfo(dataset).isDir()) {
            err << "accelopt suite: --dataset " << dataset << " is not a folder\n";
            return 2;
        }
        if (current) {
            err << "accelopt suite: a dataset in the original NKIBench layout has classic kernels only; drop "
                   "--api current, or port them (accelopt port)\n";
            return 2;
        }
        available = datasetKernels(dataset, err);
    } else {
        for (const TaskCatalog::Entry &entry : TaskCatalog::scan(DataPaths::tasksDir())) {
            const QString kernel = current ? entry.currentKernelPath : entry.kernelPath;
            if (!kernel.isEmpty())
                available.insert(entry.name, kernel);
            else if (current && !entry.kernelPath.isEmpty())
                withoutCurrent.append(entry.name);
        }
    }
    QStringList wanted = available.keys();
    if (parser.isSet(QStringLiteral("tasks"))) {
        wanted = parser.value(QStringLiteral("tasks")).split(u',', Qt::SkipEmptyParts);
        for (QString &name : wanted)
            name = name.trimmed();
        wanted.removeAll(QString());
        if (wanted.isEmpty()) {
            err << "accelopt suite: --tasks names no task; give names separated by commas (e.g. silu,matmul), "
                   "or leave --tasks out to run every task\n";
            return 2;
        }
        for (const QString &name : std::as_const(wanted))
            if (withoutCurrent.contains(name)) {
                err << "accelopt suite: task '" << name << "' has no current-API baseline ("
                    << QDir(DataPaths::tasksDir()).filePath(name + QStringLiteral("/baseline_current.py"))
                    << " is missing)\n";
                return 2;
            } else if (!available.contains(name) && !dataset.isEmpty() && !caseKernel(dataset, name).isEmpty()) {
                available.insert(name, caseKernel(dataset, name));
            } else if (!available.contains(name)) {
                err << "accelopt suite: no task '" << name
                    << "'; available: " << available.keys().join(QStringLiteral(", ")) << "\n";
                return 2;
            }
    }
    if (wanted.isEmpty()) {
        err << "accelopt suite: no tasks found"
            << (dataset.isEmpty() ? " under " + DataPaths::tasksDir() : " in " + dataset) << "\n";
        return 2;
    }

    QList<EvalBatch::Item> items;
    for (const QString &name : std::as_const(wanted)) {
        EvalBatch::Item item;
        item.label = name;
        QString error;
        const KernelFile::ReadResult kernel = KernelFile::read(available.value(name));
        if (!kernel.ok) {
            err << "accelopt suite: " << kernel.error << "\n";
            return 1;
        }
        item.request.kernelSource = kernel.text;
        item.request.kernelName = QFileInfo(available.value(name)).fileName();
        if (!EvalBatch::taskReference(name, dataset, item.request.task, error) ||
            !EvalBatch::applyOptions(parser, item.request, error)) {
            err << "accelopt suite: " << error << "\n";
            return 2;
        }
        items.append(item);
    }
    QString error;
    if (!EvalBatch::hostKnown(parser, error)) {
        err << "accelopt suite: " << error << "\n";
        return 2;
    }
    ResultTable table(parser.isSet(QStringLiteral("json")));
    const QList<Evaluation> results = EvalBatch::run(
        parser, items, error, [&](int i, const Evaluation &e) { table.add(items.at(i).label, e); });
    if (results.isEmpty()) {
        err << "accelopt suite: " << error << "\n";
        return 1;
    }
    table.finish();
    for (const Evaluation &e : results)
        if (!e.ok())
            return 1;
    return 0;
}
